"""
``torch.save`` of a view saves its whole storage
================================================

**torch.save writes the whole storage beneath a tensor, however few elements
it shows. A clone holds just the elements shown: save it when they are fewer
than the storage holds.**

Every file goes into a temporary folder, removed at the end.
"""

# Setup: the device, a temporary folder, a memory test, the grid, save()
import io
import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np
import torch

device = torch.device(
    os.environ.get("TORCH_DEVICE")
    or ("cuda" if torch.cuda.is_available() else "cpu")
)
print(f"torch {torch.__version__} on {device}")
folder = tempfile.TemporaryDirectory()


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


def save(obj, name):
    """``torch.save`` ``obj`` in the temporary folder; return the path."""
    path = os.path.join(folder.name, name)
    torch.save(obj, path)
    return path


# %%
# A row of a large tensor
# -----------------------
# **x[0] is a view: it shows a thousand of the million float32 numbers of x,
# over x's whole storage.**
x = torch.zeros(1000, 1000, device=device)
row = x[0]
storage_bytes = row.untyped_storage().nbytes()
shown = row.numel() * row.element_size()
print(f"x[0] shows {shown:,} bytes of a storage of {storage_bytes:,}")
print(f"x[0]._base is x: {row._base is x}")

# %%

# Checks: a view of 1,000 of x's 1,000,000 float32 numbers
assert x.dtype == torch.float32 and x.numel() == 1000 * row.numel()
assert row.numel() == 1000 and row._base is x  # a view of x
assert shares_memory(row, x) and storage_bytes == x.numel() * x.element_size()

# %%
# The view's file holds the whole storage
# ---------------------------------------
# **Saved alone, a view brings every byte of its storage into its file. Its
# clone owns a storage exactly its size, and makes a file a small fraction as
# large.**
clone = row.clone()
sizes = {
    "x": os.path.getsize(save(x, "x.pt")),
    "x[0]": os.path.getsize(save(row, "row.pt")),
    "x[0].clone()": os.path.getsize(save(clone, "clone.pt")),
}
for name, size in sizes.items():
    print(f"{name:14} {size:>10,} bytes")

# %%

# Checks: the row's file about the size of x's; the clone's a hundredth or less
assert sizes["x[0]"] >= storage_bytes, "the row's file should hold its storage"
assert abs(sizes["x[0]"] - sizes["x"]) < sizes["x"] / 100
assert sizes["x[0].clone()"] < sizes["x[0]"] / 100
assert clone.untyped_storage().nbytes() == shown  # exactly its size
assert not shares_memory(clone, x)
for case, c in layout_cases(device).items():  # every dtype kind and layout
    path = save(c, "case.pt")
    back = torch.load(path)
    nbytes = c.untyped_storage().nbytes()
    assert back.untyped_storage().nbytes() == nbytes, case
    assert os.path.getsize(path) >= nbytes and torch.equal(back, c), case
    shown_bytes = c.numel() * c.element_size()  # a clone holds just these
    assert c.clone().untyped_storage().nbytes() == shown_bytes, case
# An expanded view shows more elements than its storage holds: its clone,
# and the clone's file, are far larger than the view's
wide = torch.zeros(1000, device=device).expand(1000, 1000)
wide_file = os.path.getsize(save(wide, "wide.pt"))
wide_clone_file = os.path.getsize(save(wide.clone(), "wide_clone.pt"))
assert wide.untyped_storage().nbytes() == 4000 and wide_file < 100_000
assert wide_clone_file > 4_000_000 > 40 * wide_file

# %%
# Fewer elements make no difference: a view of one element, or of none at all,
# takes the whole storage into its file as well.
few_sizes = {}
for n in (1, 0):
    few_sizes[n] = os.path.getsize(save(x[0, :n], "few.pt"))
    print(f"x[0, :{n}] makes a file of {few_sizes[n]:,} bytes")

# %%

# Checks: each file holds the whole storage
for size in few_sizes.values():
    assert size >= storage_bytes

# %%
# :meth:`~torch.Tensor.contiguous` would not have helped: the row is contiguous
# already, so ``contiguous()`` returns the row itself, storage and all. So does any
# slice of consecutive whole rows, such as ``x[2:5]``.
rows = x[2:5]
print(f"contiguous already: {row.is_contiguous()}, {rows.is_contiguous()}")
print(f"x[0].contiguous() is x[0]: {row.contiguous() is row}")
print(f"x[2:5].contiguous() is x[2:5]: {rows.contiguous() is rows}")

# %%

# Checks: contiguous() hands back the view itself
assert row.is_contiguous() and row.contiguous() is row
assert rows.is_contiguous() and rows.contiguous() is rows

# %%
# Loading the row's file gives back a thousand numbers over a storage of a million:
# the whole storage comes back into memory too.
loaded = torch.load(os.path.join(folder.name, "row.pt"))
print(
    f"loaded: shape {tuple(loaded.shape)}, "
    f"storage {loaded.untyped_storage().nbytes():,} bytes"
)

# %%

# Checks: the row's shape over the whole storage
assert loaded.shape == row.shape
assert loaded.untyped_storage().nbytes() == storage_bytes

