"""
``Tensor.copy_(src)``: new values, same memory
==============================================

**In grad mode, dst.copy_(src) passes gradient to src when src requires grad
and dst is a floating-point or complex tensor that accepts the write. The
values land in dst's own memory, converted and broadcast.**
"""

# Setup: the device (TORCH_DEVICE, else CUDA if present, else the CPU), the
# test of shared memory, the case grid, and errors caught
import contextlib
import os
import warnings
from collections.abc import Callable

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


def layout_cases(device: torch.device) -> dict[tuple[str, str], torch.Tensor]:
    """Every (dtype kind, layout) pair: a tensor over new memory holding 1..6, arranged.

    Each case is a view of six new elements, so even the empty and 0-d cases lie in a
    storage that holds bytes: ``shares_memory`` tells whether a result uses that memory.

    The conjugate and negative bits are flags that ``conj()`` and ``.imag`` of its
    result set on a view, so they are set last, on the arranged tensor: the neg-bit
    case is the imaginary part of a complex one, the same layout at twice the stride.
    """
    layouts = {
        "contiguous": lambda s: s.view(2, 3),
        "transposed": lambda s: s.view(3, 2).t(),
        "with gaps": lambda s: s.view(2, 3)[:, ::2],
        "expanded": lambda s: s[:3].expand(2, 3),
        "0-d": lambda s: s[0],
        "empty": lambda s: s[:0].view(0, 3),
    }
    kinds = {
        "float32": lambda v: v,
        "float64": lambda v: v.double(),
        "int64": lambda v: v.long(),
        "bool": lambda v: v > 3,
        "complex64": lambda v: v * (1 + 1j),
        "conj bit": lambda v: v * (1 + 1j),
        "neg bit": lambda v: v * (1 + 1j),
    }
    grid = {}
    for kind, make in kinds.items():
        for layout, arrange in layouts.items():
            t = arrange(make(torch.arange(1.0, 7.0, device=device)))
            if kind == "conj bit":
                t = t.conj()
            elif kind == "neg bit":
                t = t.conj().imag
            grid[kind, layout] = t
    return grid


def state_cases(make: Callable[[], torch.Tensor]) -> dict[str, torch.Tensor]:
    """A tensor from ``make()`` (new floating-point memory) in each autograd state."""
    with torch.inference_mode():
        inference = make()
    return {
        "no grad": make(),
        "leaf": make().requires_grad_(),
        "non-leaf": make().requires_grad_() * 1,
        "view of a leaf": make().requires_grad_()[...],
        "detached": make().requires_grad_().detach(),
        "inference": inference,
    }


def grad_modes() -> dict[str, Callable[[], contextlib.AbstractContextManager]]:
    """Each grad mode, as a context manager to enter: {name: factory}."""
    return {
        "grad mode": contextlib.nullcontext,
        "no_grad": torch.no_grad,
        "inference_mode": torch.inference_mode,
    }


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
# **copy_ returns dst itself, in its memory, holding src's values broadcast to
# its shape and converted to its dtype. An expanded dst, with stride 0 over a
# dimension longer than 1, refuses the write.**
#
# A ``float64`` row copied into a 2-by-3 ``int32`` tensor is broadcast to every
# row and converted as :meth:`~torch.Tensor.to` converts: toward zero, for
# values that fit in ``int32``. A view taken before the copy sees the values.
dst = torch.zeros(2, 3, dtype=torch.int32, device=device)
taken_before = dst.view(-1)
src = torch.tensor([1.7, -1.7, 2.5], dtype=torch.float64, device=device)
out = dst.copy_(src)
print(f"out is dst: {out is dst}")
print(dst)
print(f"a view taken before the copy reads {taken_before.tolist()}")

# %%

