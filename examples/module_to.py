"""
``Module.to`` versus ``Tensor.to``: in place or new
===================================================

A module is converted where it stands and handed back as the very same object; a
tensor is left alone, and what comes back is a new tensor when the dtype or the
device changes, the same tensor when nothing does.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU.

# Setup: the device, and a test of whether two tensors share memory
import copy
import os

import matplotlib.pyplot as plt
import torch
from torch import nn

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
# ``Module.to`` returns the module itself
# ---------------------------------------
# Casting a module converts its floating-point parameters and hands back the very
# object you called it on, so ``model = model.to(...)`` only reassigns the same module.
# With the default settings, each parameter stays the same
# :class:`~torch.nn.Parameter` object too: PyTorch puts the converted data inside it.
model = nn.Linear(3, 2).to(device)
weight = model.weight
params = dict(model.named_parameters())
result = model.to(torch.float64)
print(f"result is model: {result is model}")
print(f"model.weight is weight: {model.weight is weight}")
print(f"weight.dtype: {weight.dtype}")

# %%

# Checks: the default settings; the same module and Parameters, converted
future = torch.__future__  # neither switch is on by default
assert not future.get_overwrite_module_params_on_conversion()
assert not future.get_swap_module_params_on_conversion()
assert result is model
for name, param in model.named_parameters():  # the weight and the bias
    assert param is params[name] and param.dtype == torch.float64, name

# %%
# To keep the module as it was, convert a copy made with :func:`copy.deepcopy`.
twin = copy.deepcopy(model).to(torch.float32)
print(f"twin: {twin.weight.dtype}, model: {model.weight.dtype}")

# %%

# Checks: the copy converted, the original untouched
assert twin is not model and twin.weight.dtype == torch.float32
assert model.weight.dtype == torch.float64

# %%
# ``Tensor.to`` returns a new tensor when the dtype or device changes
# -------------------------------------------------------------------
# ``to()`` does not change ``t``. Asked for another dtype, it returns a new
# tensor in new memory, and ``t`` keeps its dtype and its values.
t = torch.arange(3.0, device=device)
new = t.to(torch.float64)
print(f"t: {t.dtype}, new: {new.dtype}, new is t: {new is t}")
print(f"new shares memory with t: {shares_memory(new, t)}")
new[0] = 10.0
print(f"after new[0] = 10.0: t = {t}")

# %%

# Checks: a new tensor in new memory; t keeps its dtype and values
assert new is not t and not shares_memory(new, t)
assert t.dtype == torch.float32
assert t[0].item() == 0.0  # the write into the new tensor stays there
assert torch.equal(t, torch.arange(3.0, device=device))

# %%
# ... and the same tensor when nothing changes
# ---------------------------------------------
# Asked for the dtype and device it already has, ``to()`` returns ``t`` itself: no
# copy, so a write through the result is a write into ``t``. Pass ``copy=True``, or
# call ``clone()``, to get a copy all the same.
same = t.to(torch.float32)
print(f"t.to(torch.float32) is t: {same is t}")
print(f"t.to(device) is t: {t.to(device) is t}")
same[1] = 20.0
print(f"after same[1] = 20.0: t = {t}")
forced = t.to(torch.float32, copy=True)
print(f"copy=True: shares memory with t: {shares_memory(forced, t)}")
print(f"clone(): shares memory with t: {shares_memory(t.clone(), t)}")

# %%

# Checks: t itself, unless copy=True or clone() asks for a copy
assert same is t and t.to(device) is t and shares_memory(same, t)
assert t[1].item() == 20.0
assert forced is not t and not shares_memory(forced, t)
assert not shares_memory(t.clone(), t)

# %%
# The forgotten reassignment
# --------------------------
# Because a module changes in place, ``model.to(...)`` on a line of its own works.
# The same line for a tensor throws the converted tensor away: ``batch`` stays as it
# was, and the float64 model refuses it. Keep the result: ``batch = batch.to(...)``.
batch = torch.ones(4, 3, device=device)
batch.to(torch.float64)  # the result is lost
print(f"batch is still {batch.dtype}")
try:
    model(batch)
    refused = ""
except RuntimeError as error:
    refused = str(error)
    print(f"RuntimeError: {refused}")

# %%

# Checks: the result was lost, and the model refused the batch
assert batch.dtype == torch.float32
assert refused, "a float64 model should refuse a float32 batch"

# %%
# With the result kept, the model takes the batch.
batch = batch.to(torch.float64)
print(f"model(batch) is {model(batch).dtype}")

# %%

# Checks: the kept result works
assert model(batch).dtype == torch.float64

# %%
# The same with devices: after ``host.to("cuda")``, the CPU tensor ``host`` stays on
# the CPU unless the result is kept, while the module moves.
if device.type == "cuda":
    host_model, host = nn.Linear(3, 2), torch.ones(4, 3)
    host_weight = host_model.weight
    host.to(device)  # the result is lost
    moved = host_model.to(device)
    print(f"moved is host_model: {moved is host_model}")
    print(f"its weight is on {host_weight.device}; host is on {host.device}")
    print(f"kept this time: {host.to(device).device}")
else:
    print("skipped on the CPU: moving to a GPU needs a GPU")

# %%

# Checks: on CUDA, the module moved in place and the tensor did not
if device.type == "cuda":
    assert moved is host_model and host_model.weight is host_weight
    assert host_weight.is_cuda and not host.is_cuda
    assert host.to(device).is_cuda  # kept this time


# %%
# A picture of it
# ---------------
# Each name points at the object it refers to, found with ``is`` from the live objects
# above: ``model.to(float64)`` is ``model``; ``t.to(float32)`` is ``t``, while
# ``t.to(float64)`` is a second tensor.


# Drawing: an arrow from each name to the object it names
def describe(obj):
    """A label for a module or a tensor: float64, not torch.float64."""
    if isinstance(obj, nn.Module):
        dtype = str(obj.weight.dtype).removeprefix("torch.")
        return f"{type(obj).__name__}, {dtype}"
    return f"tensor, {str(obj.dtype).removeprefix('torch.')}"


ARROW = {"arrowstyle": "-|>", "lw": 2.2, "color": "#333"}
FILLS = [("#cfe2f3", "#1f4e79"), ("#fce5cd", "#b45f06")]


def draw_names(ax, top, heading, names):
    """Under a heading, an arrow from each name to its object; count objects."""
    ax.text(0.1, top, heading, va="center", size=15, weight="bold")
    objects = []
    for obj in names.values():
        if not any(obj is seen for seen in objects):
            objects.append(obj)
    rows = {name: top - 0.47 * (i + 1) for i, name in enumerate(names)}
    for k, obj in enumerate(objects):
        ys = [rows[name] for name, o in names.items() if o is obj]
        low, high = min(ys) - 0.2, max(ys) + 0.2
        fill, edge = FILLS[k]
        ax.add_patch(
            plt.Rectangle((3.0, low), 1.9, high - low, fc=fill, ec=edge, lw=2)
        )
        ax.text(
            3.95,
            (low + high) / 2,
            describe(obj),
            ha="center",
            va="center",
            size=14,
        )
        for y in ys:
            ax.annotate("", (3.0, y), (2.5, y), arrowprops=ARROW)
    for name, y in rows.items():
        ax.text(
            2.4, y, name, ha="right", va="center", size=14, family="monospace"
        )
    return len(objects)


plt.rcParams["font.size"] = 13
fig = plt.figure(figsize=(5, 3.5))
ax = fig.add_axes((0, 0, 1, 1), xlim=(0, 5), ylim=(0, 3.5))  # 1 unit = 1 inch
ax.axis("off")
module_names = {"model": model, "model.to(float64)": result}
tensor_names = {"t": t, "t.to(float32)": same, "t.to(float64)": new}
objects_drawn = [
    draw_names(ax, 3.25, "Module.to: the same module", module_names),
    draw_names(ax, 1.8, "Tensor.to: new if the dtype changes", tensor_names),
]
plt.show()

# %%

# Checks: one object on the module side, two on the tensor side
assert objects_drawn[0] == 1  # model.to(float64) is model
assert objects_drawn[1] == 2  # t.to(float32) is t; t.to(float64) is not

# %%
# Use it when, use instead
# ------------------------
# * ``model.to(device)`` and ``model.double()`` work on their own line; reassigning
#   the result is harmless.
# * For a tensor, always keep the result: ``x = x.to(device)``. Code that forgets it
#   still runs when the tensor already has the dtype and device asked for.
# * Need a copy even when nothing changes? ``t.to(..., copy=True)`` or ``clone()``.
# * For a converted copy of a module, convert ``copy.deepcopy(model)``: ``to()`` will
#   not make one.
