"""
``Tensor.view()``: new shape, same memory
=========================================

**view() never copies: its result reads the source's storage through other
sizes and strides. Where no such strides exist it raises, where reshape()
silently copies.**
"""

# Setup: the device, a memory test, the grid of tensors, two small helpers
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
# **A view is a new tensor object with its own shape and strides over the
# source's memory, for every dtype: writes through it show up in the source.**
#
# ``_base`` names the tensor where its chain of views starts.
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
for case, c in layout_cases(device).items():  # every dtype kind and layout
    same = c.view(c.shape)
    assert shares_memory(same, c), case
    if c.numel():  # write the first element through the view
        mark = True if c.dtype == torch.bool else 0
        same[(0,) * same.dim()] = mark
        assert c[(0,) * c.dim()].item() == mark, case

# %%
# It needs strides that fit
# -------------------------
# **view() works exactly when strides over the existing layout can walk the
# new shape through the elements in their order; otherwise it raises. The
# 2-by-3 transposed, gapped and expanded tensors below are refused.**
#
# Read row by row, ``v.t()`` jumps around the storage by steps of different
# sizes; no single stride walks that order, so ``view(-1)`` fails. The layout's
# name does not decide: ``torch.zeros(1, 3).t()``, ``torch.arange(6.0)[::2]``
# and ``torch.zeros(1).expand(3)`` each read their storage in equal steps, so
# each flattens to a view.
#
# .. list-table:: ``c.view(-1)`` for the 2-by-3 cases, over every dtype kind
#    :header-rows: 1
#
#    * - layout of ``c``
#      - outcome
#    * - contiguous, 0-d, empty
#      - a view
#    * - transposed, with gaps, expanded
#      - ``RuntimeError``
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
table = {"contiguous": "view", "0-d": "view", "empty": "view"}
table |= dict.fromkeys(["transposed", "with gaps", "expanded"], "RuntimeError")
for (kind, layout), c in layout_cases(device).items():  # 42 cases
    try:
        outcome = "view" if shares_memory(c.view(-1), c) else "copy"
    except RuntimeError as error:
        refusal, outcome = str(error), "RuntimeError"
        assert "view size is not compatible" in refusal, (kind, layout)
    assert outcome == table[layout], (kind, layout)
    flat = c.reshape(-1)  # never refuses: a view exactly where view() works
    assert shares_memory(flat, c) == (table[layout] == "view"), (kind, layout)
    assert torch.equal(flat, c.flatten())


# Checks: the mechanism, not the layout's name: view(-1) works exactly when
# the storage positions, read in order, go in equal steps; the counter-examples
# are transposed, gapped or expanded, yet flatten to views that take writes
def equal_steps(c: torch.Tensor) -> bool:
    order = storage_index(c).flatten().tolist()
    return len({b - a for a, b in itertools.pairwise(order)}) <= 1


counter_examples = {
    "transposed 1 by 3": torch.zeros(1, 3, device=device).t(),
    "gapped 1-D": torch.arange(6.0, device=device)[::2],
    "gapped 1 by 6": torch.arange(6.0, device=device).view(1, 6)[:, ::2],
    "expanded 1-D": torch.zeros(1, device=device).expand(3),
}
assert counter_examples["transposed 1 by 3"].stride() == (1, 3)
for name, c in counter_examples.items():
    assert equal_steps(c), name
    flat = c.view(-1)
    assert shares_memory(flat, c) and flat._base is c._base, name
    flat[-1] = 50.0
    assert c.flatten()[-1].item() == 50.0, name
shapes = [(2, 3), (3, 1), (1, 3), (2, 1, 3), (0, 3), ()]
strides = [(3, 1), (1, 3), (1, 2), (0, 1), (2, 0), (0, 0), (6, 2), (1, 0)]
strides += [(3, 3, 1), (1, 6, 2), (0, 5, 1), ()]
for shape in shapes:  # every stride pattern that fits the shape's rank
    for stride in strides:
        if len(stride) != len(shape):
            continue
        c = torch.zeros(24, device=device).as_strided(shape, stride)
        try:
            c.view(-1)
        except RuntimeError:
            viewed = False
        else:
            viewed = True
        assert viewed == equal_steps(c), (shape, stride)
