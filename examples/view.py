"""
``Tensor.view()``: new shape, same memory
=========================================

:meth:`torch.Tensor.view` never copies: it reads the same storage with a new shape and
strides, so it fails when no such strides exist, where :meth:`~torch.Tensor.reshape`
silently copies instead.
"""

# %%
# Setup
# -----
# The script runs on ``TORCH_DEVICE`` when set, else on CUDA when available, else CPU.
import itertools
import os
import warnings

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


def storage_index(t: torch.Tensor) -> torch.Tensor:
    """For each element of ``t``, its position in the storage (from strides, offset)."""
    size = t.untyped_storage().nbytes() // t.element_size()
    return torch.arange(size).as_strided(t.shape, t.stride(), t.storage_offset())


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
assert shares_memory(v, x) and v._base is x
v[1, 0] = -4.0
print(f"v strides {v.stride()}; x after writing -4 into v[1, 0]:\n{x}")
assert x[4].item() == -4.0

# %%
# It needs strides that fit
# -------------------------
# ``v.t()`` is another view over ``x`` (``_base`` names ``x``, where the chain starts,
# not ``v``). Read row by row it jumps around the storage by steps of different sizes;
# no single stride walks that order, so ``view(-1)`` fails.
t = v.t()
order = storage_index(t).flatten().tolist()
print(f"t strides {t.stride()}, storage order read row by row: {order}")
steps = {b - a for a, b in itertools.pairwise(order)}
assert t._base is x and not t.is_contiguous() and len(steps) > 1
assert "view size is not compatible" in error_of(lambda: t.view(-1))

# %%
# :meth:`~torch.Tensor.reshape` never refuses for want of strides: a view when strides
# allow, otherwise a silent copy, so writes into ``t.reshape(-1)`` are lost.
# :meth:`~torch.Tensor.contiguous` returns a contiguous tensor itself, and copies ``t``.
with warnings.catch_warnings():
    warnings.simplefilter("error")  # "silent": a warning would raise here
    flat_view, flat_copy = v.reshape(-1), t.reshape(-1)
assert shares_memory(flat_view, x)
assert not shares_memory(flat_copy, x) and flat_copy._base is None
flat_copy[0] = 99.0
print(f"x[0] after writing 99 into t.reshape(-1): {x[0].item()}")
assert x[0].item() == 0.0
assert v.contiguous() is v and not shares_memory(t.contiguous(), x)

# %%
# Slicing views, advanced indexing copies
# ---------------------------------------
# Basic slicing (``start:stop:step``) only changes shape, offset and strides: a view.
# Indexing with a list of integers or a boolean mask gathers the elements into new
# memory: a copy, whose writes never reach ``x``.
sliced, gathered, masked = v[1:, ::2], v[[0, 2]], v[v > 5]
assert (sliced.shape, sliced.storage_offset(), sliced.stride()) == ((2, 2), 4, (4, 2))
assert shares_memory(sliced, x) and sliced._base is x
for copy in (gathered, masked):
    assert not shares_memory(copy, x) and copy._base is None
sliced[0, 0], gathered[0, 0] = 40.0, 50.0
print(f"x after writing 40 into the slice and 50 into the gathered copy:\n{x}")
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
assert e.stride() == (0, 1) and shares_memory(e, e._base)
assert e.untyped_storage().nbytes() == e._base.numel() * e.element_size()
assert "refers to a single memory location" in error_of(lambda: e.add_(1.0))
e.fill_(7.0)
print(f"after e.fill_(7), column 0 reads {e[:, 0].tolist()}")
assert e[:, 0].tolist() == [7.0] * 3 and e._base[0].item() == 7.0
assert torch.equal(e.clone().add_(1.0), torch.full((3, 4), 8.0, device=device))

# %%
# Gradient flows through a view
# -----------------------------
# ``w.view(2, 2)`` of a tensor that requires grad is recorded as ``ViewBackward0``:
# gradient reaches the source, reshaped back. While autograd records, writing in place
# into this view of a leaf is refused, since it would change the leaf behind its back.
w = torch.zeros(4, device=device, requires_grad=True)
wv = w.view(2, 2)
(wv * torch.arange(4.0, device=device).view(2, 2)).sum().backward()
print(f"wv.grad_fn is a {type(wv.grad_fn).__name__}, w.grad={w.grad}")
assert type(wv.grad_fn).__name__ == "ViewBackward0" and w.grad.tolist() == [0, 1, 2, 3]
assert "view of a leaf Variable" in error_of(lambda: wv.mul_(2.0))
with torch.no_grad():
    wv.mul_(1.0)  # not recorded: accepted


# %%
# A picture of it
# ---------------
# Each cell shows which storage element the tensor reads there, computed from the live
# tensors' strides and offsets; equal colours are the same memory.
panels = {"x.view(3, 4)": v, "x.view(3, 4).t()": t, "x.view(3, 4)[1:, ::2]": sliced}
mosaic = [["x"] * 3, list(panels)]
fig, axes = plt.subplot_mosaic(mosaic, figsize=(8, 4), height_ratios=[1, 4])
for name, tensor in {"x": x, **panels}.items():
    ax, grid = axes[name], torch.atleast_2d(storage_index(tensor))
    ax.imshow(grid.numpy(), cmap="viridis", vmin=0, vmax=x.numel() - 1)
    for i, indices in enumerate(grid.tolist()):
        for j, k in enumerate(indices):
            ax.text(j, i, k, ha="center", va="center", color="white")
    ax.set(title=f"{name}\nstrides {tensor.stride()}", xticks=[], yticks=[])
fig.suptitle("Views read one storage: each number is a storage index")
fig.tight_layout()
plt.show()

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
