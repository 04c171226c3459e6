"""
``Tensor.view()``: new shape, same memory
=========================================

Nothing is copied: the result reads the source's storage through other sizes and
strides, so the call fails when no such strides exist, where
:meth:`~torch.Tensor.reshape` silently copies instead.
"""

# %%
# Setup
# -----
# The script runs on ``TORCH_DEVICE`` when set, else on CUDA when available, else CPU.
# ``storage_index`` says, for each element of a tensor, which element of its storage
# it reads; ``error_of`` runs a call that must raise and prints the error.

# Setup: the device, a test of shared memory, and two small helpers
import itertools
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


def storage_index(t: torch.Tensor) -> torch.Tensor:
    """For each element of ``t``, its position in the storage (from strides, offset)."""
    size = t.untyped_storage().nbytes() // t.element_size()
    return torch.arange(size).as_strided(
        t.shape, t.stride(), t.storage_offset()
    )


def error_of(action) -> str:
    """Run ``action``, which must raise; print the error and return its message."""
    try:
        action()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")
        return str(error)
    raise AssertionError("expected a RuntimeError, but nothing was raised")


# %%
# A view shares the storage
# -------------------------
# A new tensor object with its own shape and strides over the same memory: writes
# through it show up in the source, and ``_base`` names the tensor where its chain of
# views starts.
x = torch.arange(12.0, device=device)
v = x.view(3, 4)
print(f"v shares memory with x: {shares_memory(v, x)}")
print(f"v._base is x: {v._base is x}")
v[1, 0] = -4.0
print(f"v strides {v.stride()}; x after writing -4 into v[1, 0]:\n{x}")

# %%

# Checks: the view is over x's memory, and the write reached x
assert shares_memory(v, x) and v._base is x
assert x[4].item() == -4.0

# %%
# It needs strides that fit
# -------------------------
# ``v.t()`` is another view over ``x`` (``_base`` names ``x``, where the chain starts,
# not ``v``). Read row by row it jumps around the storage by steps of different sizes;
# no single stride walks that order, so ``view(-1)`` fails.
t = v.t()
order = storage_index(t).flatten().tolist()
print(f"t strides {t.stride()}, storage order read row by row:\n{order}")
steps = {b - a for a, b in itertools.pairwise(order)}
print(f"steps between neighbours: {sorted(steps)}")
message = error_of(lambda: t.view(-1))

# %%

# Checks: a view of x, not contiguous, and view(-1) refused
assert t._base is x and not t.is_contiguous() and len(steps) > 1
assert "view size is not compatible" in message

# %%
# :meth:`~torch.Tensor.reshape` never refuses for want of strides: a view when strides
# allow, otherwise a silent copy, so writes into ``t.reshape(-1)`` are lost.
# :meth:`~torch.Tensor.contiguous` returns a contiguous tensor itself, and copies ``t``.
with warnings.catch_warnings():
    warnings.simplefilter("error")  # "silent": a warning would raise here
    flat_view, flat_copy = v.reshape(-1), t.reshape(-1)
print(f"v.reshape(-1) shares memory with x: {shares_memory(flat_view, x)}")
print(f"t.reshape(-1) shares memory with x: {shares_memory(flat_copy, x)}")
flat_copy[0] = 99.0
print(f"x[0] after writing 99 into t.reshape(-1): {x[0].item()}")
print(f"v.contiguous() is v: {v.contiguous() is v}")

# %%

# Checks: reshape views or copies, contiguous() returns or copies
assert shares_memory(flat_view, x)
assert not shares_memory(flat_copy, x) and flat_copy._base is None
assert x[0].item() == 0.0
assert v.contiguous() is v and not shares_memory(t.contiguous(), x)

# %%
# Slicing views, advanced indexing copies
# ---------------------------------------
# Basic slicing (``start:stop:step``) only changes shape, offset and strides: a view.
# Indexing with a list of integers or a boolean mask gathers the elements into new
# memory: a copy, whose writes never reach ``x``.
sliced, gathered, masked = v[1:, ::2], v[[0, 2]], v[v > 5]
print(
    f"v[1:, ::2]: offset {sliced.storage_offset()}, strides {sliced.stride()}"
)
for name, part in {"slice": sliced, "list": gathered, "mask": masked}.items():
    print(f"{name:5} shares memory with x: {shares_memory(part, x)}")
sliced[0, 0], gathered[0, 0] = 40.0, 50.0
print(f"x after writing 40 into the slice, 50 into the list's copy:\n{x}")

# %%

# Checks: the slice is a view of x, the indexed results are copies
assert (sliced.shape, sliced.storage_offset(), sliced.stride()) == (
    (2, 2),
    4,
    (4, 2),
)
assert shares_memory(sliced, x) and sliced._base is x
for copy in (gathered, masked):
    assert not shares_memory(copy, x) and copy._base is None
