"""
A custom Function that writes its input: ``ctx.mark_dirty``
============================================================

**A custom autograd Function that writes into an input must mark it with
ctx.mark_dirty and return it. Autograd then moves the input to its new place
in the graph; without it, gradients go wrong.**
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
# Marked dirty: the input itself comes back, rewritten
# ----------------------------------------------------
# **With ctx.mark_dirty(x), apply() returns x itself. Its grad_fn becomes the
# Function's backward, so every later use of x reads the doubled values, and
# its gradient says so.**
#
# That holds while autograd records. With recording off, an input that
# requires grad comes back as a detached alias instead: the same memory and
# version counter, no gradient.
#
# ``x`` is a non-leaf, ``w * 1``. The loss adds the output and ``10 * x``,
# both read after the write: it is ``2w + 20w``, so its gradient is 22.
class TimesTwo(torch.autograd.Function):
    """Double ``x`` in place, and say so."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x = w * 1
y = TimesTwo.apply(x)
print(f"y is x: {y is x}, x.grad_fn: {type(x.grad_fn).__name__}")
(y.sum() + (x * 10).sum()).backward()
marked = w.grad.clone()
print(f"w.grad = {marked}")

# %%

# Checks: the input returned and rewritten; the right gradient; every
# autograd state and grad mode
assert y is x and type(x.grad_fn).__name__ == "TimesTwoBackward"
assert torch.equal(marked, torch.full_like(marked, 22.0))
for mode, enter in grad_modes().items():
    for state, t in state_cases(lambda: torch.ones(2, device=device)).items():
        if state == "inference" and mode != "inference_mode":
            continue  # refuses any in-place write outside inference mode
        try:
            with enter():
                out = TimesTwo.apply(t)
        except RuntimeError as error:  # a leaf refuses, while recording
            refusal = str(error)
        else:
            refusal = None
        if refusal is not None:
            assert mode == "grad mode" and "leaf" in state, (mode, state)
            assert "leaf Variable that requires grad" in refusal
            continue
        assert torch.equal(t, torch.full_like(t, 2.0)), (mode, state)
        recording = mode == "grad mode" and t.requires_grad
        if t.requires_grad and not recording:  # a detached alias comes back
            assert out is not t and shares_memory(out, t), (mode, state)
            assert not out.requires_grad and out._version == t._version
        else:  # the input itself
            assert out is t, (mode, state)


# %%
# Forgotten: a view comes back, and the gradient is wrong
# -------------------------------------------------------
# **Without mark_dirty, the write lands, but apply() returns a new view of x,
# and x keeps its old grad_fn: later uses of x get the old values' gradient,
# silently.**
class Forgetful(torch.autograd.Function):
    """Double ``x`` in place, and do not say so."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


w = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
x = w * 1
y = Forgetful.apply(x)
print(f"y is x: {y is x}, y is a view of x: {y._base is x}")
print(f"x.grad_fn: {type(x.grad_fn).__name__}")
(y.sum() + (x * 10).sum()).backward()
forgotten = w.grad.clone()
print(f"w.grad = {forgotten}, though the loss is 22 * w")

# %%

# Checks: a view over x's memory, x not rewritten, the gradient 12, not 22
assert y is not x and y._base is x and shares_memory(y, x)
assert type(x.grad_fn).__name__ == "MulBackward0"
assert torch.equal(forgotten, torch.full_like(forgotten, 12.0))

# %%
# Even a leaf that requires grad is written, with no error. The version
# counter still moved, so a tensor that another operation saved is caught.
leaf = torch.ones(2, device=device, requires_grad=True)
Forgetful.apply(leaf)
print(f"the leaf after Forgetful: {leaf}")
saved = torch.tensor([1.0, 2.0], device=device, requires_grad=True).exp()
try:
    Forgetful.apply(saved).sum().backward()  # exp saved its output
except RuntimeError as error:
    caught = str(error)
    print(f"RuntimeError: {caught[:70]}...")
else:
    caught = ""

# %%

# Checks: the leaf written; the saved output's write caught
assert leaf.is_leaf and torch.equal(leaf.detach(), torch.full_like(leaf, 2.0))
assert "modified by an inplace operation" in caught

# %%
# A picture of it
# ---------------
# **Marked, the gradient is that of the values the loss read; forgotten, it is
# that of the values before the write.**
#
# Drawn from the gradients computed above.

# Drawing: the gradient of the first element, both ways
# Alt: Two bars of w.grad[0]: with mark_dirty it is 22, the right gradient;
#   with mark_dirty forgotten it is lower, and wrong.
plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3))
names = ["mark_dirty", "forgotten"]
values = [marked[0].item(), forgotten[0].item()]
ax.bar(names, values, color=["#6aa84f", "#cc4125"])
for i, value in enumerate(values):
    ax.text(i, value + 0.5, f"{value:g}", ha="center")
ax.set_ylabel("w.grad[0]")
ax.set_ylim(0, 26)
ax.set_title("loss = 22 w: the right gradient is 22")
plt.show()

# %%

# Checks: the bars are the two gradients, and only the marked one is right
assert values == [22.0, 12.0]

# %%
# Use it when, use instead
# ------------------------
# **Call ctx.mark_dirty on every input forward writes in place, and return it.
# If you need the old values too, write into a clone instead.**
#
# * Mark only inputs: a new tensor needs no call, and marking one warns.
# * Never write into an input without marking it: the gradient of every later
#   use of that input is then computed from the values before the write.
# * To avoid the question, compute out of place and return a new tensor.