# Checks: same tensor, same memory, values broadcast and truncated; then
# over every dtype kind and layout of dst (only the expanded one repeats a
# memory location)
assert out is dst and dst.dtype == torch.int32 and dst.shape == (2, 3)
assert shares_memory(dst, taken_before)
assert taken_before.tolist() == dst.flatten().tolist()
assert torch.equal(dst, src.trunc().int().expand(2, 3))
assert src.int().equal(dst[0])
for (kind, layout), target in layout_cases(device).items():
    row = torch.arange(10.0, 10.0 + (target.shape or [1])[-1], device=device)
    values = row if target.dim() else row[0]
    seen_before = target[...]
    message = error_from(lambda t=target, v=values: t.copy_(v))
    if layout == "expanded":
        assert "more than one element of the written-to" in message, kind
        continue
    expected = values.to(target.dtype).expand(target.shape).tolist()
    assert not message and target.tolist() == expected, (kind, layout)
    assert shares_memory(target, seen_before), (kind, layout)
    assert seen_before.tolist() == expected, (kind, layout)

# %%
# Drawn from the live tensors: ``src`` broadcast into each row of the storage
# ``dst`` already had, and converted on the way.

# Drawing: src on the left, an arrow into each row of dst
# Alt: A row of boxes holding src's values, with an arrow into each of the two
#   rows of dst, which hold the same values; each side is labelled with its
#   dtype, and dst.copy_(src) is written below.
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
code = {"size": 16, "family": "monospace"}  # names and dtypes: code type
ax.text(src_x, middle + row_h / 2 + 0.15, f"src: {str(src.dtype)[6:]}", **code)
ax.text(dst_x, middle + row_h + 0.15, f"dst: {str(dst.dtype)[6:]}", **code)
ax.text(2.5, 0.45, "dst.copy_(src)", ha="center", size=16, family="monospace")
plt.show()

# %%

# Checks: the drawing shows src, converted, in every row of dst
assert dst_rows == [src.trunc().int().tolist()] * 2

# %%
# Broadcasting goes one way only: ``src`` must broadcast to the shape of the
# destination, not the other way round. And the copy is independent: a later
# write into ``src`` does not reach ``dst``.
message = error_from(lambda: torch.zeros(3, device=device).copy_(dst))
print(f"RuntimeError: {message}")
src[0] = 100.0
print(f"src = {src}\ndst = {dst}")
print(f"src shares memory with dst: {shares_memory(src, dst)}")

# %%

# Checks: the larger source is refused; the write stayed in src
assert "broadcast shape" in message
assert not shares_memory(src, dst) and dst[0, 0].item() != src[0].item()

# %%
# The refusal looks only for a stride of 0 over a dimension longer than 1.
# Strides that overlap otherwise go undetected: below, positions ``[0, 1]``
# and ``[1, 0]`` of ``overlap`` are one element of ``b``. The copy runs without
# an error, and what lands there is undefined.
b = torch.zeros(5, device=device)
overlap = b.as_strided((2, 2), (1, 1))
print(f"overlap shares memory with b: {shares_memory(overlap, b)}")
values = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
message = error_from(lambda: overlap.copy_(values))
print(f"error: {message!r}; b after the copy: {b.tolist()}")

# %%

# Checks: no error; the write reached b; the positions that alias nothing
# hold their value, and b[1] holds one of the two written there
assert message == "" and shares_memory(overlap, b)
assert b[0].item() == 1.0 and b[2].item() == 4.0 and not b[3:].any()
assert b[1].item() in (2.0, 3.0)
# Checks: a stride of 0 over a dimension of size 1 repeats nothing: accepted
column = torch.zeros(3, device=device).as_strided((3, 1), (1, 0))
assert error_from(lambda: column.copy_(torch.ones(3, 1, device=device))) == ""
assert column._base.tolist() == [1.0] * 3

# %%
# Gradient flows to ``src``
# -------------------------
# **If src requires grad, dst.copy_(src) is recorded: gradient reaching dst
# goes to src, and dst's old values get zero. The table lists the exceptions.**
old = torch.ones(3, device=device, requires_grad=True)
s = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
weights = torch.tensor([1.0, 10.0, 100.0], device=device)
plain = torch.zeros(3, device=device).copy_(s)
((old * 2).copy_(s) * weights).sum().backward()
print(f"plain.grad_fn is a {type(plain.grad_fn).__name__}")
print(f"s.grad={s.grad}, old.grad={old.grad}")

# %%

# Checks: recorded, gradient to src, zero to the old values
assert plain.requires_grad and type(plain.grad_fn).__name__ == "CopyBackwards"
assert torch.equal(s.grad, weights) and torch.equal(old.grad, 0 * weights)

