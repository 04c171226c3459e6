"""
``torch.func.vmap`` and in-place writes
=======================================

**Under vmap, a tensor made with torch.zeros(shape) has one slot for the whole
batch, so writing a batched value into it is refused; writes into the inputs
reach your own tensor.**
"""

# Setup: the device (TORCH_DEVICE, else CUDA if present, else the CPU), the
# test of shared memory, and the case grid
import os

import matplotlib.pyplot as plt
import torch
from torch.func import vmap

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
# A write into an unbatched tensor is refused
# -------------------------------------------
# **A tensor made inside the function by torch.zeros(shape) is not batched:
# vmap refuses to write a batched value into it, one per sample even if all
# are equal, whatever its dtype or layout.**
#
# The function below is written for one sample of three values. Under vmap,
# ``sample[0]`` holds one value per sample, and ``out`` has room for one.
def first_entry(sample):
    out = torch.zeros(sample.shape, device=device)
    out[0] = sample[0]
    return out


batch = torch.arange(12.0, device=device).view(4, 3)
try:
    vmap(first_entry)(batch)
except RuntimeError as error:
    refusal = error
print(str(refusal).split(". ")[0])

# %%

# Checks: the message; copy_ into any unbatched tensor refused, target kept
fragment = "vmap: inplace arithmetic(self, *extra_args) is not possible"
assert fragment in str(refusal)
for (kind, layout), t in layout_cases(device).items():
    before = t.resolve_conj().resolve_neg().clone()
    samples = torch.stack([before] * 2)
    message = ""
    try:
        vmap(lambda s, t=t: t.copy_(s))(samples)
    except RuntimeError as error:
        message = str(error)
    assert fragment in message, (kind, layout, message)
    assert torch.equal(t, before), (kind, layout)


# %%
# The fix: a target made from a batched tensor
# --------------------------------------------
# **sample.new_zeros(shape) and torch.zeros_like(sample) are batched like
# sample: one slot per sample, so the same write works and matches a loop.**
def fixed(sample):
    out = sample.new_zeros(sample.shape)
    out[0] = sample[0]
    return out


result = vmap(fixed)(batch)
print(result)

# %%

# Checks: equal to a loop over the samples, in new memory, for every kind
looped = torch.stack([fixed(sample) for sample in batch])
assert torch.equal(result, looped) and not shares_memory(result, batch)
for (kind, layout), t in layout_cases(device).items():
    if t.dim() < 2 or t.numel() == 0:
        continue  # samples need an entry to keep
    out = vmap(fixed)(t)
    assert torch.equal(out[:, 0], t[:, 0]), (kind, layout)
    assert not out[:, 1:].any() and not shares_memory(out, t), (kind, layout)


# %%
# Writes into the inputs reach your tensor
# ----------------------------------------
# **Each sample vmap passes is a view of your tensor: an in-place write into
# it writes into your tensor, as in eager code, and the output may be your
# tensor itself.**
def zero_first(sample):
    sample[0] = 0
    return sample


x = torch.arange(1.0, 7.0, device=device).view(2, 3)
out = vmap(zero_first)(x)
print(f"x after the call: {x.tolist()}")
print(f"out is x: {out is x}, shares memory: {shares_memory(out, x)}")

# %%

# Checks: the write reached x, through the output too; clone() protects it
assert x.tolist() == [[0.0, 2.0, 3.0], [0.0, 5.0, 6.0]]
assert out is x and shares_memory(out, x)
kept = torch.ones(2, 3, device=device)
copied = vmap(lambda s: zero_first(s.clone()))(kept)
assert kept.tolist() == [[1.0] * 3] * 2 and not shares_memory(copied, kept)

# %%
# A picture of it
# ---------------
# **torch.zeros(shape) gives one row for the whole batch; sample.new_zeros
# gives one row per sample.**
plt.rcParams["font.size"] = 13
# Alt: Two panels of boxes: torch.zeros gives one row for the whole batch,
#   whose value is unknown; new_zeros gives one row per sample, each holding
#   that sample's value.
fig, ax = plt.subplots(figsize=(5, 3.4))
for column, (title, rows) in enumerate(
    (("torch.zeros", 1), ("new_zeros", len(batch)))
):
    left = column * 3.6
    ax.text(left, len(batch) + 0.3, title, va="bottom")
    for row in range(rows):
        for i in range(3):
            ax.add_patch(
                plt.Rectangle(
                    (left + i, len(batch) - 1 - row),
                    0.92,
                    0.9,
                    fc="#cfe2f3",
                    ec="#1f4e79",
                )
            )
        value = result[row, 0].item() if rows > 1 else "?"
        ax.text(left + 0.46, len(batch) - 0.55 - row, f"{value}", ha="center")
ax.set(xlim=(-0.1, 6.7), ylim=(-0.1, len(batch) + 1))
ax.axis("off")
plt.show()

# %%
# Use it when, use instead
# ------------------------
# **Make scratch tensors from a batched one, and clone an input before writing
# into it if the caller must keep its values.**
#
# * ``sample.new_zeros(shape)`` or ``torch.zeros_like(sample)``, never
#   ``torch.zeros(sample.shape)``, for a tensor you write into.
# * An out-of-place form, such as ``torch.cat`` or ``torch.where``, writes
#   nothing at all.
# * ``functional_call`` and BatchNorm under vmap:
#   :ref:`func-functional-call` and :ref:`func-batchnorm`.
