"""
``Tensor.detach()``: same memory, out of the graph
==================================================

**detach() returns a new tensor over its source's memory that autograd does not
track: writes go through to the source, gradient does not.**
"""

# Setup: the device (TORCH_DEVICE, else CUDA if present, else the CPU), the
# test of shared memory, and the case grid
import contextlib
import os
from collections.abc import Callable

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


def state_cases(make: Callable[[], torch.Tensor]) -> dict[str, torch.Tensor]:
    """A tensor from ``make()`` (new floating-point memory) in each autograd state."""
    with torch.inference_mode():
        inference = make()
    return {
        "no grad": make(),
        "leaf": make().requires_grad_(),
        "non-leaf": make().requires_grad_() * 1,
        "view of a leaf": make().requires_grad_()[...],
        "detached": make().requires_grad_().detach(),
        "inference": inference,
    }


def grad_modes() -> dict[str, Callable[[], contextlib.AbstractContextManager]]:
    """Each grad mode, as a context manager to enter: {name: factory}."""
    return {
        "grad mode": contextlib.nullcontext,
        "no_grad": torch.no_grad,
        "inference_mode": torch.inference_mode,
    }


# %%
# The detached tensor is the same memory
# --------------------------------------
# **The result shares its source's memory, dtype and strides, whatever the
# dtype and layout. It is a leaf that does not require grad, whatever the
# source's autograd state and the grad mode.**
w = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
d = w.detach()
print(f"d is w: {d is w}, d shares memory with w: {shares_memory(d, w)}")
print(f"d.requires_grad={d.requires_grad}, d.is_leaf={d.is_leaf}")
print(f"d.grad_fn={d.grad_fn}")

# %%

# Checks: a new tensor over the same memory, with no autograd history, over
# every dtype kind and layout, every autograd state and grad mode
assert d is not w and shares_memory(d, w)
assert not d.requires_grad and d.is_leaf and d.grad_fn is None
grid = layout_cases(device)
for (kind, layout), source in grid.items():
    alias, before = source.detach(), source.tolist()
    same = (alias.dtype, alias.stride(), alias.storage_offset())
    assert same == (source.dtype, source.stride(), source.storage_offset())
    assert (alias.is_conj(), alias.is_neg()) == (
        source.is_conj(),
        source.is_neg(),
    )
    assert shares_memory(alias, source), (kind, layout)
    if alias.numel():  # one element: a write that repeats no position
        first = (0,) * alias.dim()
        alias[first] = not alias[first] if alias.dtype == torch.bool else 0
    assert source.tolist() == alias.tolist(), (kind, layout)
    assert source.numel() == 0 or source.tolist() != before, (kind, layout)
states = 0
for mode, enter in grad_modes().items():
    for state, source in state_cases(
        lambda: torch.ones(3, device=device)
    ).items():
        with enter():
            alias = source.detach()
        assert alias is not source and shares_memory(alias, source)
        assert alias.is_leaf and not alias.requires_grad, (mode, state)
        assert alias.grad_fn is None, (mode, state)
        states += 1
print(
    f"checked over {len(grid)} dtype kinds x layouts, {states} states x modes"
)

# %%
# A write through ``d`` is a write into ``w``. Autograd allows it, because
# ``d`` does not require grad, yet ``w`` is a leaf that does. Both tensors
# share one version counter: the ``mul_`` through ``d`` bumps it for ``w`` as
# well. An inference source has no version counter; its alias detached outside
# ``inference_mode`` gets a counter of its own.
before = w.detach().clone()
d.mul_(10)
print(f"w = {w}")
print(f"version of w: {w._version}, version of d: {d._version}")

# %%

