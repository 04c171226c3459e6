"""
``torch.from_numpy()`` and ``Tensor.numpy()``: one buffer, two names
=====================================================================

**from_numpy(a) and t.numpy() wrap the same bytes, so writes cross over.
numpy(force=True) copies only to move or resolve the tensor: a GPU tensor, or
one with the conj or neg bit.**
"""

# Setup: the device (TORCH_DEVICE, else CUDA if present, else the CPU; NumPy
# shares only host memory), the test of shared memory, the case grid, and a
# helper for expected errors
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch

device = torch.device(
    os.environ.get("TORCH_DEVICE")
    or ("cuda" if torch.cuda.is_available() else "cpu")
)
print(f"torch {torch.__version__}, numpy {np.__version__}, on {device}")


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


def error_of(action, kind=RuntimeError) -> str:
    """Run ``action``, which must raise ``kind``; print the error and return it."""
    try:
        action()
    except kind as error:
        print(f"{type(error).__name__}: {error}")
        return str(error)
    raise AssertionError(f"expected {kind.__name__}, but nothing was raised")


# %%
# Both ways share the buffer
# --------------------------
# **torch.from_numpy(a) uses a's buffer as its storage, and t.numpy() hands the
# same buffer back: writes cross over in both directions. The dtype stays
# NumPy's, not PyTorch's default.**
a = np.arange(4.0)
t = torch.from_numpy(a)
shared = np.shares_memory(t.numpy(), a)
print(f"t is a {t.dtype} tensor; it shares memory with a: {shared}")
t[0] = 10.0
a[1] = 20.0
print(a, t, sep="\n")

# %%

# Checks: the storage is exactly the array's buffer; both writes crossed
assert shared and t.untyped_storage().data_ptr() == a.ctypes.data
assert t.untyped_storage().nbytes() == a.nbytes
assert a[0] == 10.0 and t[1].item() == 20.0
assert t.dtype == torch.float64 and torch.get_default_dtype() == torch.float32

# %%
# **numpy() shares memory with every CPU tensor it accepts, as does
# numpy(force=True). A conj or neg bit is refused; force=True resolves it into
# a copy, as it copies a GPU tensor.**
flagged = torch.arange(3.0).mul(1j).conj()  # a conj bit over new memory
error_of(flagged.numpy)
unflagged = flagged.conj()  # the same memory, without the bit
shares = np.shares_memory(flagged.numpy(force=True), unflagged.numpy())
print(f"numpy(force=True) shares the tensor's memory: {shares}")

# %%

# Checks: over every dtype kind and layout, on the CPU and on the run's device
for where in {torch.device("cpu"), device}:
    for (kind, layout), source in layout_cases(where).items():
        forced = source.numpy(force=True)
        assert forced.tolist() == source.tolist(), (kind, layout)
        copies = where.type != "cpu" or kind in ("conj bit", "neg bit")
        try:  # refused exactly when force=True must copy
            source.numpy()
        except (RuntimeError, TypeError):
            refused = True
        else:
            refused = False
        assert refused == copies, (kind, layout)
        if not copies:
            # an empty array has no bytes: NumPy finds no overlap
            same = np.shares_memory(source.numpy(), forced)
            assert same == (source.numel() > 0), (kind, layout)
        if source.numel():
            before = source.tolist()
            forced.flat[0] = not forced.flat[0] if forced.dtype == bool else 0
            assert (source.tolist() == before) == copies, (kind, layout)
assert not shares and shares_memory(unflagged, flagged)

# %%
# Two tensors over one buffer
# ---------------------------
# **Each from_numpy call makes a storage of its own, even over one buffer:
# writes cross over, but each tensor keeps its own version counter, so autograd
# misses a write through the other.**
#
# ``torch.from_numpy(a[2:])`` gets a storage that starts two elements into the
# buffer behind ``t``'s.
u = torch.from_numpy(a[2:])
gap = u.untyped_storage().data_ptr() - t.untyped_storage().data_ptr()
print(f"u's storage starts {gap} bytes into t's")
print(f"u shares memory with t: {shares_memory(u, t)}")
u[0] = -2.0
print(f"after u[0] = -2: t = {t}")
print(f"versions: u {u._version}, t {t._version} (from t[0] = 10 above)")

# %%

# Checks: 16 bytes apart, overlapping, the write crossed, one version each
assert gap == 2 * a.itemsize and shares_memory(u, t)
assert t[2].item() == -2.0 and u._version == 1 and t._version == 1

# %%
# So a write through one such tensor goes unnoticed by autograd when it changes a value
# that a backward pass saved through the other: no error, and a wrong gradient.
weights = np.ones(3)
leaf = torch.from_numpy(weights).requires_grad_()
loss = (leaf * leaf).sum()  # saves leaf for the backward pass
torch.from_numpy(weights[1:])[0] = 10.0  # another storage over the same buffer
loss.backward()
print(f"gradient {leaf.grad.tolist()}")
print(f"at the values the loss saw: {(2 * torch.ones(3)).tolist()}")

# %%

