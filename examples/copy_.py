"""
``Tensor.copy_(src)``: new values, same memory
==============================================

:meth:`torch.Tensor.copy_` writes the values of ``src`` into the memory the destination
already owns, converting dtype, broadcasting shape and crossing devices on the way; into
a floating-point or complex destination, with grad mode on, gradient flows back to
``src``.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU.
import os

import matplotlib.pyplot as plt
import torch

device = torch.device(
    os.environ.get("TORCH_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")
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
# zero, for values that fit in ``int32``. Broadcasting goes one way only.
dst = torch.zeros(2, 3, dtype=torch.int32, device=device)
taken_before = dst.view(-1)
src = torch.tensor([1.7, -1.7, 2.5], dtype=torch.float64, device=device)
out = dst.copy_(src)
print(f"{dst}\na view taken before the copy reads {taken_before.tolist()}")
assert out is dst and dst.dtype == torch.int32 and dst.shape == (2, 3)
assert shares_memory(dst, taken_before)
assert taken_before.tolist() == dst.flatten().tolist()
assert torch.equal(dst, src.trunc().int().expand(2, 3)) and src.int().equal(dst[0])
message = error_from(lambda: torch.zeros(3, device=device).copy_(dst))
print(f"RuntimeError: {message}")
assert "broadcast shape" in message

# %%
# Drawn from the live tensors: ``src`` broadcast into the storage ``dst`` already had.
fig, ax = plt.subplots(figsize=(5, 3))
rows = [(2.6, src, "#fce5cd"), (0.9, dst[0], "#cfe2f3"), (-0.1, dst[1], "#cfe2f3")]
for y, t, colour in rows:
    for i, value in enumerate(t.tolist()):
        ax.add_patch(plt.Rectangle((i, y), 0.95, 0.8, fc=colour, ec="#444"))
        ax.text(i + 0.47, y + 0.4, f"{value:g}", ha="center", va="center")
for i in range(3):
    ax.annotate("", (i + 0.47, 1.75), (i + 0.47, 2.6), arrowprops={"arrowstyle": "->"})
for y, name, t in [(3.0, "src", src), (0.8, "dst", dst)]:
    ax.text(-0.3, y, f"{name}\n{t.dtype}", ha="right", va="center")
ax.set(xlim=(-2.8, 3.2), ylim=(-0.2, 3.5), title="dst.copy_(src): broadcast, convert")
ax.axis("off")
plt.show()

# %%
# The copy is independent: a later write into ``src`` does not reach ``dst``.
src[0] = 100.0
print(f"src = {src}\ndst = {dst}")
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
assert plain.requires_grad and type(plain.grad_fn).__name__ == "CopyBackwards"
assert torch.equal(s.grad, weights) and torch.equal(old.grad, 0 * weights)
with torch.no_grad():
    assert not torch.zeros(3, device=device).copy_(s).requires_grad  # not recorded

# %%
# Only floating-point and complex tensors can require grad. Copied into an integer or
# boolean destination, the values arrive but the link to ``src`` is dropped, without
# an error or a warning.
import warnings

for dtype in (torch.float16, torch.float64, torch.complex64, torch.int64, torch.bool):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would raise here
        copied = torch.zeros(3, dtype=dtype, device=device).copy_(s)
    linked = copied.requires_grad
    print(f"copy_ into {dtype}: {copied.tolist()}, requires_grad={linked}")
    assert torch.equal(copied.detach(), s.detach().to(dtype))  # the values arrive
    assert linked == (dtype.is_floating_point or dtype.is_complex), dtype
message = error_from(lambda: torch.zeros(3, dtype=torch.int64).requires_grad_())
assert "only Tensors of floating point" in message

# %%
# Filling a parameter: ``torch.no_grad()``, not ``.data``
# -------------------------------------------------------
# A leaf that requires grad refuses in-place writes. Initialisation is no part of the
# model, so write under :class:`torch.no_grad`: the tensor stays a leaf and its version
# counter records the write. The old idiom ``r.data.copy_(new)`` writes the same values
# but leaves the version counter alone.
q, r = (torch.ones(3, device=device, requires_grad=True) for _ in range(2))
new = torch.tensor([0.5, -0.5, 1.5], device=device)
message = error_from(lambda: q.copy_(new))
print(f"RuntimeError: {message}")
assert "leaf Variable that requires grad" in message
loss_q, loss_r = (q * q).sum(), (r * r).sum()  # both save their input for backward
with torch.no_grad():
    q.copy_(new)
r.data.copy_(new)
print(f"q: is_leaf={q.is_leaf}, version {q._version}; r: version {r._version}")
assert q.is_leaf and q.requires_grad and q._version == 1 and r._version == 0
assert torch.equal(q.detach(), new) and torch.equal(r.detach(), new)

# %%
# The version counter guards graphs built before the write: backward from ``loss_q``
# raises, while ``loss_r`` silently returns the gradient at the new values.
message = error_from(loss_q.backward)
loss_r.backward()
print(f"{message[:75]}...\ngradient of r: {r.grad}")
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
    torch.cuda.current_stream(device).synchronize()  # before the host reads back
    print(f"back on {back.device}, pinned={back.is_pinned()}: {back}")
    assert back.device.type == "cpu" and back.is_pinned()
    assert torch.equal(back, host * 2)
else:
    print("CPU run: skipped. On CUDA this copies to the GPU and back, and prints it.")

# %%
# Use it when, use instead
# ------------------------
# * Use ``copy_`` to fill memory you already hold: a preallocated buffer, a pinned
#   staging tensor, a parameter under ``torch.no_grad()`` (never through ``.data``).
# * For a new tensor with the same values, use :meth:`~torch.Tensor.clone` (in the
#   graph) or ``detach().clone()`` (out of it).