for case, c in layout_cases(device).items():
    assert (table[case[1]] == "view") == equal_steps(c), case

# %%
# :meth:`~torch.Tensor.reshape` never refuses for want of strides: a view when
# strides allow, otherwise a silent copy, so writes into ``t.reshape(-1)`` are
# lost. :meth:`~torch.Tensor.contiguous` returns a contiguous tensor itself, and
# copies ``t``.
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
# **Slicing with start:stop:step changes only shape, offset and strides: a
# view. Indexing with a list of integers or a boolean mask gathers the elements
# into new memory: a copy.**
#
# Writes into the copy never reach ``x``.
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
# **expand() repeats data with a stride of 0: every row is the same memory.
# Clone it before writing: add_ refuses, and fill_ changes every row at once.**
#
# ``add_`` raises rather than write one location several times; ``fill_`` does
# not check, and writes into the shared memory.
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
# **On a tensor that requires grad, view() to a new shape is recorded as
# ViewBackward0: gradient reaches the source, reshaped back. view(dtype) is
# not: like detach(), it gives an alias outside the graph.**
#
# While autograd records, writing in place into the shape view of a leaf is
# refused, since it would change the leaf behind its back. A dtype view, even
# to the leaf's own dtype, does not require grad, and a write through it into
# the leaf is accepted.
w = torch.zeros(4, device=device, requires_grad=True)
wv = w.view(2, 2)
(wv * torch.arange(4.0, device=device).view(2, 2)).sum().backward()
recorded_as = type(wv.grad_fn).__name__
print(f"wv.grad_fn is a {recorded_as}, w.grad={w.grad}")
leaf_message = error_of(lambda: wv.mul_(2.0))
with torch.no_grad():
    wv.mul_(1.0)  # not recorded: accepted
same_dtype = w.view(torch.float32)  # a dtype view, to w's own dtype
print(f"requires_grad={same_dtype.requires_grad}, {same_dtype.grad_fn=}")
same_dtype.add_(1.0)  # in grad mode, into the leaf's memory: accepted
print(f"w after same_dtype.add_(1): {w}")

# %%

# Checks: ViewBackward0, the gradient reshaped back, the write refused
assert recorded_as == "ViewBackward0"
assert w.grad.tolist() == [0, 1, 2, 3]
assert "view of a leaf Variable" in leaf_message
# Checks: a dtype view, to the same dtype or another of the same size, is not
# recorded and is an alias, as detach() is; the write reached the leaf
assert torch.is_grad_enabled() and w.is_leaf and w.requires_grad
assert w.tolist() == [1.0] * 4 and shares_memory(same_dtype, w)
for alias in (same_dtype, w.view(torch.int32), w.detach()):
    assert not alias.requires_grad and alias.grad_fn is None
    assert shares_memory(alias, w) and alias._version == w._version
as_bits = w.view(torch.int32)
as_bits.zero_()  # accepted too: every float of w is now 0.0
assert w.tolist() == [0.0] * 4 and w.requires_grad


# %%
# A picture of it
# ---------------
# **The view reads the storage's elements in their order, in rows of four; its
# transpose reads them column by column.**
#
# Each cell holds the number of the storage element the tensor reads there,
# computed from the live tensors' strides and offsets.


# Drawing: x as its storage, then x.view(3, 4) and its transpose as grids
# Alt: Cells numbered by their storage position: x as one row, x.view(3, 4) as
#   a grid in the same order, and its transpose as a grid that reads the
#   storage by columns, each with its strides.
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
# **Use view() when you want a new shape and a guarantee that nothing is
# copied; use reshape() when either result will do.**
#
# * ``view()`` raises rather than copy, and writes go to the source.
# * Never write into the result of :meth:`~torch.Tensor.reshape` expecting the
#   source to change.
# * For an independent copy, use :meth:`~torch.Tensor.clone` (in the graph) or
#   ``detach().clone()`` (out of it); to repeat data you will write into, use
#   ``expand(...).clone()``.
