"""
``share_memory_``: one tensor, two processes
============================================

A CPU tensor's storage moves, in place, into memory that other processes can
map, so that a child process that writes into the tensor writes into the
parent's memory.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU. ``run_child`` starts a child process that runs one
# function, here a method of :class:`torch.Tensor`, waits for it and checks that it
# succeeded.

# Setup: the device, a test of shared memory, and a child process runner
import os
import sys
import types

import matplotlib.pyplot as plt
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
# The tensor keeps its storage; the storage gets new, shared memory with the same
# values, at a new address. :meth:`~torch.Tensor.is_shared` reports the move, and a
# view taken before it still shares memory with the tensor.
host = torch.arange(4.0)
view, storage = host[1:], host.untyped_storage()
address = storage.data_ptr()
print(f"before: is_shared() {host.is_shared()}")
was_shared = host.is_shared()
returned = host.share_memory_()
moved = host.untyped_storage().data_ptr() != address
print(f"after:  is_shared() {host.is_shared()}, address changed {moved}")
after_move = host.tolist()
print(f"values {after_move}; view shares it: {shares_memory(view, host)}")
view[0] = -1.0
print(f"after view[0] = -1: {host.tolist()}")

# %%

# Checks: moved in place, same storage and values, the old view still shares
assert not was_shared
assert returned is host
assert host.is_shared() and moved
assert storage.data_ptr() == host.untyped_storage().data_ptr()  # same storage
assert after_move == [0.0, 1.0, 2.0, 3.0]
assert shares_memory(view, host)
assert host[1].item() == -1.0

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
# The child writes, the parent reads
# ----------------------------------
# A child started with ``spawn`` receives ``x`` and copies four new values into it.
# Once the child has ended, the parent reads them from its own ``x``, whose memory
# has stayed where it was.
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
# Passing a CPU tensor whose storage holds bytes to a ``spawn`` child moves it to
# shared memory on the way, in the parent, without a call to ``share_memory_()``:
# ``is_shared()`` turns true on the tensor the parent holds, and the child's write
# comes back.
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
# With ``fork``, ``share_memory_()`` makes the difference
# -------------------------------------------------------
# A forked child is sent nothing: it starts as a copy of the parent. Its write into a
# tensor in ordinary memory stays in the child, while its write into a tensor moved
# to shared memory before the fork reaches the parent.
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
# Both processes use the same memory, that of ``x``: the child wrote into it, and
# the parent read the values drawn here after the child had ended.


# Drawing: two processes, one shared memory between them
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
ax.text(3.6, 0.02, f"is_shared() = {x.is_shared()}", ha="center", va="center")
ax.set(xlim=(-0.05, 7.25), ylim=(-0.25, 4.55))
ax.axis("off")
fig.tight_layout(pad=0.2)
plt.show()

# %%
# Use it when, use instead
# ------------------------
# * Use ``share_memory_()`` (or :meth:`~torch.nn.Module.share_memory` for a model) on a
#   CPU tensor that child processes are meant to write into, before you start them.
#   With ``fork``, it is what brings the child's writes back.
# * With ``spawn`` a tensor you pass is moved anyway, but the call says what you mean,
#   and ``is_shared()`` tells you whether PyTorch has moved it.
# * CUDA tensors need no move: ``share_memory_()`` leaves them where they are, and a
#   ``spawn`` child writes into the same GPU memory.