assert x[4].item() == 40.0 and 50.0 not in x

# %%
# ``expand`` repeats without memory: clone before writing
# -------------------------------------------------------
# :meth:`~torch.Tensor.expand` gives the new dimension, of size 3, a stride of 0: every
# row is the same memory. ``add_`` raises rather than write one location several
# times, but not every in-place method checks: ``fill_`` writes into the shared memory
# and so changes every row at once. Clone first if you need a writable repeated tensor.
e = torch.zeros(4, device=device).expand(3, 4)
print(f"e strides {e.stride()}, storage of {e._base.numel()} floats")
add_message = error_of(lambda: e.add_(1.0))
e.fill_(7.0)
print(f"after e.fill_(7), column 0 reads {e[:, 0].tolist()}")
print(f"e.clone().add_(1):\n{e.clone().add_(1.0)}")

# %%

# Checks: stride 0 over 4 floats; add_ refused, fill_ accepted, clone writable
assert e.stride() == (0, 1) and shares_memory(e, e._base)
assert e.untyped_storage().nbytes() == e._base.numel() * e.element_size()
assert "refers to a single memory location" in add_message
assert e[:, 0].tolist() == [7.0] * 3 and e._base[0].item() == 7.0
eight = torch.full((3, 4), 8.0, device=device)
assert torch.equal(e.clone().add_(1.0), eight)

# %%
# Gradient flows through a view
# -----------------------------
# ``w.view(2, 2)`` of a tensor that requires grad is recorded as ``ViewBackward0``:
# gradient reaches the source, reshaped back. While autograd records, writing in place
# into this view of a leaf is refused, since it would change the leaf behind its back.
w = torch.zeros(4, device=device, requires_grad=True)
wv = w.view(2, 2)
(wv * torch.arange(4.0, device=device).view(2, 2)).sum().backward()
recorded_as = type(wv.grad_fn).__name__
print(f"wv.grad_fn is a {recorded_as}, w.grad={w.grad}")
leaf_message = error_of(lambda: wv.mul_(2.0))
with torch.no_grad():
    wv.mul_(1.0)  # not recorded: accepted

# %%

# Checks: ViewBackward0, the gradient reshaped back, the write refused
assert recorded_as == "ViewBackward0"
assert w.grad.tolist() == [0, 1, 2, 3]
assert "view of a leaf Variable" in leaf_message


# %%
# A picture of it
# ---------------
# Each cell holds the number of the storage element the tensor reads there, computed
# from the live tensors' strides and offsets: ``x`` is the storage itself, the view
# reads the same twelve elements in the same order, in rows of four, and its
# transpose reads them column by column.


# Drawing: x as its storage, then x.view(3, 4) and its transpose as grids
def draw_grid(ax, left, top, name, tensor):
    grid = torch.atleast_2d(storage_index(tensor)).tolist()
    ax.text(left, top + 0.15, name, va="bottom")
    for i, row in enumerate(grid):
        for j, k in enumerate(row):
            fill = plt.cm.viridis(k / (x.numel() - 1))
            fill = [0.55 + 0.45 * c for c in fill[:3]]  # a pastel of it
            ax.add_patch(
                plt.Rectangle(
                    (left + j, top - i - 1), 0.94, 0.94, fc=fill, ec="#333333"
                )
            )
            ax.text(
                left + j + 0.47, top - i - 0.53, k, ha="center", va="center"
            )


plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3.6))
draw_grid(ax, 0, 7.2, f"x: the storage, strides {x.stride()}", x)
draw_grid(ax, 0, 4.4, f"v = x.view(3, 4)\nstrides {v.stride()}", v)
draw_grid(ax, 7.4, 4.4, f"v.t()\nstrides {t.stride()}", t)
ax.set(xlim=(-0.1, 12.1), ylim=(-0.1, 8.1), aspect="equal")
ax.axis("off")
fig.tight_layout(pad=0.2)
plt.show()

# %%

# Checks: the view keeps the storage's order, its transpose goes by columns
assert storage_index(v).flatten().tolist() == list(range(12))
assert storage_index(t).flatten().tolist() == [
    row * 4 + column for column in range(4) for row in range(3)
]

# %%
# Use it when, use instead
# ------------------------
# * Use ``view()`` when you want a new shape **and** a guarantee that nothing is copied:
#   it raises rather than copy, and writes go to the source.
# * Use :meth:`~torch.Tensor.reshape` when you only need the shape and either result
#   will do; never write into its result expecting the source to change.
# * For an independent copy, use :meth:`~torch.Tensor.clone` (in the graph) or
#   ``detach().clone()`` (out of it); to repeat data you will write into, use
#   ``expand(...).clone()``.