# Checks: the write reached w, both versions moved; over every state
assert torch.equal(w.detach(), before * 10)
assert w._version == d._version == 1
for state, source in state_cases(lambda: torch.ones(3, device=device)).items():
    alias = source.detach()
    alias.mul_(2.0)  # accepted in every state, the inference one included
    assert torch.equal(source.detach(), torch.full_like(alias, 2.0)), state
    if state == "inference":
        try:
            source._version
        except RuntimeError as error:
            message = str(error)
        else:
            message = "an inference tensor with a version counter"
        assert "do not track version counter" in message
        # its alias, detached outside inference_mode, is an inference tensor
        # too, yet it counts versions: a counter of its own, not one shared
        assert alias.is_inference() and alias._version == 1, state
        alias.mul_(2.0)
        assert alias._version == 2 and shares_memory(alias, source)
        assert torch.equal(source, torch.full_like(source, 4.0))
        with torch.inference_mode():  # detached inside: no counter at all
            inner = source.detach()
        try:
            inner._version
        except RuntimeError as error:
            message = str(error)
        else:
            message = "a counter inside inference_mode"
        assert "do not track version counter" in message
    else:
        assert source._version == alias._version == 1, state

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
# **A write through a detached alias bumps the version counter it shares with
# its source, so a backward pass that saved the source refuses to run, unless
# a saved-tensor hook packed it.**
v = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
loss = (v * v).sum()  # saves v for its backward pass
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
# Under ``torch.autograd.graph.saved_tensors_hooks``, autograd keeps what
# the pack hook returns and compares no versions. Backward then runs on what
# the unpack hook gives back: with hooks that pass the tensor through, the
# same write yields a wrong gradient and no error.
hooks = torch.autograd.graph.saved_tensors_hooks
v = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
with hooks(lambda t: t, lambda t: t):  # pack, unpack: the tensor as it is
    loss = (v * v).sum()  # saves v, through the hooks
v.detach().mul_(10)
loss.backward()  # no error
print(f"v.grad = {v.grad}, correct: {2 * v.detach() / 10}")

# %%

# Checks: no refusal under hooks; the gradient read the written values
assert torch.equal(v.grad, 2 * v.detach())  # 20 * v where 2 * v was right
for pack in (lambda t: t, torch.clone):  # a clone packed keeps the old values
    v = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    with hooks(pack, lambda t: t):
        y = v.exp()  # saves its output, through the hooks
    alias = y.detach()
    alias.mul_(0.0)  # a write into y ...
    assert shares_memory(alias, y) and not y.any()  # ... that reached it
    y.sum().backward()  # runs, whatever the pack hook returned
    if pack is torch.clone:  # the right gradient, from the packed copy
        assert torch.allclose(v.grad, v.detach().exp())
    else:  # a wrong one, from the written values
        assert torch.equal(v.grad, torch.zeros(3, device=device))

# %%
# ``.data`` fails silently instead
# --------------------------------
# **.data shares the memory too, but with a version counter of its own: the
# same write goes unnoticed, and backward returns the gradient at the new
# values.**
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
# **detach().clone() gives new memory that autograd knows nothing about.
# Detach first: w.clone() would record a CloneBackward0 node only for
# detach() to throw it away.**
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
# **Two tensors, one storage: w and d read the same values.**
#
# Drawn from the live tensors above.

# Drawing: the one storage, and the two names that read it
# Alt: One row of boxes holding w's values; above it, w requires grad and d =
#   w.detach() does not; below it, the one storage's size in bytes, read by
#   both.
plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 2.6))
for i, value in enumerate(w.detach().cpu().tolist()):
    box = plt.Rectangle((i, 0), 0.95, 0.9, fc="#cfe2f3", ec="#1f4e79", lw=2)
    ax.add_patch(box)
    ax.text(i + 0.475, 0.45, f"{value:g}", ha="center", va="center", size=18)
tags = [f"{n}: {'requires' if t.requires_grad else 'no'} grad" for n, t in
        (("w", w), ("d = w.detach()", d))]  # fmt: skip
ax.text(0, 1.05, "\n".join(tags), va="bottom")
nbytes = w.untyped_storage().nbytes()
ax.text(0, -0.15, f"one storage, {nbytes} bytes, read by both", va="top")
ax.set(xlim=(-0.1, 3), ylim=(-0.7, 2.1))
ax.axis("off")
plt.show()

# %%

# Checks: the one storage drawn is that of w and d, and not the clone's
assert shares_memory(w, d) and not shares_memory(c, w)
assert not shares_memory(c, d)

# %%
# Use it when, use instead
# ------------------------
# **Use detach() to read values without gradient. To keep or edit them, take
# detach().clone(); to keep gradient flowing, clone(). Never use .data.**
#
# * ``detach()``: logging, metrics, a target that must not be trained, or
#   ``t.detach().cpu().numpy()`` for NumPy. It follows later in-place updates
#   of its source; ``.item()`` keeps the value of a one-element tensor.
# * Never write into a detached alias of a tensor that backward still needs.
# * ``.data`` hides the write from the version counter, so the wrong gradient
#   arrives without an error.
