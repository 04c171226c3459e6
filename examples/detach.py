"""
``Tensor.detach()``: same memory, out of the graph
==================================================

:meth:`torch.Tensor.detach` returns a tensor that shares memory and, for an ordinary
source, the version counter with it, but that autograd does not track: writes go
through, gradient does not.
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
# The detached tensor is the same memory
# --------------------------------------
# ``w.detach()`` is a new tensor over the memory of ``w``. It does not
# :attr:`~torch.Tensor.requires_grad`, has no ``grad_fn`` and counts as a leaf
# (:attr:`~torch.Tensor.is_leaf`).
w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
d = w.detach()
print(f"d is w: {d is w}, d shares memory with w: {shares_memory(d, w)}")
print(
    f"d.requires_grad={d.requires_grad}, d.is_leaf={d.is_leaf}, d.grad_fn={d.grad_fn}"
)
assert d is not w and shares_memory(d, w)
assert not d.requires_grad and d.is_leaf and d.grad_fn is None

# %%
# A write through ``d`` is a write into ``w``. Autograd allows it, because ``d`` does
# not require grad, yet ``w`` is a leaf that does. Both tensors share one version
# counter: the ``mul_`` through ``d`` bumps it for ``w`` as well. The other way round,
# ``d`` follows every later in-place write into the memory of ``w``.
before = w.detach().clone()
d.mul_(10)
print(f"w = {w}\nversion of w: {w._version}, version of d: {d._version}")
assert torch.equal(w.detach(), before * 10)
assert w._version == d._version == 1
with torch.no_grad():
    w.add_(0.5)  # an update such as an optimizer step
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
assert "modified by an inplace operation" in message and v.grad is None

# %%
# ``.data`` fails silently instead
# --------------------------------
# :attr:`~torch.Tensor.data` also shares storage, but with a version counter of its own.
# The same edit goes unnoticed, and backward returns the gradient at the *new* values,
# not at the values the loss was computed from.
u = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
right = 2 * u.detach().clone()  # d(sum(u * u))/du at the values the loss saw
loss = (u * u).sum()
u.data.mul_(10)
loss.backward()
print(f"version of u: {u._version}\ngradient: {u.grad}\ncorrect:  {right}")
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
print(f"w.clone().grad_fn is a {type(w.clone().grad_fn).__name__}")
print(f"w.detach().clone().grad_fn is {c.grad_fn}")
assert not shares_memory(c, w) and w[0].item() != c[0].item()
assert c.is_leaf and not c.requires_grad and c.grad_fn is None
assert type(w.clone().grad_fn).__name__ == "CloneBackward0"
assert torch.equal(w.clone().detach()[1:], c[1:])


# %%
# A picture of it
# ---------------
# Each tensor is drawn from the live tensors above, coloured by the memory it uses:
# ``w`` and ``d`` share one storage, the clone has a storage of its own.
def draw(ax, rows):
    palette = ["#cfe2f3", "#fce5cd", "#d9ead3"]
    drawn = []  # (tensor, colour) for each row drawn so far
    for row, (name, t) in enumerate(reversed(rows)):
        shared = [c for other, c in drawn if shares_memory(t, other)]
        colour = shared[0] if shared else palette[len(drawn)]
        drawn.append((t, colour))
        for i, value in enumerate(t.detach().cpu().tolist()):
            ax.add_patch(plt.Rectangle((i, row), 0.95, 0.8, fc=colour, ec="#444"))
            ax.text(i + 0.47, row + 0.4, f"{value:g}", ha="center", va="center")
        ax.text(-0.3, row + 0.4, name, ha="right", va="center")
        facts = f"requires_grad={t.requires_grad}\nis_leaf={t.is_leaf}"
        ax.text(3.2, row + 0.4, facts, ha="left", va="center", fontsize=9)
    return [colour for _, colour in reversed(drawn)]  # in the order of ``rows``


fig, ax = plt.subplots(figsize=(7, 2.6))
colours = draw(ax, [("w", w), ("d = w.detach()", d), ("c = w.detach().clone()", c)])
assert colours[0] == colours[1] != colours[2]  # w and d share memory, c does not
ax.set(xlim=(-3.4, 5.6), ylim=(-0.2, 2.9), title="detach() shares, clone() copies")
ax.text(1.5, -0.15, "one colour per storage", ha="center", va="top", fontsize=9)
ax.axis("off")
plt.show()

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
