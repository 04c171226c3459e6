"""
``Tensor.clone()``: new memory, same graph
==========================================

:meth:`torch.Tensor.clone` copies the data into storage of its own, yet stays connected
to autograd: gradient that reaches the clone flows back to the tensor it was cloned from.
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


def storage_address(t: torch.Tensor) -> int:
    """Address of the memory block behind ``t``; views of one block share it."""
    return t.untyped_storage().data_ptr()


# %%
# The clone owns new memory
# -------------------------
# Two tensors share memory exactly when their untyped storages start at the same address.
# The clone's storage starts somewhere else.
x = torch.arange(6.0, device=device).reshape(2, 3)
y = x.clone()
print(
    f"storage of x at {storage_address(x):#x}, storage of y at {storage_address(y):#x}"
)
assert storage_address(y) != storage_address(x)

# %%
# Addresses can mislead, so observe it as well: a write into the clone leaves the source
# untouched.
y[0, 0] = 100.0
print(x, y, sep="\n")
assert x[0, 0].item() == 0.0 and y[0, 0].item() == 100.0

# %%
# Everything else is copied faithfully: shape, dtype, device, and by default
# (``memory_format=torch.preserve_format``) even the strides of a transposed tensor.
# Ask for ``torch.contiguous_format`` to get a row-major copy instead.
xt = x.t()
kept = xt.clone()
packed = xt.clone(memory_format=torch.contiguous_format)
print(
    f"x.t() strides {xt.stride()}, clone {kept.stride()}, contiguous clone {packed.stride()}"
)
assert (kept.shape, kept.dtype, kept.device) == (xt.shape, xt.dtype, xt.device)
assert kept.stride() == xt.stride() and not kept.is_contiguous()
assert packed.is_contiguous() and torch.equal(packed, xt)

# %%
# The clone stays in the graph
# ----------------------------
# Cloning a tensor that requires grad records a ``CloneBackward0`` node. The clone is
# not a leaf, and gradient sent into it lands on the source.
w = torch.ones(3, device=device, requires_grad=True)
c = w.clone()
print(
    f"c.requires_grad={c.requires_grad}, c.is_leaf={c.is_leaf}, c.grad_fn={c.grad_fn}"
)
assert c.requires_grad and not c.is_leaf
assert type(c.grad_fn).__name__ == "CloneBackward0"

# %%
# Gradients from several clones add up on the source: 2 from the first, 5 from the
# second, 7 per element on ``w``. The clone keeps no ``.grad`` of its own unless asked
# with :meth:`~torch.Tensor.retain_grad`.
import warnings

c1, c2 = w.clone(), w.clone()
c2.retain_grad()
(2 * c1 + 5 * c2).sum().backward()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # reading a non-leaf's .grad warns
    c1_grad, c2_grad = (clone.grad for clone in (c1, c2))
print(f"w.grad = {w.grad}, c1.grad = {c1_grad}, c2.grad = {c2_grad}")
assert torch.equal(w.grad, torch.full_like(w, 7.0))
assert c1_grad is None and torch.equal(c2_grad, torch.full_like(w, 5.0))


# %%
# A picture of it
# ---------------
# Each tensor is drawn with the storage it points into, read from the live tensors above.
def draw_storage(ax, row, name, t):
    values = t.detach().cpu().flatten().tolist()
    for i, v in enumerate(values):
        ax.add_patch(plt.Rectangle((i, row), 0.95, 0.8, fc="#cfe2f3", ec="#1f4e79"))
        ax.text(i + 0.47, row + 0.4, f"{v:g}", ha="center", va="center")
    ax.text(
        -0.3,
        row + 0.4,
        f"{name}\nstorage {storage_address(t) % 0x100000:#07x}",
        ha="right",
        va="center",
    )


fig, ax = plt.subplots(figsize=(6, 2.4))
draw_storage(ax, 1.2, "x", x)
draw_storage(ax, 0, "y = x.clone()", y)
ax.set(
    xlim=(-3.2, 6.2), ylim=(-0.2, 2.2), title="clone(): two storages, edits stay apart"
)
ax.axis("off")
plt.show()

# %%
# Use it when, use instead
# ------------------------
# * Use ``clone()`` when you need a private copy of the data **and** want gradient to
#   keep flowing to the source, e.g. to save an intermediate before an in-place op.
# * For an independent copy outside the graph, use ``x.detach().clone()``: detaching
#   first keeps the copy out of autograd altogether.
# * To fill memory you already have, use :meth:`~torch.Tensor.copy_`.