# %%
# Saved together, a view and its base stay one storage
# ----------------------------------------------------
# **Tensors saved in one torch.save call that share a storage, viewed as one
# dtype, are written once and come back sharing memory; views of one storage
# as different dtypes make torch.save raise.**
#
# A write into the loaded row shows in the loaded ``x``.
sizes["(x, x[0])"] = os.path.getsize(save((x, row), "both.pt"))
x_back, row_back = torch.load(os.path.join(folder.name, "both.pt"))
print(f"x and x[0] in one file: {sizes['(x, x[0])']:,} bytes")
row_back[0] = 7.0
print(f"after row_back[0] = 7.0: x_back[0, 0] = {x_back[0, 0].item()}")

# %%

# Checks: the storage written once, and loaded as one
assert storage_bytes <= sizes["(x, x[0])"] < 2 * storage_bytes  # written once
assert shares_memory(x_back, row_back)
assert x_back[0, 0].item() == 7.0

# %%
# torch.save tells storages apart by their storage object, and refuses one
# memory seen as two dtypes. Two tensors over one NumPy array share memory,
# but each has a storage object of its own: they are written twice, and come
# back sharing nothing.
y = torch.arange(4.0)
try:
    torch.save({"f": y, "i": y.view(torch.int32)}, io.BytesIO())
except RuntimeError as error:
    print(f"RuntimeError: {error}")
array = np.zeros(10_000)  # 80,000 bytes
a, b = torch.from_numpy(array), torch.from_numpy(array)
a_back, b_back = torch.load(save((a, b), "numpy.pt"))
a_back[0] = 7.0
print(
    f"before: share memory {shares_memory(a, b)}; after loading: "
    f"{shares_memory(a_back, b_back)}, b_back[0] = {b_back[0].item()}"
)

# %%

# Checks: two dtypes refused; one storage object per NumPy tensor, so two
# storages in the file and none shared after loading
refusal = ""
try:
    torch.save((y, y.view(torch.int32)), io.BytesIO())
except RuntimeError as error:
    refusal = str(error)
assert "view the same data as different types" in refusal
a[1] = 5.0  # a write through a reaches b: the memory is shared
assert shares_memory(a, b) and b[1].item() == 5.0
assert a.untyped_storage()._cdata != b.untyped_storage()._cdata  # two objects
twice = os.path.getsize(os.path.join(folder.name, "numpy.pt"))
once = os.path.getsize(save((a, a), "once.pt"))  # one storage object
assert twice > 2 * array.nbytes > once  # written twice, against once
assert not shares_memory(a_back, b_back) and b_back[0].item() == 0.0

# %%
# Saved in two calls, ``x`` and ``x[0]`` come back as two storages that share
# nothing.
x_alone = torch.load(os.path.join(folder.name, "x.pt"))
row_alone = torch.load(os.path.join(folder.name, "row.pt"))
row_alone[0] = 7.0
print(f"after row_alone[0] = 7.0: x_alone[0, 0] = {x_alone[0, 0].item()}")
print(f"they share memory: {shares_memory(x_alone, row_alone)}")

# %%

# Checks: two storages; then the files are removed
assert not shares_memory(x_alone, row_alone) and x_alone[0, 0].item() == 0.0
folder.cleanup()
assert not os.path.exists(folder.name)  # the files are gone


# %%
# The file sizes, drawn
# ---------------------
# **The row's file is as large as the whole tensor's; the clone's is too small
# to see beside them.**
#
# Each bar is a file measured above, on a linear scale.


# Drawing: one bar per file, its name and size written on it
# Alt: One horizontal bar per saved file, labelled with what it holds and its
#   size: the row x[0] makes a file as large as x, its clone a small one, and x
#   with x[0] one file about the size of x.
def readable(size):
    """A file size in kB or MB, for the labels on the bars."""
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} kB"


plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3.5))
colours = [
    ("#cfe2f3", "#1f4e79"),
    ("#f4cccc", "#990000"),
    ("#d9ead3", "#38761d"),
    ("#d9d2e9", "#351c75"),
]
names = {"(x, x[0])": "x and x[0], one file"}
largest = max(sizes.values()) / 1e6
for k, ((name, size), (fill, edge)) in enumerate(
    zip(sizes.items(), colours, strict=True)
):
    megabytes = size / 1e6
    ax.barh(k, megabytes, height=0.72, color=fill, edgecolor=edge, lw=2)
    label = f"{names.get(name, name)}: {readable(size)}"
    inside = megabytes > largest / 2
    ax.text(
        largest * 0.03 if inside else megabytes + largest * 0.03,
        k,
        label,
        va="center",
        size=15,
    )
ax.invert_yaxis()  # the first file on top
ax.set_yticks([])
ax.set_xlim(0, largest * 1.05)
ax.set_xlabel("file size (MB)")
ax.spines[["top", "right", "left"]].set_visible(False)
fig.tight_layout(pad=0.3)
plt.show()

# %%
# Use it when, use instead
# ------------------------
# **Save a slice as t.clone(); save tensors that must keep sharing memory, such
# as tied weights, in one torch.save call.**
#
# * ``torch.save(t.clone(), path)`` writes the slice, not the tensor it came
#   from. An expanded view is the exception: its clone is larger than its
#   storage.
# * ``contiguous()`` is no substitute: a slice of consecutive whole rows, like
#   ``x[0]``, is contiguous already, and ``contiguous()`` returns it as it is,
#   whole storage included.
# * Saved in one call each, ``x`` and ``x[0]`` came back sharing nothing.
