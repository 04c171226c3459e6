"""
``share_memory_``: one tensor, two processes
============================================

:meth:`torch.Tensor.share_memory_` moves a CPU tensor's storage into shared
memory in place, so that a child process that writes into the tensor writes
into the parent's memory.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU. ``run_child`` starts a child process that runs one
# function, here a method of :class:`torch.Tensor`, waits for it and checks that it
# succeeded.
import os
import sys
import types

import matplotlib.pyplot as plt
import torch
import torch.multiprocessing as mp

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
assert not host.is_shared()
assert host.share_memory_() is host
moved = host.untyped_storage().data_ptr() != address
print(f"is_shared() {host.is_shared()}, address changed {moved}")
assert host.is_shared() and moved
assert storage.data_ptr() == host.untyped_storage().data_ptr()  # same storage
assert host.tolist() == [0.0, 1.0, 2.0, 3.0]
assert shares_memory(view, host)
view[0] = -1.0
assert host[1].item() == -1.0

# %%
# A CUDA tensor is shared as it is: ``is_shared()`` is true from the start, and
# ``share_memory_()`` leaves its memory where it was.
if device.type == "cuda":
    on_gpu = torch.arange(4.0, device=device)
    address = on_gpu.untyped_storage().data_ptr()
    assert on_gpu.is_shared() and on_gpu.share_memory_() is on_gpu
    assert on_gpu.untyped_storage().data_ptr() == address
    print("CUDA: shared from the start, memory left in place")
else:
    print("skipped: the CUDA case needs a GPU; this run is on the CPU")

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
assert x.tolist() == written.tolist()
assert x.untyped_storage().data_ptr() == address

# %%
# With ``spawn``, sending is enough
# ---------------------------------
# Passing a CPU tensor whose storage holds bytes to a ``spawn`` child moves it to
# shared memory on the way, in the parent, without a call to ``share_memory_()``:
# ``is_shared()`` turns true on the tensor the parent holds, and the child's write
# comes back.
sent = torch.zeros(4)
assert not sent.is_shared()
run_child("spawn", torch.Tensor.copy_, sent, written)
print(f"sent: is_shared() {sent.is_shared()}, values {sent.tolist()}")
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
print(f"private {private.tolist()}, shared {shared.tolist()}")
assert not private.is_shared() and private.tolist() == [0.0] * 4
assert shared.tolist() == [7.0] * 4


# %%
# A picture of it
# ---------------
# Both processes use the same memory, that of ``x``: the child wrote into it, and the
# parent read the values drawn here after the child had ended.
def process_box(ax, left, title, lines):
    box = plt.Rectangle((left, 3), 3.8, 2.2, fc="#fdf2d0", ec="#7f6000", lw=2)
    ax.add_patch(box)
    ax.text(left + 1.9, 4.7, title, ha="center", va="center", fontsize=20)
    code = "\n".join(lines)
    ax.text(left + 1.9, 3.7, code, ha="center", va="center", fontsize=14)


fig, ax = plt.subplots(figsize=(9, 6))
process_box(ax, 0, "parent", ["x = torch.zeros(4)", "x.share_memory_()"])
process_box(ax, 5.2, "child (spawn)", ["x.copy_(written)"])
for i, value in enumerate(x.tolist()):
    cell = plt.Rectangle((2.5 + i, 0), 0.95, 1.1, fc="#cfe2f3", ec="#1f4e79")
    ax.add_patch(cell)
    ax.text(2.97 + i, 0.55, f"{value:g}", ha="center", va="center", size=20)
for start, label, shift in ((1.9, "reads", -0.8), (7.1, "writes", 0.8)):
    arrow = {"arrowstyle": "->", "lw": 2.5}
    ax.annotate("", xy=(4.5, 1.2), xytext=(start, 2.95), arrowprops=arrow)
    middle = (start + 4.5) / 2 + shift
    ax.text(middle, 1.9, label, ha="center", fontsize=15, style="italic")
memory = f"the same memory, is_shared() = {x.is_shared()}"
ax.text(4.5, -0.5, memory, ha="center", fontsize=15)
ax.set(xlim=(-0.2, 9.2), ylim=(-0.9, 5.3))
ax.set_title("share_memory_(): one tensor, two processes", fontsize=18)
ax.axis("off")
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
