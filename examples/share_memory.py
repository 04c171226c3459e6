"""
``share_memory_``: one tensor, two processes
============================================

**It moves a CPU tensor's storage, in place, into memory other processes can
map, so a child that writes into the tensor writes into the parent's
memory.**
"""

# Setup: the device, a memory test, the grid of tensors, a child process runner
import os
import sys
import types

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.multiprocessing as mp

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


def run_child(method, target, *args):
    """Run ``target(*args)`` in a child started with ``method``; wait for it.

    The child is shown an empty ``__main__`` module while it starts, so that a
    ``spawn`` child does not run this script again before ``target``. (Your own
    scripts would keep such code under ``if __name__ == "__main__":`` instead.)
    """
    child = mp.get_context(method).Process(target=target, args=args)
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        child.start()
    finally:
        sys.modules["__main__"] = main
    child.join(timeout=60)
    if child.exitcode is None:  # still running after a minute: stop it, fail
        child.kill()
        child.join()
    assert child.exitcode == 0, f"{method} child: exit code {child.exitcode}"


# %%
# ``share_memory_()`` moves the storage, in place
# -----------------------------------------------
# **A CPU tensor keeps its storage object; the storage gets new, shared memory
# holding the same values. Every view of that storage, taken before or after,
# goes on sharing memory with the tensor.**
host = torch.arange(4.0)
view, storage = host[1:], host.untyped_storage()
address = storage.data_ptr()
was_shared = host.is_shared()
returned = host.share_memory_()
moved = host.untyped_storage().data_ptr() != address
print(f"is_shared() before {was_shared}, after {host.is_shared()}")
print(f"address changed {moved}; values {host.tolist()}")
view[0] = -1.0
print(f"after view[0] = -1 through the old view: {host.tolist()}")

# %%

# Checks: the rule over every dtype kind and layout (42 cases, on the CPU)
assert not was_shared and returned is host and host.is_shared() and moved
assert storage.data_ptr() == host.untyped_storage().data_ptr()
assert shares_memory(view, host) and host.tolist() == [0.0, -1.0, 2.0, 3.0]
for case, t in layout_cases(torch.device("cpu")).items():
    base = t if t._base is None else t._base
    values, kept = t.clone(), t.untyped_storage()
    old = kept.data_ptr()
    assert not t.is_shared() and t.share_memory_() is t, case
    assert t.is_shared() and base.is_shared(), case
    assert kept.data_ptr() == t.untyped_storage().data_ptr() != old, case
    assert torch.equal(t, values) and shares_memory(t, base), case

# %%
# A CUDA tensor is shared as it is: ``is_shared()`` is true from the start, and
# ``share_memory_()`` leaves its memory where it was.
if device.type == "cuda":
    on_gpu = torch.arange(4.0, device=device)
    address = on_gpu.untyped_storage().data_ptr()
    print(f"before: is_shared() {on_gpu.is_shared()}")
    gpu_shared = on_gpu.is_shared()
    gpu_returned = on_gpu.share_memory_()
    kept = on_gpu.untyped_storage().data_ptr() == address
    print(f"after share_memory_(): address unchanged {kept}")
else:
    print("skipped: the CUDA case needs a GPU; this run is on the CPU")

# %%

# Checks: shared from the start, memory left in place
if device.type == "cuda":
    assert gpu_shared and gpu_returned is on_gpu
    assert kept

# %%
# Memory outside PyTorch stays behind
# -----------------------------------
# **Anything outside PyTorch that pointed at the old memory no longer sees the
# tensor's writes. The array torch.from_numpy was given keeps its own buffer;
# an array from t.numpy() is left pointing at freed memory.**
#
# So take NumPy arrays after the move, and drop those taken before it. Never
# read or write such an array: the memory it points at is no longer PyTorch's
# to keep, and using it can crash the interpreter. This script only compares
# addresses.
array = np.zeros(3)
from_array = torch.from_numpy(array)
from_array.share_memory_()
from_array[0] = 5.0
print(f"tensor {from_array.tolist()}, the array it came from {array.tolist()}")
plain = torch.ones(3)
taken = plain.numpy()  # an array that owns no memory: the tensor's
taken_at = taken.ctypes.data  # its address, read without touching the data
plain.share_memory_()
left_behind = taken_at != plain.untyped_storage().data_ptr()
print(f"t.numpy() taken before: owns its data {taken.flags.owndata}")
print(f"  and points where the tensor no longer is: {left_behind}")
del taken  # never use it
fresh = plain.numpy()  # taken after the move: shares it
fresh[0] = 9.0
print(f"t.numpy() taken after: a write shows in the tensor {plain.tolist()}")

