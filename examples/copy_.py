"""
``Tensor.copy_(src)``: new values, same memory
==============================================

The values of ``src`` are written into memory the destination already owns:
converted to its dtype, broadcast to its shape, across devices if need be. Into a
floating-point or complex destination that accepts the write (not a leaf that
requires grad, nor a view of one), with grad mode on, gradient flows back to ``src``
when it requires grad.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU.

# Setup: the device, a test of whether two tensors share memory, errors caught
import os
import warnings

import matplotlib.pyplot as plt
import torch

device = torch.device(
    os.environ.get("TORCH_DEVICE")
    or ("cuda" if torch.cuda.is_available() else "cpu")
)
print(f"torch {torch.__version__} on {device}")


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Tell whether the storages of ``a`` and ``b`` cover some of the same bytes.

    A storage that holds no memory, like that of ``torch.empty(0)`` or of a ``meta``
    tensor, overlaps nothing.
    """
    if a.device != b.device:
        return False
    spans = []
    for t in (a, b):
        storage = t.untyped_storage()
        start, size = storage.data_ptr(), storage.nbytes()
        if start == 0 or size == 0:
            return False
        spans.append((start, start + size))
    (a_start, a_end), (b_start, b_end) = spans
    return a_start < b_end and b_start < a_end


def error_from(action) -> str:
    """Run ``action`` and return the message of the RuntimeError it raises, or ''."""
    try:
        action()
    except RuntimeError as error:
        return str(error)
    return ""


# %%
# The destination keeps its memory, dtype and shape
# -------------------------------------------------
# ``copy_`` returns the destination itself, in the memory it had: a view taken before
# the copy sees the new values. A ``float64`` row copied into a 2-by-3 ``int32`` tensor
# is broadcast to every row and converted as :meth:`~torch.Tensor.to` converts: toward
# zero, for values that fit in ``int32``.
dst = torch.zeros(2, 3, dtype=torch.int32, device=device)
taken_before = dst.view(-1)
src = torch.tensor([1.7, -1.7, 2.5], dtype=torch.float64, device=device)
out = dst.copy_(src)
print(f"out is dst: {out is dst}")
print(dst)
print(f"a view taken before the copy reads {taken_before.tolist()}")

# %%

# Checks: same tensor, same memory, values broadcast and truncated
assert out is dst and dst.dtype == torch.int32 and dst.shape == (2, 3)
assert shares_memory(dst, taken_before)
assert taken_before.tolist() == dst.flatten().tolist()
assert torch.equal(dst, src.trunc().int().expand(2, 3))
assert src.int().equal(dst[0])

# %%
# Drawn from the live tensors: ``src`` broadcast into each row of the storage ``dst``
# already had, and converted on the way.

# Drawing: src on the left, an arrow into each row of dst
plt.rcParams["font.size"] = 13
fig = plt.figure(figsize=(5, 3.5))
ax = fig.add_axes((0, 0, 1, 1), xlim=(0, 5), ylim=(0, 3.5))  # 1 unit = 1 inch
ax.axis("off")
cell, row_h = 0.68, 0.85


def draw_row(x, y, values, fill, edge):
    """A row of boxes, one per value, its lower left corner at (x, y)."""
    for i, value in enumerate(values):
        ax.add_patch(
            plt.Rectangle(
                (x + i * cell, y), cell, row_h, fc=fill, ec=edge, lw=2
            )
        )
        ax.text(
            x + (i + 0.5) * cell,
            y + row_h / 2,
            f"{value:g}",
            ha="center",
            va="center",
            size=17,
        )


src_x, dst_x, middle = 0.1, 4.9 - 3 * cell, 1.85
draw_row(src_x, middle - row_h / 2, src.cpu().tolist(), "#fce5cd", "#b45f06")
dst_rows = dst.cpu().tolist()
for k, values in enumerate(dst_rows):
    y = middle - k * row_h  # row 0 above the middle line, row 1 below it
    draw_row(dst_x, y, values, "#cfe2f3", "#1f4e79")
    ax.annotate(
        "",
        (dst_x, y + row_h / 2),
        (src_x + 3 * cell, middle + (0.5 - k) * row_h / 2),
        arrowprops={"arrowstyle": "-|>", "lw": 2.2, "color": "#333"},
    )
ax.text(
    src_x, middle + row_h / 2 + 0.15, f"src: {str(src.dtype)[6:]}", size=16
)
ax.text(dst_x, middle + row_h + 0.15, f"dst: {str(dst.dtype)[6:]}", size=16)
ax.text(2.5, 0.45, "dst.copy_(src)", ha="center", size=16, family="monospace")
plt.show()

# %%

# Checks: the drawing shows src, converted, in every row of dst
assert dst_rows == [src.trunc().int().tolist()] * 2

# %%
# Broadcasting goes one way only: ``src`` must broadcast to the shape of the
# destination, not the other way round.
message = error_from(lambda: torch.zeros(3, device=device).copy_(dst))
print(f"RuntimeError: {message}")

# %%

# Checks: the larger source is refused
assert "broadcast shape" in message

# %%
# The copy is independent: a later write into ``src`` does not reach ``dst``.
src[0] = 100.0
print(f"src = {src}\ndst = {dst}")
print(f"src shares memory with dst: {shares_memory(src, dst)}")

# %%

# Checks: the write stayed in src
assert not shares_memory(src, dst) and dst[0, 0].item() != src[0].item()

