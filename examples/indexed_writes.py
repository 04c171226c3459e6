"""
Indexed writes: ``x[idx] += v`` versus ``index_put_(accumulate=True)``
======================================================================

**Where an index lists a position several times, the accumulating operations
add there once per listing; plain assignment and += through x[idx] do not.**

* The accumulating operations, in place or not, add ``v`` once per listing:
  ``index_put_`` and ``put_`` with ``accumulate=True``, ``index_add_``,
  ``scatter_add_``, and ``scatter_reduce_`` with ``"sum"``.
* ``x[idx] += v``: at a repeated position one listing's value lands (on the
  CPU; documented as undefined).
* ``x[idx].add_(v)`` changes nothing in ``x`` when ``idx`` is a list of
  integers, a mask or an integer tensor of one or more dimensions. A short list
  that holds a slice, ``None``, ``...`` or a tensor is read as a tuple. It gives
  a view when every item is an integer, a slice, ``None``, ``...`` or a 0-d
  integer tensor, else a copy: a bool or a ``uint8`` tensor counts as a mask.
"""

# Setup: the device, a test of shared memory, and the grid of tensors
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


# %%
# An index that repeats positions
# -------------------------------
# **An index tensor may list a position several times; torch.bincount counts
# how often each position is listed.**
#
# Here position 0 is listed three times, 2 once, 3 twice; 1 and 4 not at all.
idx = torch.tensor([0, 0, 0, 2, 3, 3], device=device)
counts = torch.bincount(idx, minlength=5).float()
ones = torch.ones(len(idx), device=device)
print(f"times listed: {counts.tolist()}")

# %%

# Checks: the counts
assert counts.tolist() == [3.0, 0.0, 1.0, 2.0, 0.0]

# %%
# ``x[idx].add_(1)`` writes into a copy
# -------------------------------------
# **Reading x[idx] with a list, a mask or an integer tensor of one or more
# dimensions copies into new memory. An in-place method on the result changes
# that copy; x stays as it was.**
#
# A slice, by contrast, is a view, and the same method writes into ``x``; so
# is ``x[i]`` for a 0-d integer tensor ``i``, as for a Python integer.
x = torch.zeros(5, device=device)
picked = x[idx]
print(f"x[idx] shares memory with x: {shares_memory(picked, x)}")
picked.add_(1.0)
print(f"after picked.add_(1): picked = {picked.tolist()}")
x[idx].add_(1.0)
print(f"after x[idx].add_(1): x = {x.tolist()}")
unchanged = x.clone()
window = x[1:3]
print(f"x[1:3] shares memory with x: {shares_memory(window, x)}")
window.add_(1.0)
print(f"after x[1:3].add_(1): x = {x.tolist()}")

# %%

# Checks: the indexed result is a copy, the slice a view
assert not shares_memory(picked, x) and picked.shape == idx.shape
assert torch.equal(picked, ones)  # the copy changed
assert torch.equal(unchanged, torch.zeros(5, device=device))
assert shares_memory(window, x)
assert x.tolist() == [0.0, 1.0, 1.0, 0.0, 0.0]
# Checks: over every dtype kind, layout but 0-d, and index kind (105 cases)
for case, c in layout_cases(device).items():
    if case[1] == "0-d":  # no dimension to index
        continue
    listed = [0, 0] if len(c) else []
    kinds = {
        "list": listed,
        "tensor": torch.tensor(listed, dtype=torch.long, device=device),
        "mask": torch.ones(len(c), dtype=torch.bool, device=device),
    }
    for kind, index in kinds.items():
        before = c.clone()
        assert not shares_memory(c[index], c), (case, kind)
        c[index].add_(c.new_ones(()))
        assert torch.equal(c, before), (case, kind)
# Checks: a 0-d integer tensor index picks a view, and add_ writes into x
y = torch.zeros(5, device=device)
one = torch.tensor(1, device=device)
assert one.dim() == 0 and shares_memory(y[one], y) and y[one]._base is y
y[one].add_(1.0)
assert y.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]
# a short list holding a slice is read as a tuple, with a warning: a view
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    tuple_read = y[[slice(0, 2)]]
assert any("non-tuple sequence" in str(w.message) for w in caught)
assert shares_memory(tuple_read, y)
tuple_read.add_(1.0)
assert y.tolist() == [1.0, 2.0, 0.0, 0.0, 0.0]
# ... and a copy as soon as one item of the tuple is not a basic index
m = torch.zeros(3, 3, device=device)
lists = {
    "basic": ([slice(None), 1], True),
    "a list inside": ([slice(None), [0, 2]], False),
    "a 1-d tensor inside": ([torch.tensor([0, 2], device=device)], False),
    "a bool inside": ([True, slice(None)], False),  # a mask
    "a 0-d uint8 inside": (
        [torch.tensor(1, dtype=torch.uint8, device=device), slice(None)],
        False,
    ),
    "a 0-d int32 inside": (
        [torch.tensor(1, dtype=torch.int32, device=device), slice(None)],
        True,
    ),
}
for name, (as_list, is_view) in lists.items():
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        read = m[as_list]
    assert shares_memory(read, m) == is_view, name
    before = m.clone()
    read.add_(1.0)
    assert torch.equal(m, before) != is_view, name


