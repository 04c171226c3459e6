"""
``Tensor.detach()``: same memory, out of the graph
==================================================

A write through the result lands in the source, and for an ordinary source both
share one version counter, yet autograd does not track the result: writes go
through, gradient does not.
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
# The detached tensor is the same memory
# --------------------------------------
# ``w.detach()`` is a new tensor over the memory of ``w``. Its
# :attr:`~torch.Tensor.requires_grad` is ``False``, it has no ``grad_fn`` and it
# counts as a leaf (:attr:`~torch.Tensor.is_leaf`).
w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
d = w.detach()
print(f"d is w: {d is w}, d shares memory with w: {shares_memory(d, w)}")
print(f"d.requires_grad={d.requires_grad}, d.is_leaf={d.is_leaf}")
print(f"d.grad_fn={d.grad_fn}")

# %%

# Checks: a new tensor over the same memory, with no autograd history
assert d is not w and shares_memory(d, w)
assert not d.requires_grad and d.is_leaf and d.grad_fn is None

# %%
# A write through ``d`` is a write into ``w``. Autograd allows it, because ``d`` does
# not require grad, yet ``w`` is a leaf that does. Both tensors share one version
# counter: the ``mul_`` through ``d`` bumps it for ``w`` as well.
before = w.detach().clone()
d.mul_(10)
print(f"w = {w}")
print(f"version of w: {w._version}, version of d: {d._version}")

# %%

# Checks: the write reached w, and both versions moved
assert torch.equal(w.detach(), before * 10)
assert w._version == d._version == 1

# %%
# The other way round, ``d`` follows a later in-place write into the memory of
# ``w``.
with torch.no_grad():
    w.add_(0.5)  # an update such as an optimizer step
print(f"d = {d}, version of d: {d._version}")

# %%

# Checks: d sees the update and its version
assert torch.equal(d, before * 10 + 0.5) and d._version == 2

# %%
# Writing into a detached alias breaks backward
# ---------------------------------------------
# ``(v * v).sum()`` saves ``v`` for its backward pass. Changing ``v`` through a detached
# alias afterwards bumps the shared version counter, and ``backward()`` refuses to
# compute the gradient, because the version it saved has moved.
v = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
loss = (v * v).sum()
v.detach().mul_(10)
try:
    loss.backward()
except RuntimeError as error:
    message = str(error)
    print(f"RuntimeError: {message}")
else:
    message = ""
print(f"v.grad = {v.grad}")

# %%

# Checks: backward refused, and no gradient arrived
assert "modified by an inplace operation" in message and v.grad is None

# %%
# ``.data`` fails silently instead
# --------------------------------
# :attr:`~torch.Tensor.data` also shares storage, but with a version counter of its own.
# The same edit goes unnoticed, and backward returns the gradient at the *new* values,
# not at the values the loss was computed from.
u = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
right = 2 * u.detach().clone()  # d(sum(u * u))/du where the loss was
loss = (u * u).sum()
u.data.mul_(10)
loss.backward()
print(f"version of u: {u._version}")
print(f"gradient: {u.grad}\ncorrect:  {right}")

# %%

# Checks: shared storage, unchanged version, gradient at the new values
assert u._version == 0 and shares_memory(u.data, u)
assert torch.equal(u.grad, 2 * u.detach()) and not torch.equal(u.grad, right)

# %%
# An independent copy: ``detach().clone()``
# -----------------------------------------
# Cloning the detached tensor gives new memory that autograd knows nothing about: a
# write into it leaves ``w`` alone. Detach *first*: ``w.clone()`` would record a
# ``CloneBackward0`` node for autograd, only for ``detach()`` to throw it away.
c = w.detach().clone()
c[0] = -1.0
print(f"w = {w}\nc = {c}")
print(f"c shares memory with w: {shares_memory(c, w)}")
print(f"w.clone().grad_fn is a {type(w.clone().grad_fn).__name__}")
print(f"w.detach().clone().grad_fn is {c.grad_fn}")

# %%

# Checks: the copy owns its memory and is outside the graph
assert not shares_memory(c, w) and w[0].item() != c[0].item()
assert c.is_leaf and not c.requires_grad and c.grad_fn is None
assert type(w.clone().grad_fn).__name__ == "CloneBackward0"
assert torch.equal(w.clone().detach()[1:], c[1:])


# %%
# A picture of it
# ---------------
# Drawn from the live tensors above: two tensors, ``w`` and ``d``, over one storage,
# whose values are the ones both of them read.

# Drawing: two name tags, arrows into the one storage they share
plt.rcParams["font.size"] = 13
fig = plt.figure(figsize=(5, 3.5))
ax = fig.add_axes((0, 0, 1, 1), xlim=(0, 5), ylim=(0, 3.5))  # 1 unit = 1 inch
ax.axis("off")
tags = [
    (1.25, "w", w, "#fce5cd", "#b45f06"),
    (3.75, "d = w.detach()", d, "#d9ead3", "#38761d"),
]
cells = w.detach().cpu().tolist()
cell_w, left, bottom, top = 1.2, 2.5 - 0.6 * len(cells), 0.55, 1.45
for x, name, t, fill, edge in tags:
    grad = "requires grad" if t.requires_grad else "no grad"
    ax.add_patch(
        plt.Rectangle((x - 1.1, 2.45), 2.2, 0.95, fc=fill, ec=edge, lw=2)
    )
    ax.text(x, 2.92, f"{name}\n{grad}", ha="center", va="center", size=16)
    end = 2.5 + (x - 2.5) * 0.45  # a point on the storage's top edge
    ax.annotate(
        "",
        (end, top),
        (x, 2.45),
        arrowprops={"arrowstyle": "-|>", "lw": 2, "color": edge},
    )
for i, value in enumerate(cells):
    ax.add_patch(
        plt.Rectangle(
            (left + i * cell_w, bottom),
            cell_w,
            top - bottom,
            fc="#cfe2f3",
            ec="#1f4e79",
            lw=2,
        )
    )
    ax.text(
        left + (i + 0.5) * cell_w,
        1.0,
        f"{value:g}",
        ha="center",
        va="center",
        size=20,
    )
nbytes = w.untyped_storage().nbytes()
ax.text(2.5, 0.27, f"one storage, {nbytes} bytes", ha="center", size=16)
plt.show()

# %%

# Checks: the one storage drawn is that of w and d, and not the clone's
assert shares_memory(w, d) and not shares_memory(c, w)
assert not shares_memory(c, d)

# %%
# Use it when, use instead
# ------------------------
# * Use ``detach()`` to read values without gradient: logging, metrics, a target that
#   must not be trained, or ``t.detach().cpu().numpy()`` for NumPy. It follows later
#   in-place updates of its source; to keep a value, take ``detach().clone()``, or
#   ``.item()`` for a tensor of one element.
# * Never write into a detached alias of a tensor that backward still needs. To edit
#   the values, take ``detach().clone()``; to keep gradient flowing, use
#   :meth:`~torch.Tensor.clone`.
# * Do not use ``.data``: it hides the write from the version counter, so the wrong
#   gradient arrives without an error.
