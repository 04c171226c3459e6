"""
``Tensor.new_tensor(data)``: always a copy, typed like its caller
=================================================================

**base.new_tensor(data) never shares: it copies data into new memory, a leaf
outside the graph. Its dtype and device are base's, unless dtype= or device=
says otherwise.**
"""

# Setup: the device (TORCH_DEVICE, else CUDA if present, else the CPU), the
# test of shared memory, and the case grid
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
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
# The caller decides dtype and device
# -----------------------------------
# **The result takes base's dtype and device, whatever the data's; dtype= and
# device= override them. A base with the conj or neg bit is the exception: it
# raises.**
#
# ``base`` stands for a tensor of your model: ``float32`` on the run's device. Python
# integers and a float64 array handed to ``base.new_tensor`` both land there as
# ``float32``. :func:`torch.tensor` infers the type from the data. It puts Python and
# NumPy data on the default device, the CPU unless :func:`torch.set_default_device`
# changed it (a CUDA run prints the difference), and keeps a tensor on its own device.
# ``dtype=`` overrides the caller.
#
# .. list-table:: a base with the conj or neg bit
#    :header-rows: 1
#
#    * - call
#      - outcome
#    * - ``base.new_tensor(data)``, with or without ``dtype=`` and ``device=``
#      - ``RuntimeError``
#    * - ``new_zeros``, ``new_ones``, ``new_empty``, ``new_full``
#      - a tensor of base's dtype and device, without the bit
base = torch.zeros(2, device=device)
arr = np.array([0.25, 0.5, 0.75])  # float64, NumPy's default
made = []
for data in ([1, 2, 3], arr):
    a, b = base.new_tensor(data), torch.tensor(data)
    made.append((a, b))
    print(f"new_tensor:   {a.dtype} on {a.device}")
    print(f"torch.tensor: {b.dtype} on {b.device}")
typed = base.new_tensor(arr, dtype=torch.float64)
print(f"new_tensor with dtype=torch.float64: {typed.dtype}")

# %%

# Checks: new_tensor follows base, torch.tensor the data; dtype= and device= win
for (a, b), inferred in zip(made, (torch.int64, torch.float64), strict=True):
    assert (a.dtype, a.device) == (torch.float32, base.device)
    assert b.dtype == inferred and b.device == torch.get_default_device()
assert typed.dtype == torch.float64
assert base.new_tensor(arr, device="cpu").device == torch.device("cpu")
# Checks: torch.tensor keeps a tensor's device, even one that is not the
# default; new_tensor takes base's instead
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the warning for tensor data: see below
    on_meta = torch.empty(2, device="meta")
    assert torch.get_default_device() != on_meta.device
    assert torch.tensor(on_meta).device == on_meta.device
    assert base.new_tensor(torch.zeros(2)).device == base.device
# Checks: a base with the conj or neg bit: new_tensor raises, whatever
# dtype= and device= say; the other new_* methods work, without the bit
complex_base = torch.zeros(2, dtype=torch.complex64, device=device)
for flagged in (complex_base.conj(), complex_base.conj().imag):
    assert flagged.is_conj() or flagged.is_neg()
    cpu64 = {"dtype": torch.float64, "device": "cpu"}
    for options in ({}, {"device": "cpu"}, {"dtype": torch.float64}, cpu64):
        try:
            flagged.new_tensor([1.0], **options)
        except RuntimeError as error:
            refusal = str(error)
        else:
            refusal = ""
        assert "doesn't correspond to a device" in refusal, options
    made_by = {
        "new_zeros": flagged.new_zeros(3),
        "new_ones": flagged.new_ones(3),
        "new_empty": flagged.new_empty(3),
        "new_full": flagged.new_full((3,), 2.0),
    }
    for name, result in made_by.items():
        assert (result.dtype, result.device) == (flagged.dtype, flagged.device)
        assert not (result.is_conj() or result.is_neg()), name

# %%
# **new_tensor copies all the data it accepts, even when nothing needs
# converting. Arrays a tensor cannot describe, such as reversed or byte-swapped
# ones, are refused: copy them with NumPy first.**
#
# A later write into the array does not reach the result. For a refused array,
# ``arr.copy()`` or ``arr.astype("=f4")`` makes one that it accepts.
# :func:`torch.as_tensor` shares the array's memory when it can: on a CPU run the write
# shows through it, while a CUDA run needs a copy on the GPU and keeps the old value.
same = np.array([0.25, 0.5, 0.75], dtype=np.float32)  # already base's dtype
t, shared = base.new_tensor(same), torch.as_tensor(same, device=device)
same[0] = -1.0
print(f"same = {same}\nnew_tensor: {t}\nas_tensor:  {shared}")

# %%