# %%

# Checks: the from_numpy array left out; the old array's address abandoned
assert array.tolist() == [0.0, 0.0, 0.0] and from_array[0].item() == 5.0
assert not np.shares_memory(array, from_array.numpy())
assert left_behind and plain.is_shared()
assert plain[0].item() == 9.0

# %%
# The child writes, the parent reads
# ----------------------------------
# **A child's write into a tensor in shared memory lands in the parent's memory,
# which stays where it was: the parent reads it once the child has ended.**
#
# A child started with ``spawn`` receives ``x`` and copies four values into it.
x = torch.zeros(4, device=device).share_memory_()
address = x.untyped_storage().data_ptr()
written = torch.tensor([10.0, 20.0, 30.0, 40.0])
run_child("spawn", torch.Tensor.copy_, x, written)
print(f"the parent reads {x.tolist()}")
same_place = x.untyped_storage().data_ptr() == address
print(f"x's memory has stayed where it was: {same_place}")

# %%

# Checks: the child's values, in the parent's unmoved memory
assert x.tolist() == written.tolist()
assert same_place

# %%
# With ``spawn``, sending is enough
# ---------------------------------
# **Sending a CPU tensor whose storage holds bytes to a spawn child moves that
# storage into shared memory, as share_memory_() would: the child's write comes
# back. A non-leaf that requires grad cannot be sent.**
#
# ``is_shared()`` turns true on the tensor the parent holds. Two cases differ:
#
# .. list-table::
#    :header-rows: 1
#
#    * - tensor sent
#      - what happens
#    * - a non-leaf that requires grad
#      - refused in the parent with a ``RuntimeError``
#    * - from ``torch.from_numpy``
#      - moved all the same; the array keeps its own buffer, so the child's
#        write reaches the tensor, not the array
sent = torch.zeros(4)
print(f"before: is_shared() {sent.is_shared()}")
sent_was_shared = sent.is_shared()
run_child("spawn", torch.Tensor.copy_, sent, written)
print(f"after:  is_shared() {sent.is_shared()}, values {sent.tolist()}")

# %%

# Checks: moved on the way, and the child's write came back
assert not sent_was_shared
assert sent.is_shared() and sent.tolist() == written.tolist()

# %%
# Both cases, sent to a ``spawn`` child like ``sent``:
computed = torch.ones(4, requires_grad=True) * 2  # a non-leaf
try:
    run_child("spawn", torch.Tensor.copy_, computed, written)
except RuntimeError as error:
    print(f"non-leaf: RuntimeError: {error}")
numpy_array = np.zeros(4)
over_array = torch.from_numpy(numpy_array)
run_child("spawn", torch.Tensor.copy_, over_array, written)
print(
    f"from_numpy: tensor {over_array.tolist()}, array {numpy_array.tolist()}"
)

# %%

# Checks: the non-leaf refused in the parent; the NumPy tensor moved, its
# array left behind; its detach() goes, and the write shows in the non-leaf
refusal = ""
try:
    run_child("spawn", torch.Tensor.copy_, computed, written)
except RuntimeError as error:
    refusal = str(error)