# %%
# In the table, ``src`` requires grad. *Recorded*: gradient reaches ``src``.
# *Not recorded*: the values arrive, gradient does not, and nothing warns.
# *Refused*: a ``RuntimeError``, after the write for an inference tensor and
# before it otherwise. The folded checks measure every row.
#
# .. csv-table::
#    :header: "dst", "grad mode", "no_grad", "inference_mode"
#
#    "float or complex: no grad, non-leaf, detached, a row x[i]", "recorded", "not recorded", "not recorded"
#    "integer or bool", "not recorded", "not recorded", "not recorded"
#    "a leaf that requires grad, or a view of one", "refused", "not recorded", "not recorded"
#    "a piece of unbind, split or chunk, or a row got by iterating", "refused", "not recorded", "not recorded"
#    "a view made under no_grad", "refused", "not recorded", "not recorded"
#    "an inference tensor", "refused after writing", "refused after writing", "not recorded"
#
# The usual trap is a preallocated buffer filled row by row: iterating hands
# out pieces of ``unbind``. Index the rows instead.
buffer = torch.zeros(2, 3, device=device)
message = error_from(lambda: [row.copy_(s) for row in buffer])
print(f"RuntimeError: {message[:70]}...")
for i in range(len(buffer)):
    buffer[i].copy_(s)
print(f"indexed rows: {type(buffer.grad_fn).__name__}")

# %%


# Checks: the iterated rows refused, the indexed ones recorded; the measured
# outcomes are the table's rows
def fresh(state):
    return state_cases(lambda: torch.zeros(3, device=device))[state]


def no_grad_view():
    with torch.no_grad():
        return torch.zeros(2, 3, device=device)[0]


def outcome(target, enter):
    """What target.copy_(s) does under the grad mode ``enter`` starts."""
    with enter():
        message = error_from(lambda: target.copy_(s))
    values = target.detach().real.tolist()
    arrived = values == s.detach().expand_as(target).tolist()
    if message:
        return "refused after writing" if arrived else "refused"
    if not target.requires_grad:
        return "not recorded"
    part = target.real if target.is_complex() else target
    (grad,) = torch.autograd.grad(part.sum(), s, allow_unused=True)
    return "not recorded" if grad is None else "recorded"


assert "output of a function that returns multiple views" in message
assert torch.equal(buffer, s.detach().expand(2, 3)) and buffer.requires_grad
pieces = (lambda b: b.unbind()[0], lambda b: b.split(1)[0],
          lambda b: b.chunk(2)[0], lambda b: next(iter(b)))  # fmt: skip
ROWS = {
    "accepts": lambda: [
        *(fresh(state) for state in ("no grad", "non-leaf", "detached")),
        torch.zeros(3, dtype=torch.complex64, device=device),
        torch.zeros(2, 3, device=device)[0],
    ],
    "integer or bool": lambda: [
        torch.zeros(3, dtype=dtype, device=device)
        for dtype in (torch.int64, torch.bool)
    ],
    "leaf or its view": lambda: [fresh("leaf"), fresh("view of a leaf")],
    "piece": lambda: [
        piece(torch.zeros(2, 3, device=device)) for piece in pieces
    ],
    "no_grad view": lambda: [no_grad_view()],
    "inference": lambda: [fresh("inference")],
}
TABLE = {
    "accepts": ["recorded", "not recorded", "not recorded"],
    "integer or bool": ["not recorded"] * 3,
    "leaf or its view": ["refused", "not recorded", "not recorded"],
    "piece": ["refused", "not recorded", "not recorded"],
    "no_grad view": ["refused", "not recorded", "not recorded"],
    "inference": ["refused after writing"] * 2 + ["not recorded"],
}
for row, make in ROWS.items():
    for mode, (name, enter) in enumerate(grad_modes().items()):
        outcomes = {outcome(target, enter) for target in make()}
        assert outcomes == {TABLE[row][mode]}, (row, name, outcomes)