# Checks: the copy owns its memory; as_tensor shares it on the CPU only; a
# tensor as data, of every dtype kind and layout, is copied too, by a caller
# of its dtype (a caller with the conj or neg bit raises instead)
assert not shares_memory(t, torch.from_numpy(same)) and t[0].item() != same[0]
assert (shared[0].item() == same[0]) == (device.type == "cpu")
grid = layout_cases(device)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the warning for tensor data: see below
    for (kind, layout), data in grid.items():
        caller = torch.empty(0, dtype=data.dtype, device=device)
        made = caller.new_tensor(data)
        assert not shares_memory(made, data) and torch.equal(made, data)
        assert (made.dtype, made.device) == (data.dtype, data.device)
        assert made.is_leaf and not (made.is_conj() or made.is_neg())
        if data.numel():
            before = data.tolist()
            made.fill_(not made.flatten()[0] if kind == "bool" else 0)
            assert data.tolist() == before, (kind, layout)
    for flagged in (grid["conj bit", "0-d"], grid["neg bit", "0-d"]):
        try:
            flagged.new_tensor([1.0])
        except RuntimeError as error:
            refusal = str(error)
        else:
            refusal = ""
        assert "doesn't correspond to a device" in refusal
# Checks: reversed and byte-swapped arrays raise ValueError; copied with NumPy
# first, they are accepted, and the result is independent of them
numbers = np.arange(3, dtype=np.float32)
refused = {
    "negative": (numbers[::-1], numbers[::-1].copy()),
    "byte order": (numbers.astype(">f4"), numbers.astype(">f4").astype("=f4")),
}
for want, (array, fixed) in refused.items():
    try:
        base.new_tensor(array)
    except ValueError as error:
        refusal = str(error)
    else:
        refusal = ""
    assert want in refusal, want
    fixed_copy = base.new_tensor(fixed)
    assert fixed_copy.tolist() == array.tolist()
    assert not shares_memory(fixed_copy, torch.from_numpy(fixed))
    fixed[0] = 9.0
    assert fixed_copy[0].item() != 9.0, want

# %%
# Passing a tensor: a copy, a leaf, and a warning
# -----------------------------------------------
# **Given a tensor, new_tensor still copies, drops the graph, and warns: the
# result is a leaf that does not require grad, and gradient never reaches the
# source.**
#
# Given a tensor, ``new_tensor`` still copies, even when nothing needs converting
# (:func:`torch.as_tensor` would hand back the very same tensor), and the copy leaves
# the graph: a leaf that does not require grad. PyTorch warns that there is a clearer
# way to say this.
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    n = base.new_tensor(x)
print(f"{caught[0].category.__name__}: {caught[0].message}")
print(f"n shares memory with x: {shares_memory(n, x)}")
print(f"n.is_leaf={n.is_leaf}, n.requires_grad={n.requires_grad}")
print(f"torch.as_tensor(x) is x: {torch.as_tensor(x) is x}")

# %%

# Checks: one UserWarning; a copy, outside the graph
assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
assert "sourceTensor.detach().clone()" in str(caught[0].message)
assert not shares_memory(n, x) and torch.as_tensor(x) is x
assert n.is_leaf and not n.requires_grad and n.grad_fn is None

# %%
# ``requires_grad=True`` makes the copy a leaf of its own: gradient collects on the copy
# and never reaches ``x``.
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    m = base.new_tensor(x, requires_grad=True)
(3 * m).sum().backward()
print(f"m.is_leaf={m.is_leaf}, m.grad={m.grad}, x.grad={x.grad}")

# %%

# Checks: the gradient stops at the copy
assert (
    m.is_leaf
    and torch.equal(m.grad, torch.full_like(m, 3.0))
    and x.grad is None
)

# %%
# What to write instead
# ---------------------
# **Write x.detach().clone(), as the warning advises, or
# x.detach().to(base, copy=True) to take base's dtype and device: both copy
# without a warning.**
#
# The warning's advice, ``x.detach().clone()`` (:meth:`~torch.Tensor.detach`, then
# :meth:`~torch.Tensor.clone`), says the same without a warning; detach first, so that
# autograd never records the clone. It keeps the dtype and device of ``x``; to take
# those of ``base`` as ``new_tensor`` does, write ``x.detach().to(base, copy=True)``:
# a float64 ``x`` comes out as float32, like ``base``.
# :func:`torch.tensor` given a tensor warns just as ``new_tensor`` does.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    c = x.detach().clone()
    like_base = x.detach().to(base, copy=True)
    torch.tensor(x)
print(f"{len(caught)} warning, from torch.tensor(x):")
print(f"{caught[0].category.__name__}: {caught[0].message}")
x64 = x.detach().double()
print(f"x64.to(base, copy=True) is {x64.to(base, copy=True).dtype}")

# %%

# Checks: only torch.tensor warned; both spellings copy as new_tensor did
assert len(caught) == 1 and "rather than torch.tensor(" in str(
    caught[0].message
)
assert "sourceTensor.detach().clone()" in str(caught[0].message)
for alt in (c, like_base):
    assert not shares_memory(alt, x) and torch.equal(alt, n)
    assert alt.is_leaf and not alt.requires_grad