assert "non-leaf tensor which requires_grad" in refusal
assert not computed.is_shared() and computed.tolist() == [2.0] * 4
assert over_array.is_shared() and over_array.tolist() == written.tolist()
assert numpy_array.tolist() == [0.0] * 4  # the child's write missed it
assert not np.shares_memory(numpy_array, over_array.numpy())
detached = computed.detach()  # what to send instead: it goes, and moves
run_child("spawn", torch.Tensor.copy_, detached, written)  # the memory
assert shares_memory(detached, computed) and computed.is_shared()
assert computed.tolist() == written.tolist()  # the child's write, in computed

# %%
# With ``fork``, ``share_memory_()`` makes the difference
# -------------------------------------------------------
# **A forked child inherits the parent's tensors instead of receiving them. Its
# write reaches the parent only where the tensor was in shared memory before
# the fork.**
#
# The same ``fill_`` in two children: into ordinary memory, into shared memory.
private, shared = torch.zeros(4), torch.zeros(4).share_memory_()
run_child("fork", torch.Tensor.fill_, private, 7.0)
run_child("fork", torch.Tensor.fill_, shared, 7.0)
print(f"private {private.tolist()}")
print(f"shared  {shared.tolist()}")

# %%

# Checks: only the write into shared memory reached the parent
assert not private.is_shared() and private.tolist() == [0.0] * 4
assert shared.tolist() == [7.0] * 4


# %%
# A picture of it
# ---------------
# **Both processes use one memory, that of x: the child wrote into it, and the
# parent read the values drawn here after the child had ended.**


# Drawing: two processes, one shared memory between them
# Alt: Two boxes, the parent process and a spawned child, above one row of
#   values in shared memory: the parent reads it, the child writes it; below,
#   is_shared() of x.
def process_box(ax, left, title, code):
    box = plt.Rectangle(
        (left, 2.6), 3.3, 1.9, fc="#fff2cc", ec="#7f6000", lw=2
    )
    ax.add_patch(box)
    ax.text(left + 1.65, 4.05, title, ha="center", va="center", size=16)
    ax.text(left + 1.65, 3.2, code, ha="center", va="center")


plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3.5))
process_box(ax, 0, "parent", "x.share_memory_()")
process_box(ax, 3.9, "child (spawn)", "x.copy_(written)")
cells = x.tolist()
left = 3.6 - len(cells) / 2 * 1.05
for i, value in enumerate(cells):
    corner = (left + 1.05 * i, 0.35)
    ax.add_patch(
        plt.Rectangle(corner, 1, 0.95, fc="#d9d2e9", ec="#351c75", lw=1.5)
    )
    ax.text(
        corner[0] + 0.5, 0.82, f"{value:g}", ha="center", va="center", size=18
    )
arrow = {"arrowstyle": "-|>", "lw": 2, "color": "#333333"}
for start, end, label, side in (
    (1.65, 2.9, "reads ", "right"),
    (5.55, 4.3, " writes", "left"),
):
    ax.annotate(
        "",
        (end, 1.3),
        (start, 2.6),
        arrowprops=arrow | {"shrinkA": 0, "shrinkB": 0},
    )
    middle = (start + end) / 2 + (-0.15 if side == "right" else 0.15)
    ax.text(middle, 1.95, label, ha=side, va="center", style="italic")
ax.text(
    3.6,
    0.02,
    f"is_shared() = {x.is_shared()}",
    ha="center",
    va="center",
    family="monospace",
)
ax.set(xlim=(-0.05, 7.25), ylim=(-0.25, 4.55))
ax.axis("off")
fig.tight_layout(pad=0.2)
plt.show()

# %%
# Use it when, use instead
# ------------------------
# **Call share_memory_() on a CPU tensor before starting the children meant to
# write into it; with fork it is what brings their writes back.**
#
# * For a model, :meth:`~torch.nn.Module.share_memory` does it to every tensor.
# * With ``spawn`` a tensor you pass is moved anyway, but the call says what you
#   mean, and ``is_shared()`` tells you whether PyTorch has moved it. Send
#   ``t.detach()`` of a non-leaf that requires grad.
# * Take NumPy arrays of a shared tensor after the move, never before it.
# * CUDA tensors need no move: ``share_memory_()`` leaves them where they are,
#   and a ``spawn`` child writes into the same GPU memory.