# %%
# ``x[idx] += 1``: once per position, on the CPU
# ----------------------------------------------
# **x[idx] += 1 runs as t = x[idx]; t += 1; x[idx] = t: the copy gains 1
# per element, and on the CPU writing it back leaves each listed position 1
# higher, once.**
#
# A ``TorchFunctionMode`` that logs each call shows the three steps. The copy
# holds ``0 + 1`` for each of the three entries of position 0. The assignment
# calls ``index_put_``, whose documentation leaves repeated indices undefined
# without ``accumulate``. So on CUDA only positions listed once or never are
# checked.


# Setup: a mode that logs the name of each PyTorch call
class CallLog(torch.overrides.TorchFunctionMode):
    """Record the name of every PyTorch function called inside the block."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(func.__name__)
        return func(*args, **(kwargs or {}))


# %%
plus_equals = torch.zeros(5, device=device)
with CallLog() as calls:
    plus_equals[idx] += 1.0
print(f"calls: {calls.names}")
print(f"x[idx] += 1: {plus_equals.tolist()}")
by_hand = torch.zeros(5, device=device)
t = by_hand[idx]
t += 1.0
print(f"t = x[idx]; t += 1 gives t = {t.tolist()}")
print(f"t shares memory with x: {shares_memory(t, by_hand)}")
before_write = by_hand.clone()
by_hand[idx] = t
print(f"then x[idx] = t:   {by_hand.tolist()}")

# %%

# Checks: the three calls, the copy, the recorded call, the documentation
assert calls.names == ["__getitem__", "add_", "__setitem__"]
assert torch.equal(t, ones)  # one element per index, each 0 + 1
assert not shares_memory(t, by_hand) and not before_write.any()
recorded = torch.zeros(5, device=device, requires_grad=True) * 1.0
recorded[idx] = ones  # a tensor of values, as the write-back assigns
assert type(recorded.grad_fn).__name__ == "IndexPutBackward0"
doc = " ".join((torch.Tensor.index_put_.__doc__ or "").split())
undefined = "If accumulate is ``False``, the behavior is undefined if indices"
assert f"{undefined} contain duplicate elements." in doc
defined = counts <= 1
assert torch.equal(plus_equals[defined], counts[defined])
assert torch.equal(by_hand[defined], counts[defined])
if device.type == "cpu":
    assert torch.equal(plus_equals, (counts > 0).float())
    assert torch.equal(by_hand, plus_equals)
    for dtype in (torch.float64, torch.int64, torch.complex64):
        numbers = torch.zeros(5, dtype=dtype)
        numbers[idx] += 1
        assert torch.equal(numbers, (counts > 0).to(dtype)), dtype
    # with one value per listing, one listing's value lands at a repeated
    # position (which one is undefined): not the sum, not v once per position
    per_listing = torch.arange(1.0, 7.0)
    z = torch.zeros(5)
    z[idx] += per_listing
    assert z[1].item() == z[4].item() == 0.0 and z[2].item() == 4.0
    assert z[0].item() in (1.0, 2.0, 3.0) and z[3].item() in (5.0, 6.0)
else:
    print("CUDA: the result at repeated positions is undefined: not checked")

# %%
# ``index_put_(accumulate=True)`` and ``index_add_`` add once per occurrence
# --------------------------------------------------------------------------
# **Both add into x itself, once for every entry of the index, on every
# device: each position gains v as many times as it is listed.**
#
# The other accumulating operations count the same way: ``put_`` with
# ``accumulate=True``, ``scatter_add_``, ``scatter_reduce_`` with ``"sum"``,
# and the out-of-place forms such as ``index_put`` and ``index_add``.
accumulated = torch.zeros(5, device=device)
returned_put = accumulated.index_put_((idx,), ones, accumulate=True)
added = torch.zeros(5, device=device)
returned_add = added.index_add_(0, idx, ones)
print(f"index_put_(accumulate=True): {accumulated.tolist()}")
print(f"index_add_(0, idx, ones):    {added.tolist()}")

# %%

# Checks: both write into x itself, once per listing
assert returned_put is accumulated
assert returned_add is added
assert torch.equal(accumulated, counts)
assert torch.equal(added, counts)
for dtype in (torch.float64, torch.int64, torch.complex64):  # the same
    values = torch.ones(len(idx), dtype=dtype, device=device)
    put = torch.zeros(5, dtype=dtype, device=device)
    put.index_put_((idx,), values, accumulate=True)
    add = torch.zeros(5, dtype=dtype, device=device).index_add_(0, idx, values)
    assert torch.equal(put, counts.to(dtype)), dtype
    assert torch.equal(add, counts.to(dtype)), dtype
# Checks: the other accumulating operations, in place and not, count too
zeros = torch.zeros(5, device=device)
accumulating = {
    "index_put": zeros.index_put((idx,), ones, accumulate=True),
    "index_add": zeros.index_add(0, idx, ones),
    "scatter_add_": zeros.clone().scatter_add_(0, idx, ones),
    "scatter_add": zeros.scatter_add(0, idx, ones),
    "put_": zeros.clone().put_(idx, ones, accumulate=True),
    "put": zeros.put(idx, ones, accumulate=True),
    "scatter_reduce_": zeros.clone().scatter_reduce_(0, idx, ones, "sum"),
    "scatter_reduce": zeros.scatter_reduce(0, idx, ones, "sum"),
}
for name, result in accumulating.items():
    assert torch.equal(result, counts), name
assert not zeros.any()  # the out-of-place forms left their input alone

# %%
# Side by side
# ------------
# **After adding 1 at every entry of idx, += leaves each listed position at 1;
# accumulate=True leaves it at the number of times it is listed.**
#
# One square per unit added, read from the tensors above. ``index_add_`` left
# the same values as ``index_put_(accumulate=True)``.

# %%

# Checks: the two accumulating methods agree, as the text above says
assert torch.equal(added, accumulated)

# %%

# Drawing: the value at each position, as a stack of unit squares
# Alt: For each position of x, two stacks of unit squares: x[idx] += 1
#   adds one once where idx repeats the position, accumulate=True adds one
#   for every time idx names it.
results = {  # label: (values, fill, edge)
    "x[idx] += 1": (plus_equals, "#f4cccc", "#990000"),
    "accumulate=True": (accumulated, "#cfe2f3", "#1f4e79"),
}
plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3.5))
for k, (label, (values, fill, edge)) in enumerate(results.items()):
    for p, value in enumerate(values.cpu().tolist()):
        left = p * 2.6 + k * 1.1
        for level in range(round(value)):
            ax.add_patch(
                plt.Rectangle((left, level), 1, 0.94, fc=fill, ec=edge)
            )
        ax.text(
            left + 0.5, value + 0.1, f"{value:g}", ha="center", va="bottom"
        )
    ax.add_patch(plt.Rectangle((k * 6.5, 4.55), 0.8, 0.6, fc=fill, ec=edge))
    ax.text(k * 6.5 + 1, 4.85, label, va="center")
ax.set_xticks(
    [p * 2.6 + 1.05 for p in range(5)], [f"x[{p}]" for p in range(5)]
)
ax.tick_params(length=0)
ax.set_yticks([])
ax.spines[["left", "right", "top"]].set_visible(False)
ax.set(xlim=(-0.2, 12.6), ylim=(0, 5.2))
ax.text(
    12.6,
    3.9,
    f"idx = {idx.tolist()}",
    ha="right",
    va="center",
    family="monospace",
)
fig.tight_layout(pad=0.2)
plt.show()

# %%
# Use it when, use instead
# ------------------------
# **Assign through x[idx] when no position repeats; add with
# index_put_(accumulate=True) or index_add_ when positions may repeat.**
#
# * Use ``x[idx] = v`` or ``x[idx] += v`` to write into chosen positions when
#   no index repeats.
# * Never ``x[idx].add_(v)`` with a list of integers, a mask or an integer tensor
#   of one or more dimensions: it changes a copy.
# * Use ``x.index_put_((idx,), v, accumulate=True)`` or ``x.index_add_(0, idx,
#   v)`` for a scatter-add: histograms, sums per row.
# * The narrative page on indexed writes goes further: chained subscripts,
#   writes into the pieces of ``unbind``, views made under ``no_grad``,
#   inference tensors.
