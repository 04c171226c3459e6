"""
``Tensor.clone()``: new memory, same graph
==========================================

The data is copied into storage of its own, yet, while autograd records, the
result stays connected to its source: gradient that reaches it flows back to the
tensor it was cloned from.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU.

# Setup: the device, and a test of whether two tensors share memory
import os

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


# %%
# The clone owns new memory
# -------------------------
# Two tensors share memory when the bytes their storages cover overlap, which is what
# ``shares_memory`` above checks. The clone's storage has no byte in common with the
# storage of ``x``.
x = torch.arange(6.0, device=device).reshape(2, 3)
y = x.clone()
print(f"y shares memory with x: {shares_memory(y, x)}")

# %%

# Checks: the clone's storage is its own
assert not shares_memory(y, x)

# %%
# Observe it as well: a write into the clone leaves the source untouched.
y[0, 0] = 100.0
print(x, y, sep="\n")

# %%

# Checks: the write stayed in the clone
assert x[0, 0].item() == 0.0 and y[0, 0].item() == 100.0

# %%
# Shape, dtype and device are copied. By default
# (``memory_format=torch.preserve_format``) the strides are kept as well when the tensor
# covers its memory with no gaps and no repeats, as a transposed tensor does. A tensor
# with gaps (``x[:, ::2]``) or repeats (``expand``) gets packed strides instead. Ask
# for ``torch.contiguous_format`` to get a row-major copy in every case.
layouts = {
    "x.t()": x.t(),
    "x[:, ::2]": x[:, ::2],
    "x[:1].expand(4, 3)": x[:1].expand(4, 3),
}
clones = {}
for name, source in layouts.items():
    kept = source.clone()
    packed = source.clone(memory_format=torch.contiguous_format)
    clones[name] = kept, packed
    print(f"{name:18} strides {source.stride()}, clone {kept.stride()}")
    print(f"{'':18} contiguous clone {packed.stride()}")

# %%

# Checks: what a clone keeps of its source
for name, source in layouts.items():
    kept, packed = clones[name]
    assert (kept.dtype, kept.device) == (source.dtype, source.device)
    assert torch.equal(kept, source) and torch.equal(packed, source)
    nbytes = kept.untyped_storage().nbytes()
    assert nbytes == kept.numel() * kept.element_size()
    assert packed.is_contiguous()
    assert (kept.stride() == source.stride()) == (name == "x.t()"), name

# %%
# The clone stays in the graph
# ----------------------------
# While grad mode is on (not under :class:`torch.no_grad`, :class:`torch.inference_mode`
# or ``torch.set_grad_enabled(False)``), cloning a tensor that requires grad records a
# ``CloneBackward0`` node. The clone is not a leaf, and gradient sent into it lands on
# the source. With grad mode off, the clone is a plain leaf that does not require grad.
w = torch.ones(3, device=device, requires_grad=True)
c = w.clone()
print(f"c.requires_grad={c.requires_grad}, c.is_leaf={c.is_leaf}")
print(f"c.grad_fn is a {type(c.grad_fn).__name__}")
with torch.no_grad():
    unrecorded = w.clone()
print(f"under no_grad: requires_grad={unrecorded.requires_grad}")

# %%

# Checks: recorded with grad mode on, a plain leaf with it off
assert c.requires_grad and not c.is_leaf
assert type(c.grad_fn).__name__ == "CloneBackward0"
for grad_off in (
    torch.no_grad(),
    torch.inference_mode(),
    torch.set_grad_enabled(False),
):
    with grad_off:
        unrecorded = w.clone()
    assert unrecorded.is_leaf and not unrecorded.requires_grad

# %%
# Gradients from several clones add up on the source: 2 from the first, 5 from the
# second, 7 per element on ``w``. The clone keeps no ``.grad`` of its own unless asked
# with :meth:`~torch.Tensor.retain_grad`.
import warnings

c1, c2 = w.clone(), w.clone()
c2.retain_grad()
(2 * c1 + 5 * c2).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")  # reading c1.grad warns: not a leaf
    c1_grad = c1.grad
    c2_grad = c2.grad
print(f"w.grad = {w.grad}")
print(f"c1.grad = {c1_grad}, c2.grad = {c2_grad}")

# %%

# Checks: the gradients, and the warning for reading c1.grad
assert len(caught) == 1 and "retain_grad" in str(caught[0].message)
assert torch.equal(w.grad, torch.full_like(w, 7.0))
assert c1_grad is None and torch.equal(c2_grad, torch.full_like(w, 5.0))


# %%
# A picture of it
# ---------------
# Each tensor is drawn with the storage it points into, read from the live tensors
# above: two storages, so the write into ``y`` never reaches ``x``.


# Drawing: each tensor as the row of its storage's elements
def draw_storage(ax, top, name, t):
    values = t.detach().cpu().flatten().tolist()
    nbytes = t.untyped_storage().nbytes()
    ax.text(0, top + 0.15, f"{name}: {nbytes} bytes of storage", va="bottom")
    for i, v in enumerate(values):
        ax.add_patch(
            plt.Rectangle(
                (i, top - 0.9), 0.92, 0.9, fc="#cfe2f3", ec="#1f4e79"
            )
        )
        ax.text(i + 0.46, top - 0.45, f"{v:g}", ha="center", va="center")


plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3.2))
draw_storage(ax, 2.9, "x", x)
draw_storage(ax, 1.0, "y = x.clone()", y)
ax.set(xlim=(-0.1, 6), ylim=(-0.1, 3.6))
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