# %%
# Gradient flows to ``src``
# -------------------------
# With grad mode on, when ``src`` requires grad, ``copy_`` into a floating-point
# destination is recorded by autograd: the destination joins the graph, gradient
# reaching it goes to ``src``, and its old values get a gradient of zero.
old = torch.ones(3, device=device, requires_grad=True)
s = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
weights = torch.tensor([1.0, 10.0, 100.0], device=device)
plain = torch.zeros(3, device=device).copy_(s)
((old * 2).copy_(s) * weights).sum().backward()
print(f"plain.grad_fn is a {type(plain.grad_fn).__name__}")
print(f"s.grad={s.grad}, old.grad={old.grad}")
with torch.no_grad():
    unrecorded = torch.zeros(3, device=device).copy_(s)
print(f"under no_grad: requires_grad={unrecorded.requires_grad}")

# %%

# Checks: recorded, gradient to src, zero to the old values; not under no_grad
assert plain.requires_grad and type(plain.grad_fn).__name__ == "CopyBackwards"
assert torch.equal(s.grad, weights) and torch.equal(old.grad, 0 * weights)
assert not unrecorded.requires_grad

# %%
# Integer and boolean tensors cannot require grad. The message names floating
# point only; complex tensors can require grad too, as the next cell shows.
integers = torch.zeros(3, dtype=torch.int64)
message = error_from(integers.requires_grad_)
print(f"RuntimeError: {message}")

# %%

# Checks: every integer and boolean dtype refuses to require grad
assert "only Tensors of floating point" in message
for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.bool):
    refusal = error_from(torch.zeros(3, dtype=dtype).requires_grad_)
    assert "only Tensors of floating point" in refusal, dtype

# %%
# Copied into an integer or boolean destination, the values arrive but the link to
# ``src`` is dropped, without an error or a warning.
floats = [torch.float16, torch.float64, torch.complex64]
copies = {}
for dtype in [*floats, torch.int64, torch.bool]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would raise here
        copies[dtype] = torch.zeros(3, dtype=dtype, device=device).copy_(s)
    linked = copies[dtype].requires_grad
    print(f"into {dtype}: {copies[dtype].tolist()}, requires_grad={linked}")

# %%

# Checks: the values arrive; gradient flows only from floating-point and complex
for dtype, copied in copies.items():
    assert torch.equal(copied.detach(), s.detach().to(dtype))
    linked = copied.requires_grad
    assert linked == (dtype.is_floating_point or dtype.is_complex), dtype
    if linked:
        part = copied.real if copied.is_complex() else copied
        (grad,) = torch.autograd.grad(part.sum(), s)
        assert torch.equal(grad, torch.ones_like(s)), dtype

# %%
# Filling a parameter: ``torch.no_grad()``, not ``.data``
# -------------------------------------------------------
# A leaf that requires grad refuses in-place writes.
q, r = (torch.ones(3, device=device, requires_grad=True) for _ in range(2))
new = torch.tensor([0.5, -0.5, 1.5], device=device)
message = error_from(lambda: q.copy_(new))
print(f"RuntimeError: {message}")

# %%

# Checks: the write into the leaf is refused
assert "leaf Variable that requires grad" in message

# %%
# Initialisation is no part of the model, so write under :class:`torch.no_grad`: the
# tensor stays a leaf and its version counter records the write. The old idiom
# ``r.data.copy_(new)`` writes the same values but leaves the version counter alone.
loss_q, loss_r = (q * q).sum(), (r * r).sum()  # both save their input
with torch.no_grad():
    q.copy_(new)
r.data.copy_(new)
print(f"q: {q.tolist()}, is_leaf={q.is_leaf}, version {q._version}")
print(f"r: {r.tolist()}, version {r._version}")

# %%

# Checks: both written; only q's version counter moved
assert q.is_leaf and q.requires_grad and q._version == 1 and r._version == 0
assert torch.equal(q.detach(), new) and torch.equal(r.detach(), new)

# %%
# The version counter guards graphs built before the write: backward from ``loss_q``
# raises, while ``loss_r`` silently returns the gradient at the new values.
message = error_from(loss_q.backward)
loss_r.backward()
print(f"{message[:75]}...\ngradient of r: {r.grad}")

# %%

# Checks: q's backward refused; r's gradient taken at the new values
assert "modified by an inplace operation" in message and q.grad is None
assert torch.equal(r.grad, 2 * new)

# %%
# Across devices, without waiting
# -------------------------------
# On CUDA, ``copy_`` crosses between host and GPU; the destination stays put. With
# ``non_blocking=True`` and :meth:`pinned <torch.Tensor.pin_memory>` host memory, the
# copy "may occur asynchronously with respect to the host", as the documentation of
# ``copy_`` puts it: work queued after it on the
# :func:`current <torch.cuda.current_stream>` stream sees the data, and the host
# synchronises with that stream before it reads the result.
if device.type == "cuda":
    host = torch.arange(6.0).pin_memory()
    gpu = torch.empty(6, device=device)
    gpu.copy_(host, non_blocking=True)
    back = torch.empty(6, pin_memory=True)
    back.copy_(gpu * 2, non_blocking=True)
    torch.cuda.current_stream(device).synchronize()  # before the host reads
    print(f"back on {back.device}, pinned={back.is_pinned()}: {back}")
else:
    print("CPU run: skipped. On CUDA this copies to the GPU and back.")

# %%

# Checks: back on the host, pinned, with the doubled values
if device.type == "cuda":
    assert back.device.type == "cpu" and back.is_pinned()
    assert torch.equal(back, host * 2)

# %%
# Use it when, use instead
# ------------------------
# * Use ``copy_`` to fill memory you already hold: a preallocated buffer, a pinned
#   staging tensor, a parameter under ``torch.no_grad()`` (never through ``.data``).
# * For a new tensor with the same values, use :meth:`~torch.Tensor.clone` (in the
#   graph) or ``detach().clone()`` (out of it).
