"""
``Module.to`` versus ``Tensor.to``: in place or new
===================================================

:meth:`torch.nn.Module.to` converts the module in place and returns the module itself;
:meth:`torch.Tensor.to` leaves its tensor alone and returns a tensor: a new one when
the dtype or the device changes, the very same one when nothing does.
"""

# %%
# Setup
# -----
# The script runs on the device named by ``TORCH_DEVICE``, else on CUDA when a GPU is
# available, else on the CPU.
import copy
import os

import matplotlib.pyplot as plt
import torch
from torch import nn

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
# ``Module.to`` returns the module itself
# ---------------------------------------
# Casting a module converts its floating-point parameters and hands back the very
# object you called it on, so ``model = model.to(...)`` only reassigns the same module.
# With the default settings, each parameter stays the same
# :class:`~torch.nn.Parameter` object too: PyTorch puts the converted data inside it.
# To keep the module as it was, convert a copy made with :func:`copy.deepcopy`.
future = torch.__future__  # the default settings: neither switch is on
assert not future.get_overwrite_module_params_on_conversion()
assert not future.get_swap_module_params_on_conversion()
model = nn.Linear(3, 2).to(device)
weight = model.weight
params = dict(model.named_parameters())
result = model.to(torch.float64)
print(f"result is model: {result is model}")
print(f"model.weight is weight: {model.weight is weight}, dtype {weight.dtype}")
assert result is model
for name, param in model.named_parameters():  # the weight and the bias
    assert param is params[name] and param.dtype == torch.float64, name
twin = copy.deepcopy(model).to(torch.float32)
assert twin is not model and twin.weight.dtype == torch.float32
assert model.weight.dtype == torch.float64  # the original is untouched

# %%
# ``Tensor.to`` returns a new tensor when the dtype or device changes
# -------------------------------------------------------------------
# ``to()`` does not change ``t``. Asked for another dtype, it returns a new
# tensor in new memory, and ``t`` keeps its dtype and its values.
t = torch.arange(3.0, device=device)
new = t.to(torch.float64)
print(f"t: {t.dtype}, new: {new.dtype}, new is t: {new is t}")
assert new is not t and not shares_memory(new, t)
assert t.dtype == torch.float32
new[0] = 10.0
assert t[0].item() == 0.0  # the write into the new tensor stays there
assert torch.equal(t, torch.arange(3.0, device=device))  # t keeps its values

# %%
# ... and the same tensor when nothing changes
# ---------------------------------------------
# Asked for the dtype and device it already has, ``to()`` returns ``t`` itself: no
# copy, so a write through the result is a write into ``t``. Pass ``copy=True``, or
# call ``clone()``, to get a copy all the same.
same = t.to(torch.float32)
print(f"t.to(torch.float32) is t: {same is t}, t.to(device) is t: {t.to(device) is t}")
assert same is t and t.to(device) is t and shares_memory(same, t)
same[1] = 20.0
assert t[1].item() == 20.0
forced = t.to(torch.float32, copy=True)
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
assert batch.dtype == torch.float32
try:
    model(batch)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
else:
    raise AssertionError("a float64 model should refuse a float32 batch")
batch = batch.to(torch.float64)
assert model(batch).dtype == torch.float64

# %%
# The same with devices: after ``host.to("cuda")``, the CPU tensor ``host`` stays on
# the CPU unless the result is kept, while the module moves.
if device.type == "cuda":
    host_model, host = nn.Linear(3, 2), torch.ones(4, 3)
    host_weight = host_model.weight
    host.to(device)  # the result is lost
    assert host_model.to(device) is host_model and host_model.weight is host_weight
    assert host_weight.is_cuda and not host.is_cuda
    assert host.to(device).is_cuda  # kept this time
    print("checked on CUDA: the module moved in place, the tensor did not")
else:
    print("skipped on the CPU: moving to a GPU needs a GPU")


# %%
# A picture of it
# ---------------
# Each name points at the object it refers to, found with ``is`` from the live objects
# above. On the left, ``to()`` handed back the module, holding the same parameter; on
# the right, the tensor that changed dtype is a second object, and the one that did
# not is ``t`` itself.
def describe(obj):
    """A label for a module, a parameter or a tensor."""
    if isinstance(obj, nn.Module):
        return f"{type(obj).__name__} module\nweight {str(obj.weight.dtype)[6:]}"
    kind = "Parameter" if isinstance(obj, nn.Parameter) else "tensor"
    return f"{kind}\n{str(obj.dtype)[6:]}"  # float64, not torch.float64


ARROW = {"arrowstyle": "-|>", "lw": 2.2, "color": "#333"}


def draw_names(ax, title, names):
    """Draw an arrow from each name to its object; return how many objects there are."""
    objects = []
    for obj in names.values():
        if not any(obj is seen for seen in objects):
            objects.append(obj)
    rows = {name: len(names) - 1 - i for i, name in enumerate(names)}
    for k, obj in enumerate(objects):
        ys = [rows[name] for name, o in names.items() if o is obj]
        y = sum(ys) / len(ys)
        colour = ["#cfe2f3", "#fce5cd", "#d9ead3"][k % 3]
        ax.add_patch(plt.Rectangle((1.0, y - 0.38), 3.2, 0.76, fc=colour, ec="#333"))
        ax.text(2.6, y, describe(obj), ha="center", va="center", fontsize=14)
        for name in (name for name, o in names.items() if o is obj):
            ax.annotate("", (1.0, y), (0.1, rows[name]), arrowprops=ARROW)
    for name, y in rows.items():
        ax.text(0, y, name, ha="right", va="center", fontsize=14, family="monospace")
    ax.set(xlim=(-5.4, 4.4), ylim=(-0.6, len(names) - 0.4))
    ax.set_title(title, fontsize=16)
    ax.axis("off")
    return len(objects)


fig, (left, right) = plt.subplots(1, 2, figsize=(14, 4.6))
module_names = {
    "model": model,
    "result = model.to(float64)": result,
    "weight (taken before)": weight,
    "model.weight": model.weight,
}
tensor_names = {"t": t, "same = t.to(float32)": same, "new = t.to(float64)": new}
assert draw_names(left, "Module.to: the same objects", module_names) == 2
assert draw_names(right, "Tensor.to: new if dtype or device changes", tensor_names) == 2
fig.tight_layout()
plt.show()

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
