"""
Indexed writes: ``x[idx] += v`` versus ``index_put_(accumulate=True)``
======================================================================

Where the index lists a position several times, ``accumulate=True`` (and
:meth:`~torch.Tensor.index_add_`) adds ``v`` there once per listing; ``+=``
with a number ``v`` adds it once on the CPU, a result the documentation leaves
undefined, and ``x[idx].add_(v)`` leaves ``x`` unchanged.
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
# An index that repeats positions
# -------------------------------
# Position 0 is listed three times, 2 once, 3 twice; 1 and 4 not at all.
# :func:`torch.bincount` counts the occurrences.
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
# Reading through a tensor of indices that has a dimension, like ``idx``, copies:
# ``x[idx]`` has memory of its own, with one element per index. An in-place method on
# it changes that copy, and ``x`` stays as it was. A slice, by contrast, is a view, and
# the same method writes into ``x``.
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

# %%
# Side by side
# ------------
# Each position of ``x`` after adding 1 at every entry of ``idx``, read from the
# tensors above: one square per unit added. ``index_add_`` left the same values
# as ``index_put_(accumulate=True)``.

# %%

# Checks: the two accumulating methods agree, as the text above says
assert torch.equal(added, accumulated)

# %%

# Drawing: the value at each position, as a stack of unit squares
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
ax.text(12.6, 3.9, f"idx = {idx.tolist()}", ha="right", va="center")
fig.tight_layout(pad=0.2)
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
