"""
``Tensor.clone()``: new memory, same graph
==========================================

**clone() copies the values into new memory of the clone's own. While autograd
records, the clone stays in the graph: gradient sent into it reaches the
source.**
"""

# Setup: the device (TORCH_DEVICE, else CUDA if present, else the CPU), the
# test of shared memory, and the case grid
import contextlib
import os
import warnings
from collections.abc import Callable
from itertools import product

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


# %%
# The clone owns new memory
# -------------------------
# **A clone never shares memory with its source and holds the same values, in
# the same dtype and on the same device, whatever the dtype and layout.**
#
# A write into the clone leaves the source untouched.
x = torch.arange(6.0, device=device).reshape(2, 3)
y = x.clone()
y[0, 0] = 100.0
print(f"y shares memory with x: {shares_memory(y, x)}")
print(x, y, sep="\n")

# %%

# Checks: new memory, values kept, a write stays in the clone; over every
# dtype kind (conj and neg bits resolved into plain values) and layout
assert not shares_memory(y, x)
assert x[0, 0].item() == 0.0 and y[0, 0].item() == 100.0
grid = layout_cases(device)
for (kind, layout), source in grid.items():
    copy, before = source.clone(), source.tolist()
    assert (copy.dtype, copy.device) == (source.dtype, source.device)
    assert torch.equal(copy, source) and not shares_memory(copy, source)
    assert not (copy.is_conj() or copy.is_neg()), (kind, layout)
    if copy.dtype == torch.bool:
        copy.logical_not_()
    else:
        copy.zero_()  # every source value is non-zero
    assert source.tolist() == before, (kind, layout)
    assert copy.numel() == 0 or copy.tolist() != before, (kind, layout)
print(f"checked over {len(grid)} dtype kinds x layouts")

# %%
# **The clone's elements fill a block of memory with no gaps and no repeats.
# A source whose elements already do keeps its strides exactly.**
#
# So a transposed source gives a transposed clone, while one with gaps or
# repeats gets packed strides. ``memory_format=torch.contiguous_format`` asks
# for row-major strides in every case.
for name in ("transposed", "with gaps", "expanded"):
    source = grid["float32", name]
    print(
        f"{name:10} strides {source.stride()}, clone {source.clone().stride()}"
    )

# %%


# Checks: the strides rule, over the whole grid
def fills_a_block(t):
    """Whether t's elements sit at numel distinct, consecutive offsets."""
    offsets = {
        sum(i * s for i, s in zip(at, t.stride(), strict=True))
        for at in product(*(range(n) for n in t.shape))
    }
    return t.numel() == 0 or (
        len(offsets) == t.numel() == max(offsets) - min(offsets) + 1
    )


for (kind, layout), source in grid.items():
    kept = source.clone()
    packed = source.clone(memory_format=torch.contiguous_format)
    nbytes = kept.untyped_storage().nbytes()
    assert nbytes == kept.numel() * kept.element_size() and fills_a_block(kept)
    same = kept.stride() == source.stride()
    assert same == fills_a_block(source), (kind, layout)
    assert packed.is_contiguous() and torch.equal(packed, source)

# %%
# The clone stays in the graph
# ----------------------------
# **With grad mode on, cloning a tensor that requires grad records
# CloneBackward0, and gradient sent into the clone reaches the source. With
# grad mode off, the clone is a leaf that does not require grad.**
w = torch.ones(3, device=device, requires_grad=True)
c = w.clone()
print(f"c.requires_grad={c.requires_grad}, c.is_leaf={c.is_leaf}")
print(f"c.grad_fn is a {type(c.grad_fn).__name__}")
with torch.no_grad():
    unrecorded = w.clone()
print(f"under no_grad: requires_grad={unrecorded.requires_grad}")

# %%

# Checks: over every autograd state of the source and every grad mode
assert type(c.grad_fn).__name__ == "CloneBackward0" and not c.is_leaf
for mode, enter in grad_modes().items():
    for state, source in state_cases(
        lambda: torch.ones(3, device=device)
    ).items():
        with enter():
            copy = source.clone()
        recorded = source.requires_grad and mode == "grad mode"
        assert copy.requires_grad == recorded, (mode, state)
        assert copy.is_leaf != recorded and not shares_memory(copy, source)
        if recorded:
            assert type(copy.grad_fn).__name__ == "CloneBackward0"
            (grad,) = torch.autograd.grad((3 * copy).sum(), source)
            assert torch.equal(grad, torch.full_like(source, 3.0))
with torch.set_grad_enabled(False):
    assert not w.clone().requires_grad

# %%
# Gradients from several clones add up on the source: 2 from the first, 5 from
# the second. The clone keeps no ``.grad`` of its own unless asked with
# :meth:`~torch.Tensor.retain_grad`.
c1, c2 = w.clone(), w.clone()
c2.retain_grad()
(2 * c1 + 5 * c2).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")  # reading c1.grad warns: not a leaf
    c1_grad, c2_grad = c1.grad, c2.grad
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
# **Two tensors, two storages: the write into y never reaches x.**
#
# Each tensor is drawn with the storage it points into, read from the live
# tensors above.


# Drawing: each tensor as the row of its storage's elements
# Alt: Two rows of boxes with the same values: x above, y = x.clone() below,
#   each labelled with the bytes of its own storage.
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
# **Use clone() for a private copy that gradient still flows through. For a
# copy outside the graph, use x.detach().clone(); to fill memory you have, use
# copy_.**
#
# * ``clone()``: e.g. to save an intermediate before an in-place op.
# * ``x.detach().clone()``: detaching first keeps autograd out altogether
#   (:ref:`sphx_glr_gallery_detach.py`).
# * :meth:`~torch.Tensor.copy_`: see :ref:`sphx_glr_gallery_copy_.py`.