# Checks: no error, and the gradient uses the overwritten value
assert leaf.grad.tolist() == [2.0, 20.0, 2.0]
assert leaf.grad.tolist() != (2 * torch.ones(3)).tolist()

# %%
# Which constructors copy
# -----------------------
# **Of the arrays they accept, torch.tensor copies all, and torch.as_tensor
# shares those whose dtype and device it keeps, copying the rest. Both refuse
# arrays a tensor cannot describe, such as reversed or byte-swapped ones.**
#
# Below, asking for another dtype or for a GPU makes a copy. A refused array
# must be copied with NumPy first:
#
# .. list-table:: arrays that ``torch.tensor``, ``as_tensor``, ``from_numpy`` refuse
#    :header-rows: 1
#
#    * - array
#      - error
#      - copy it first with
#    * - negative strides, ``arr[::-1]``
#      - ``ValueError``
#      - ``arr[::-1].copy()``
#    * - non-native byte order, ``dtype=">f4"``
#      - ``ValueError``
#      - ``arr.astype("=f4")``
copies = {
    "from_numpy(a)": torch.from_numpy(a),
    "as_tensor(a)": torch.as_tensor(a),
    "tensor(a)": torch.tensor(a),
    "as_tensor(a, dtype=float32)": torch.as_tensor(a, dtype=torch.float32),
    f"as_tensor(a, device='{device.type}')": torch.as_tensor(a, device=device),
}
before = {name: c.cpu().clone() for name, c in copies.items()}
a[3] = -1.0  # a write into the array: who sees it?
for name, c in copies.items():
    shares = not torch.equal(c.cpu(), before[name])
    print(f"torch.{name:32} shares: {shares}")

# %%

# Checks: which constructors saw the write
shares = {
    name: not torch.equal(c.cpu(), before[name]) for name, c in copies.items()
}
expected = [True, True, False, False, device.type == "cpu"]
assert list(shares.values()) == expected
# Checks: a reversed and a byte-swapped array are refused by every
# constructor; their NumPy copies are accepted, and torch.tensor's result is
# independent of them
numbers = np.arange(3.0, dtype=np.float32)
refused = {
    "negative": (numbers[::-1], numbers[::-1].copy()),
    "byte order": (numbers.astype(">f4"), numbers.astype(">f4").astype("=f4")),
}
constructors = (torch.tensor, torch.as_tensor, torch.from_numpy)
for want, (array, fixed) in refused.items():
    for make in constructors:
        try:
            make(array)
        except ValueError as error:
            refusal = str(error)
        else:
            refusal = ""
        assert want in refusal, (want, make.__name__)
    independent = torch.tensor(fixed)
    assert shares_memory(torch.as_tensor(fixed), torch.from_numpy(fixed))
    assert not shares_memory(independent, torch.from_numpy(fixed))
    fixed[0] = 9.0
    assert independent.tolist() == array.tolist() != fixed.tolist(), want

# %%
# ``numpy()`` and autograd
# ------------------------
# **numpy() refuses a tensor that requires grad while grad mode is on. The
# usual ways around it share the tensor's memory on the CPU: add .copy() for an
# independent array.**
#
# ``numpy(force=True)`` and ``detach().cpu().numpy()`` copy from a GPU. On the
# CPU they alias the tensor, and so does ``numpy()`` under
# :class:`torch.no_grad`: a write into the array changes the parameter.
w = torch.zeros(4, device=device, requires_grad=True)
refusal = error_of(lambda: w.cpu().numpy())
arrays = {
    "w.numpy(force=True)": w.numpy(force=True),
    "w.detach().cpu().numpy()": w.detach().cpu().numpy(),
    "w.detach().cpu().numpy().copy()": w.detach().cpu().numpy().copy(),
}
if device.type == "cpu":
    with torch.no_grad():
        arrays["w.numpy() under no_grad"] = w.numpy()
for i, array in enumerate(arrays.values()):
    array[i] = i + 1.0  # each array writes its own element: which reach w?
print(f"w after the writes: {w}")

# %%

# Checks: refused with grad; on the CPU every way but .copy() aliases w
assert "requires grad" in refusal
aliases = [name for i, name in enumerate(arrays) if w[i].item() == i + 1.0]
assert aliases == [
    name for name in arrays if "copy()" not in name and device.type == "cpu"
]

# %%
# ``numpy()`` refuses tensors outside host memory, and its message says to call
# ``.cpu()`` first. A CUDA run shows it with a GPU tensor. A CPU run shows it with a
# ``meta`` tensor, which holds no values at all, so for it ``.cpu()`` fails too.
elsewhere = torch.empty(3, device=device if device.type == "cuda" else "meta")
numpy_message = error_of(lambda: elsewhere.numpy(), TypeError)
if elsewhere.is_meta:
    cpu_message = error_of(lambda: elsewhere.cpu(), NotImplementedError)

# %%

# Checks: the messages
assert "Use Tensor.cpu()" in numpy_message
if elsewhere.is_meta:
    assert "no data" in cpu_message