assert (like_base.dtype, like_base.device) == (n.dtype, n.device)
assert (
    x64.to(base, copy=True).dtype
    == base.new_tensor(x64.tolist()).dtype
    == base.dtype
)
assert x64.to(base, copy=True).device == base.device

# %%
# A write into ``x`` afterwards reaches none of the copies; only ``x.detach()``, which
# shares the memory of ``x``, sees it.
with torch.no_grad():
    x[0] = 10.0
print(f"x = {x}\nx.detach() = {x.detach()}")
print(f"new_tensor: {n}\ndetach().clone(): {c}")

# %%

# Checks: the copies kept the old value; only x.detach() shares memory with x
assert x[0].item() != n[0].item() == c[0].item()
assert shares_memory(x.detach(), x)
assert not (shares_memory(n, x) or shares_memory(c, x) or shares_memory(n, c))

# %%
# A picture of it
# ---------------
# **The values come from arr, copied; the dtype and device from base.**
#
# Drawn from the live tensors above: ``base.new_tensor(arr)`` takes its values from
# ``arr``, copied into memory of its own, and its dtype and device from ``base``.

# Drawing: the values come from arr, the dtype and device from base
# Alt: The values of arr, in its dtype, copied into base.new_tensor(arr), whose
#   dtype and device come from base, drawn above it.
plt.rcParams["font.size"] = 13
fig = plt.figure(figsize=(5, 3.5))
ax = fig.add_axes((0, 0, 1, 1), xlim=(0, 5), ylim=(0, 3.5))  # 1 unit = 1 inch
ax.axis("off")
from_arr = base.new_tensor(arr)
cell, low, high = 0.6, 0.95, 1.75


def draw_row(x, values, fill, edge):
    """A row of boxes, one per value, from x to the right."""
    for i, value in enumerate(values):
        ax.add_patch(
            plt.Rectangle(
                (x + i * cell, low), cell, high - low, fc=fill, ec=edge, lw=2
            )
        )
        ax.text(
            x + (i + 0.5) * cell,
            (low + high) / 2,
            f"{value:g}",
            ha="center",
            va="center",
            size=15,
        )


def dtype_name(t):
    return str(t.dtype).removeprefix("torch.")


ARROW = {"arrowstyle": "-|>", "lw": 2.2, "color": "#333"}
draw_row(0.1, arr.tolist(), "#ead1dc", "#741b47")
ax.text(
    1.0,
    low - 0.15,
    f"arr\n{arr.dtype}",
    ha="center",
    va="top",
    size=14,
    family="monospace",
)
draw_row(3.1, from_arr.cpu().tolist(), "#cfe2f3", "#1f4e79")
ax.text(
    3.75,
    low - 0.15,
    f"base.new_tensor(arr)\n{dtype_name(from_arr)}",
    ha="center",
    va="top",
    size=14,
)
ax.annotate("", (3.1, 1.35), (0.1 + 3 * cell, 1.35), arrowprops=ARROW)
ax.text(2.5, 1.45, "copied", ha="center", va="bottom", size=15)
ax.add_patch(
    plt.Rectangle((2.7, 2.55), 2.2, 0.8, fc="#fff2cc", ec="#7f6000", lw=2)
)
where = f"{dtype_name(base)}, {base.device.type}"  # data: in code type
ax.text(
    3.8,
    2.95,
    f"base\n{where}",
    ha="center",
    va="center",
    size=15,
    family="monospace",
)
ax.annotate("", (4.0, high), (4.0, 2.55), arrowprops=ARROW)
ax.text(3.9, 2.15, "dtype,\ndevice", ha="right", va="center", size=13)
plt.show()

# %%

# Checks: the drawn result copies arr's values, in base's dtype and device
assert torch.equal(from_arr.cpu(), torch.from_numpy(arr).float())
assert (from_arr.dtype, from_arr.device) == (base.dtype, base.device)
assert not shares_memory(from_arr, torch.from_numpy(arr))

# %%
# Use it when, use instead
# ------------------------
# **Use new_tensor for Python or NumPy data that must match a tensor you have.
# To copy a tensor, write x.detach().clone(); to share NumPy memory, use
# torch.from_numpy.**
#
# * Use ``new_tensor`` to build a tensor from Python or NumPy data that must match the
#   dtype and device of a tensor you already have, e.g. constants inside a model.
# * To copy a tensor, write ``x.detach().clone()``, plus
#   :meth:`~torch.Tensor.requires_grad_` if the copy is to be trained; to convert it as
#   well, ``x.detach().to(base, copy=True)``.
# * To share memory with NumPy data instead of copying it, use :func:`torch.from_numpy`,
#   or :func:`torch.as_tensor` when the dtype and device already match.
