"""
``Tensor.new_tensor(data)``: always a copy, typed like its caller
=================================================================

:meth:`torch.Tensor.new_tensor` always copies ``data`` into a new leaf tensor that takes
its dtype and device from the tensor it is called on, not from ``data``, unless
``dtype=`` or ``device=`` says otherwise.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU.
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
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
# The caller decides dtype and device
# -----------------------------------
# ``base`` stands for a tensor of your model: ``float32`` on the run's device. Python
# integers and a float64 array handed to ``base.new_tensor`` both land there as
# ``float32``; :func:`torch.tensor` infers the type from the data and puts it on the
# default device, the CPU unless :func:`torch.set_default_device` changed it (a CUDA
# run prints the difference). ``dtype=`` overrides the caller.
base = torch.zeros(2, device=device)
arr = np.array([0.25, 0.5, 0.75])  # float64, NumPy's default
for data, inferred in (([1, 2, 3], torch.int64), (arr, torch.float64)):
    a, b = base.new_tensor(data), torch.tensor(data)
    print(f"new_tensor: {a.dtype} on {a.device}; torch.tensor: {b.dtype} on {b.device}")
    assert (a.dtype, a.device) == (torch.float32, base.device)
    assert b.dtype == inferred and b.device == torch.get_default_device()
assert base.new_tensor(arr, dtype=torch.float64).dtype == torch.float64

# %%
# The data is always copied, even when nothing needs converting: the result has storage
# of its own, and a later write into the array does not reach it.
# :func:`torch.as_tensor` shares the array's memory when it can: on a CPU run the write
# shows through it, while a CUDA run needs a copy on the GPU and keeps the old value.
same = np.array([0.25, 0.5, 0.75], dtype=np.float32)  # already the dtype of base
t, shared = base.new_tensor(same), torch.as_tensor(same, device=device)
same[0] = -1.0
print(f"same = {same}\nnew_tensor: {t}\nas_tensor:  {shared}")
assert not shares_memory(t, torch.from_numpy(same)) and t[0].item() != same[0]
assert (shared[0].item() == same[0]) == (device.type == "cpu")

# %%
# Passing a tensor: a copy, a leaf, and a warning
# -----------------------------------------------
# Given a tensor, ``new_tensor`` still copies, even when nothing needs converting
# (:func:`torch.as_tensor` would hand back the very same tensor), and the copy leaves
# the graph: a leaf that does not require grad. PyTorch warns that there is a clearer
# way to say this.
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    n = base.new_tensor(x)
assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
print(f"{caught[0].category.__name__}: {caught[0].message}")
print(f"n.is_leaf={n.is_leaf}, n.requires_grad={n.requires_grad}")
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
print(f"m.grad={m.grad}, x.grad={x.grad}")
assert m.is_leaf and torch.equal(m.grad, torch.full_like(m, 3.0)) and x.grad is None

# %%
# What to write instead
# ---------------------
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
assert len(caught) == 1 and "rather than torch.tensor(" in str(caught[0].message)
print(f"{caught[0].category.__name__}: {caught[0].message}")
assert "sourceTensor.detach().clone()" in str(caught[0].message)
for alt in (c, like_base):
    assert not shares_memory(alt, x) and torch.equal(alt, n)
    assert alt.is_leaf and not alt.requires_grad
assert (like_base.dtype, like_base.device) == (n.dtype, n.device)
x64 = x.detach().double()
assert (
    x64.to(base, copy=True).dtype == base.new_tensor(x64.tolist()).dtype == base.dtype
)
assert x64.to(base, copy=True).device == base.device

# %%
# A picture of it
# ---------------
# The tensors above, coloured by the memory they use: only ``x.detach()`` shares memory
# with ``x``. ``x`` is shown after the write below, which none of the copies see.
with torch.no_grad():
    x[0] = 10.0
rows = [("x", x), ("x.detach()", x.detach()), ("base.new_tensor(x)", n)]
rows += [("x.detach().clone()", c)]
palette = ["#cfe2f3", "#fce5cd", "#d9ead3", "#ead1dc"]
drawn = []  # (tensor, colour) for each row drawn so far
fig, ax = plt.subplots(figsize=(7, 3))
for row, (name, t) in enumerate(reversed(rows)):
    shared = [c for other, c in drawn if shares_memory(t, other)]
    colour = shared[0] if shared else palette[len(drawn)]
    drawn.append((t, colour))
    for i, value in enumerate(t.detach().cpu().tolist()):
        ax.add_patch(plt.Rectangle((i, row), 0.95, 0.8, fc=colour, ec="#444"))
        ax.text(i + 0.47, row + 0.4, f"{value:g}", ha="center", va="center")
    ax.text(-0.3, row + 0.4, name, ha="right", va="center")
    ax.text(3.2, row + 0.4, f"requires_grad={t.requires_grad}", va="center")
ax.set(xlim=(-3.6, 5.6), ylim=(-0.2, 4), title="new_tensor() copies, detach() shares")
ax.axis("off")
plt.show()
assert x[0].item() != n[0].item() == c[0].item()
assert len({colour for _, colour in drawn}) == 3  # x and x.detach() share one

# %%
# Use it when, use instead
# ------------------------
# * Use ``new_tensor`` to build a tensor from Python or NumPy data that must match the
#   dtype and device of a tensor you already have, e.g. constants inside a model.
# * To copy a tensor, write ``x.detach().clone()``, plus
#   :meth:`~torch.Tensor.requires_grad_` if the copy is to be trained; to convert it as
#   well, ``x.detach().to(base, copy=True)``.
# * To share memory with NumPy data instead of copying it, use :func:`torch.from_numpy`,
#   or :func:`torch.as_tensor` when the dtype and device already match.
