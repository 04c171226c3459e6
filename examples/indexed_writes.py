"""
Indexed writes: ``x[idx] += v`` versus ``index_put_(accumulate=True)``
======================================================================

With an index that repeats a position, :meth:`torch.Tensor.index_put_` with
``accumulate=True`` and :meth:`torch.Tensor.index_add_` add ``v`` there once per
occurrence, while ``x[idx] += v``, with ``v`` a number, adds it once on the CPU, and
the documentation leaves that result undefined; ``x[idx].add_(v)`` does not change
``x`` at all.
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


# %%
# An index that repeats positions
# -------------------------------
# Position 0 is listed three times, 2 once, 3 twice; 1 and 4 not at all.
# :func:`torch.bincount` counts the occurrences.
idx = torch.tensor([0, 0, 0, 2, 3, 3], device=device)
counts = torch.bincount(idx, minlength=5).float()
ones = torch.ones(len(idx), device=device)
print(f"times listed: {counts.tolist()}")
assert counts.tolist() == [3.0, 0.0, 1.0, 2.0, 0.0]

# %%
# ``x[idx].add_(1)`` writes into a copy
# -------------------------------------
# Reading through a tensor of indices that has a dimension, like ``idx``, copies:
# ``x[idx]`` has memory of its own, with one element per index. An in-place method on
# it changes that copy, and ``x`` stays as it was. A slice, by contrast, is a view, and
# the same method writes into ``x``.
x = torch.zeros(5, device=device)
picked = x[idx]
assert not shares_memory(picked, x) and picked.shape == idx.shape
picked.add_(1.0)
assert torch.equal(picked, ones)  # the copy changed
x[idx].add_(1.0)
print(f"after x[idx].add_(1): x = {x.tolist()}")
assert torch.equal(x, torch.zeros(5, device=device))
window = x[1:3]
assert shares_memory(window, x)
window.add_(1.0)
assert x.tolist() == [0.0, 1.0, 1.0, 0.0, 0.0]


# %%
# ``x[idx] += 1``: once per position, on the CPU
# ----------------------------------------------
# Python runs ``x[idx] += 1`` as ``t = x[idx]``, ``t += 1``, ``x[idx] = t``, which a
# ``torch.overrides.TorchFunctionMode`` that logs each call shows: the addition
# happens in the copy, one element per index, and the assignment writes it back. The
# copy holds ``0 + 1`` for each of the three entries of position 0. On the CPU every
# listed position ends at 1. The documentation of ``index_put_``, which the assignment
# calls, leaves the result undefined for repeated indices without ``accumulate``, so
# on CUDA only the positions listed once or never are checked.
class CallLog(torch.overrides.TorchFunctionMode):
    """Record the name of every PyTorch function called inside the block."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(func.__name__)
        return func(*args, **(kwargs or {}))


plus_equals = torch.zeros(5, device=device)
with CallLog() as calls:
    plus_equals[idx] += 1.0
assert calls.names == ["__getitem__", "add_", "__setitem__"]
print(f"x[idx] += 1:                 {plus_equals.tolist()}")
by_hand = torch.zeros(5, device=device)
t = by_hand[idx]
t += 1.0
assert torch.equal(t, ones)  # one element per index, each 0 + 1
assert not shares_memory(t, by_hand) and not by_hand.any()  # not written yet
by_hand[idx] = t
recorded = torch.zeros(5, device=device, requires_grad=True) * 1.0
recorded[idx] = 1.0  # autograd names the call it records
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
else:
    print("CUDA: the result at repeated positions is undefined: not checked")

# %%
# ``index_put_(accumulate=True)`` and ``index_add_`` add once per occurrence
# --------------------------------------------------------------------------
# Both add into ``x`` itself, once for every entry of the index, on every device:
# each position ends at the number of times it was listed.
accumulated = torch.zeros(5, device=device)
assert accumulated.index_put_((idx,), ones, accumulate=True) is accumulated
added = torch.zeros(5, device=device)
assert added.index_add_(0, idx, ones) is added
print(f"index_put_(accumulate=True): {accumulated.tolist()}")
print(f"index_add_(0, idx, ones):    {added.tolist()}")
assert torch.equal(accumulated, counts)
assert torch.equal(added, counts)

# %%
# Side by side
# ------------
# Each group of bars is one position of ``x``: how often the index lists it, and what
# each method left there, read from the tensors above.
results = {  # name: (values, colour)
    "times listed in idx": (counts, "#bbbbbb"),
    "x[idx] += 1": (plus_equals, "#d62728"),
    "index_put_(..., accumulate=True)": (accumulated, "#1f77b4"),
    "index_add_(0, idx, ones)": (added, "#2ca02c"),
}
fig, ax = plt.subplots(figsize=(9, 5.2))
width = 0.2
for k, (name, (values, colour)) in enumerate(results.items()):
    positions = [p + (k - 1.5) * width for p in range(5)]
    heights = values.cpu().tolist()
    ax.bar(positions, heights, width, label=name, color=colour)
    for p, h in zip(positions, heights, strict=True):
        ax.text(p, h + 0.05, f"{h:g}", ha="center", va="bottom", fontsize=12)
ax.set_xticks(range(5), [f"x[{p}]" for p in range(5)], fontsize=14)
ax.set_yticks(range(4))
ax.tick_params(axis="y", labelsize=12)
ax.set_ylim(0, 4)
ax.set_ylabel("times listed, or value after adding", fontsize=13)
ax.set_title(f"Adding 1 at idx = {idx.tolist()}", fontsize=15)
ax.legend(fontsize=12, loc="upper right")
fig.tight_layout()
plt.show()

# %%
# Use it when, use instead
# ------------------------
# * Use ``x[idx] = v`` or ``x[idx] += v`` to write into chosen positions when no index
#   repeats; never ``x[idx].add_(v)`` with a list of indices, a mask or a tensor of
#   indices with at least one dimension, which changes a copy.
# * Use ``x.index_put_((idx,), v, accumulate=True)`` or ``x.index_add_(0, idx, v)``
#   for a scatter-add, where positions may repeat: histograms, sums per row.
# * The narrative page on indexed writes goes further: chained subscripts, writes into
#   the pieces of ``unbind``, views made under ``no_grad``, inference tensors.