# %%
# Arrays PyTorch cannot wrap safely
# ---------------------------------
# **A read-only array is shared anyway, with a warning, and a write through the
# tensor lands in it. A reversed array, with its negative stride, cannot be
# wrapped: from_numpy raises.**
#
# The warning calls such a write undefined behaviour. Here, where only the flag
# protects the array's memory, the write lands in the "read-only" array.

# Setup: a read-only array, and a record of warnings shown every time
frozen = np.arange(3.0)
frozen.setflags(write=False)
warn_always = torch.is_warn_always_enabled()
torch.set_warn_always(True)  # this warning is otherwise shown once per process
caught = warnings.catch_warnings(record=True)

# %%
with caught as shown:
    warnings.simplefilter("always")
    thawed = torch.from_numpy(frozen)
print(f"{shown[0].category.__name__}: {shown[0].message}")
thawed[0] = 7.0
print(f"frozen array after a write through the tensor: {frozen}")
print(f"writeable flag: {frozen.flags.writeable}")

# %%

# Checks: a UserWarning, and the write landed
torch.set_warn_always(warn_always)
message = str(shown[0].message)
assert shown[0].category is UserWarning and "not writable" in message
assert frozen[0] == 7.0 and not frozen.flags.writeable

# %%
# Tensors cannot have negative strides, so a reversed array (``arr[::-1]``) cannot be
# wrapped: :func:`torch.from_numpy` raises and suggests a copy. A positive step such as
# ``b[::2]`` is fine and still shares. Flipping the tensor with :func:`torch.flip`
# gives the reversed values too, in new memory.
b = np.arange(6.0)
message = error_of(lambda: torch.from_numpy(b[::-1]), ValueError)
reversed_copy = torch.from_numpy(b[::-1].copy())
every_other = torch.from_numpy(b[::2])
flipped = torch.flip(torch.from_numpy(b), [0])
print(f"copy of b[::-1]: {reversed_copy}")
print(f"torch.flip:      {flipped}")
print(f"b[::2] strides {every_other.stride()}")
print(f"shares memory with b: {np.shares_memory(every_other.numpy(), b)}")

# %%

# Checks: refused with advice; b[::2] shares; the copy and the flip do not
assert "negative" in message and "array.copy()" in message
assert np.shares_memory(every_other.numpy(), b)
assert not np.shares_memory(reversed_copy.numpy(), b)
assert torch.equal(flipped, reversed_copy)
assert not np.shares_memory(flipped.numpy(), b)

# %%
# A picture of it
# ---------------
# **One buffer, three names: a and t cover all of it, u only its end.**
#
# The buffer of ``a``, with the values it holds now, read from ``t``.


# Drawing: one buffer, and the span each name covers
# Alt: One buffer drawn as boxes, each with its value and its byte offset;
#   spans show that the NumPy array a and t = torch.from_numpy(a) cover all of
#   it, and u = torch.from_numpy(a[2:]) only its tail.
def span(ax, y, first, last, label):
    ax.plot([first, last], [y, y], color="#333333", lw=2)
    for end in (first, last):
        ax.plot([end, end], [y - 0.12, y + 0.12], color="#333333", lw=2)
    ax.text(last, y + 0.18, label, ha="right", va="bottom")


plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3.5))
cells = t.tolist()
for i, value in enumerate(cells):
    ax.add_patch(
        plt.Rectangle((i, 2), 0.96, 1.1, fc="#d9ead3", ec="#38761d", lw=2)
    )
    ax.text(i + 0.48, 2.55, f"{value:g}", ha="center", va="center", size=18)
    ax.text(i + 0.48, 1.75, f"byte {i * t.element_size()}", ha="center")
span(ax, 3.5, 0, len(cells) - 0.04, "a: NumPy array, float64")
span(ax, 0.9, 0, len(cells) - 0.04, "t = torch.from_numpy(a)")
first = gap // t.element_size()
span(ax, -0.2, first, first + u.numel() - 0.04, "u = torch.from_numpy(a[2:])")
ax.set(xlim=(-0.1, len(cells) + 0.1), ylim=(-0.35, 4.15))
ax.axis("off")
fig.tight_layout(pad=0.2)
plt.show()

# %%
# Use it when, use instead
# ------------------------
# **Use from_numpy and numpy() to hand data across without copying. For
# independent data, use torch.tensor(a), or t.detach().cpu().numpy().copy().**
#
# * Use :func:`torch.from_numpy` and :meth:`~torch.Tensor.numpy` to hand data between
#   the libraries without copying, when both sides may see each other's writes.
# * For an independent tensor use :func:`torch.tensor`, which copies every array it
#   accepts; for an independent array add ``.copy()``: on the CPU,
#   ``t.detach().cpu().numpy()`` still shares ``t``'s memory.
# * For ``arr[::-1]``, copy the array first (``arr[::-1].copy()``), or flip the tensor
#   with :func:`torch.flip`, which copies too. Convert a byte-swapped array first,
#   with ``arr.astype("=f4")`` for ``">f4"``.