# %%
# Integer and boolean tensors cannot require grad. The message names floating
# point only; complex tensors can require grad too. Copied into an integer or
# boolean destination, the values arrive but the link to ``src`` is dropped,
# without an error or a warning.
message = error_from(torch.zeros(3, dtype=torch.int64).requires_grad_)
print(f"RuntimeError: {message}")
floats = [torch.float16, torch.float64, torch.complex64]
copies = {}
for dtype in [*floats, torch.int64, torch.bool]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would raise here
        copies[dtype] = torch.zeros(3, dtype=dtype, device=device).copy_(s)
    linked = copies[dtype].requires_grad
    print(f"into {dtype}: {copies[dtype].tolist()}, requires_grad={linked}")

# %%

# Checks: every integer and boolean dtype refuses to require grad; the values
# arrive; gradient flows only from floating-point and complex
assert "only Tensors of floating point" in message
for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.bool):
    refusal = error_from(torch.zeros(3, dtype=dtype).requires_grad_)
    assert "only Tensors of floating point" in refusal, dtype
for dtype, copied in copies.items():
    assert torch.equal(copied.detach(), s.detach().to(dtype))
    linked = copied.requires_grad
    assert linked == (dtype.is_floating_point or dtype.is_complex), dtype
    if linked:
        part = copied.real if copied.is_complex() else copied
        (grad,) = torch.autograd.grad(part.sum(), s)
        assert torch.equal(grad, torch.ones_like(s)), dtype
with torch.no_grad():
    assert not torch.zeros(3, device=device).copy_(s).requires_grad

# %%
# Filling a parameter: ``torch.no_grad()``, not ``.data``
# -------------------------------------------------------
# **Fill a leaf that requires grad under torch.no_grad(): the version counter
# records that write. Through .data it does not, and a stale graph then
# returns a wrong gradient without an error.**
#
# With grad mode on, the leaf refuses the write.
q, r = (torch.ones(3, device=device, requires_grad=True) for _ in range(2))
new = torch.tensor([0.5, -0.5, 1.5], device=device)
message = error_from(lambda: q.copy_(new))
print(f"RuntimeError: {message}")

# %%

# Checks: the write into the leaf is refused
assert "leaf Variable that requires grad" in message

# %%
# Under :class:`torch.no_grad` the tensor stays a leaf and its version counter
# moves. ``r.data.copy_(new)`` writes the same values and leaves the counter
# alone.
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
# The version counter guards graphs built before the write: backward from
# ``loss_q`` raises, while ``loss_r`` silently returns the gradient at the new
# values.
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
# **With non_blocking=True, a copy between pinned host memory and a GPU may
# still be running when copy_ returns. You must synchronise, on the stream or
# an event, before the CPU reads a device-to-host result.**
#
# The documentation of ``copy_`` says such a copy ``may occur asynchronously
# with respect to the host``. Work queued later on the same
# :func:`current <torch.cuda.current_stream>` stream sees the data; the CPU
# does not wait for it. Here an event marks the end of the copy back.
if device.type == "cuda":
    host = torch.arange(6.0).pin_memory()
    gpu = torch.empty(6, device=device)
    gpu.copy_(host, non_blocking=True)
    back = torch.empty(6, pin_memory=True)
    back.copy_(gpu * 2, non_blocking=True)
    copied = torch.cuda.Event()
    copied.record()  # on the current stream, after the copy back
    copied.synchronize()  # the CPU waits here, before it reads back
    print(f"back on {back.device}, pinned={back.is_pinned()}: {back}")
else:
    print("CPU run: skipped, no GPU. On CUDA this copies to the GPU and back.")

# %%

# Checks: back on the host, pinned, with the doubled values
if device.type == "cuda":
    assert back.device.type == "cpu" and back.is_pinned()
    assert copied.query() and torch.equal(back, host * 2)

# %%
# Use it when, use instead
# ------------------------
# **Use copy_ to fill memory you already hold. For a new tensor with the same
# values, use clone() to stay in the graph, detach().clone() to leave it.**
#
# * ``copy_``: a preallocated buffer (index its rows, ``out[i].copy_(x)``), a
#   pinned staging tensor, a parameter under ``torch.no_grad()``.
# * :meth:`~torch.Tensor.clone`: see :ref:`sphx_glr_gallery_clone.py`.
