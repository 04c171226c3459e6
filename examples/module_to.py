"""
``Module.to`` versus ``Tensor.to``: in place or new
===================================================

**Module.to converts a module in place and returns it. Tensor.to returns its
tensor itself when copy=False and the dtype, device and memory format asked for
are its own, otherwise a new one.**
"""

# Setup: the device, a test of shared memory, and the grid of tensor kinds
import copy
import os
import warnings

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


# %%
# ``Module.to`` returns the module itself
# ---------------------------------------
# **Module.to returns the very module it was called on. With the default settings
# each parameter stays the same Parameter object, holding the converted data,
# except on a move to the meta device.**
#
# So ``model = model.to(...)`` only reassigns the same module, and a reference
# to ``model.weight`` taken before sees the new dtype.
model = nn.Linear(3, 2).to(device)
weight = model.weight
params = dict(model.named_parameters())
result = model.to(torch.float64)
print(f"result is model: {result is model}")
print(f"model.weight is weight: {model.weight is weight}, {weight.dtype}")

# %%

# Checks: the default settings; the same module and Parameters, converted
future = torch.__future__  # neither switch is on by default
assert not future.get_overwrite_module_params_on_conversion()
assert not future.get_swap_module_params_on_conversion()
assert result is model
for name, param in model.named_parameters():  # the weight and the bias
    assert param is params[name] and param.dtype == torch.float64, name
# meta tensors cannot take the data in place: new Parameters replace the old
to_meta = nn.Linear(3, 2).to(device)
held = to_meta.weight
to_meta.to("meta")
assert (
    to_meta.weight is not held and to_meta.weight.is_meta and not held.is_meta
)

# %%
# Buffers are replaced, and complex parameters lose their imaginary part
# ----------------------------------------------------------------------
# **Module.to passes a dtype only to floating-point and complex tensors, and
# replaces each buffer with what Tensor.to returns. A complex parameter cast to
# a real dtype keeps its object, minus its imaginary part.**
#
# A reference held to ``bn.running_mean`` goes stale: re-read buffers from the
# module after converting it. The cast warns about the imaginary part.
#
# .. list-table::
#    :header-rows: 1
#
#    * - tensor of the module
#      - after ``.to(torch.float64)``
#      - same object
#    * - float32 parameter (``bn.weight``)
#      - float64
#      - yes
#    * - complex64 parameter (``phase``)
#      - float64, imaginary part dropped, with a warning
#      - yes
#    * - float32 buffer (``bn.running_mean``)
#      - float64
#      - no: a new tensor
#    * - int64 buffer (``bn.num_batches_tracked``)
#      - int64, untouched
#      - yes
#    * - bool buffer (``mask``)
#      - bool, untouched
#      - yes
holder = nn.Module()
holder.bn = nn.BatchNorm1d(3)
holder.phase = nn.Parameter(torch.full((2,), 1 + 2j))
holder.register_buffer("mask", torch.tensor([True, False]))
holder.to(device)
before = holder.state_dict(keep_vars=True)
running_mean = holder.bn.running_mean
warn_always = torch.is_warn_always_enabled()
torch.set_warn_always(True)  # else PyTorch warns once per process
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    holder.to(torch.float64)
torch.set_warn_always(warn_always)
after = holder.state_dict(keep_vars=True)
print(
    f"held running_mean: {running_mean.dtype}, is the module's buffer: "
    f"{holder.bn.running_mean is running_mean}"
)
print(f"phase: {holder.phase.dtype}, values {holder.phase.tolist()}")
print(f"warning: {caught[0].message}")

# %%

# Checks: the table's rows, over every tensor of the module
rows = {  # name: (dtype after, same object)
    "bn.weight": (torch.float64, True),
    "phase": (torch.float64, True),
    "bn.running_mean": (torch.float64, False),
    "bn.num_batches_tracked": (torch.int64, True),
    "mask": (torch.bool, True),
}
measured = {
    name: (after[name].dtype, after[name] is before[name]) for name in rows
}
assert measured == rows
for name, tensor in after.items():  # every tensor, by the rule of Tensor.to
    changed = before[name].is_floating_point() or before[name].is_complex()
    is_buffer = name in dict(holder.named_buffers())
    assert (tensor is before[name]) == (not (is_buffer and changed)), name
for name in ("bn.num_batches_tracked", "mask"):  # Tensor.to with the dtype
    asked = before[name].to(torch.float64)  # would have made a new tensor,
    assert asked is not before[name] and asked.dtype == torch.float64, name
    assert after[name] is before[name], name  # but Module.to passed no dtype
    held = after[name].detach()  # still the module's memory: a write shows
    held.zero_()
    assert shares_memory(held, after[name]) and not after[name].any(), name
assert running_mean.dtype == torch.float32
assert holder.phase.tolist() == [1.0, 1.0]
assert [
    str(w.message).startswith("Casting complex values to real") for w in caught
] == [True]

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
# **Tensor.to never changes its tensor. It returns the tensor itself when the
# dtype, device and memory format asked for are those it has and copy=False;
# otherwise a new tensor in new memory.**
#
# On the CPU the device counts as its own only when named as ``t.device``
# names it: a CPU tensor asked for ``"cpu:0"`` is copied.
#
# A write through ``t.to(t.dtype)`` is therefore a write into ``t``. Pass
# ``copy=True``, or call ``clone()``, to get a copy all the same.
t = torch.arange(3.0, device=device)
new, same = t.to(torch.float64), t.to(torch.float32)
print(
    f"t.to(torch.float64) is t: {new is t}, shares memory: "
    f"{shares_memory(new, t)}"
)
print(f"t.to(torch.float32) is t: {same is t}")
new[0], same[1] = 10.0, 20.0
print(f"after new[0] = 10, same[1] = 20: t = {t}")
forced = t.to(torch.float32, copy=True)
print(f"copy=True shares memory with t: {shares_memory(forced, t)}")

# %%

# Checks: the rule over every dtype kind and layout (42 cases)
assert t.tolist() == [0.0, 20.0, 2.0] and t.dtype == torch.float32
assert new is not t and not shares_memory(new, t)
assert same is t and shares_memory(same, t)
assert t.to(device) is t and not shares_memory(t.clone(), t)
assert forced is not t and not shares_memory(forced, t)
if t.device.type == "cpu":  # the same device by another name: a copy
    assert t.to("cpu:0") is not t and not shares_memory(t.to("cpu:0"), t)
for case, c in layout_cases(device).items():
    wider = (
        torch.complex128
        if c.is_complex()
        else torch.float32
        if c.dtype == torch.float64
        else torch.float64
    )
    before_values = c.clone()
    converted = c.to(wider)
    assert c.to(c.dtype) is c and c.to(device) is c, case
    assert converted is not c and not shares_memory(converted, c), case
    assert c.dtype != wider and torch.equal(c, before_values), case

# %%
# A tensor's memory format is the one PyTorch reads from the order of its
# strides. Where they fit both formats, as with one channel, row-major strides
# read as contiguous and channels-last strides as channels-last; where the two
# stride sets are equal, as for shape (N, 1, 1, 1), contiguous. So asking a
# row-major 4-D tensor for channels-last copies it, while asking a transposed
# matrix for the contiguous format returns it, not contiguous.
image = torch.randn(1, 3, 4, 4, device=device)
last = image.to(memory_format=torch.channels_last)
print(
    f"to(channels_last) is image: {last is image}, "
    f"shares memory: {shares_memory(last, image)}"
)
flipped = torch.arange(6.0, device=device).view(2, 3).t()
kept = flipped.to(memory_format=torch.contiguous_format)
print(
    f"transposed .to(contiguous_format) is itself: {kept is flipped}, "
    f"contiguous: {kept.is_contiguous()}"
)

# %%

# Checks: a new memory format copies; the one PyTorch reads does not
assert last is not image and not shares_memory(last, image)
last[0, 0, 0, 0] = 100.0  # a write into the copy misses image
assert image[0, 0, 0, 0].item() != 100.0
assert last.is_contiguous(memory_format=torch.channels_last)
assert last.to(memory_format=torch.channels_last) is last
assert image.to(memory_format=torch.contiguous_format) is image
assert kept is flipped and not kept.is_contiguous()
assert image.to(memory_format=torch.preserve_format) is image
one = torch.randn(1, 1, 4, 4, device=device)  # strides fit both formats
assert one.is_contiguous(memory_format=torch.channels_last)
assert (
    one.to(memory_format=torch.channels_last) is not one
)  # read as contiguous
one_last = torch.empty(
    1, 1, 4, 4, device=device, memory_format=torch.channels_last
)
assert one_last.is_contiguous()  # fits both, with channels-last strides ...
assert (
    one_last.to(memory_format=torch.channels_last) is one_last
)  # ... so kept
assert one_last.to(memory_format=torch.contiguous_format) is not one_last
equal_sets = torch.empty(
    2, 1, 1, 1, device=device, memory_format=torch.channels_last
)
assert (
    equal_sets.stride() == torch.empty(2, 1, 1, 1).stride()
)  # one stride set
assert equal_sets.to(memory_format=torch.channels_last) is not equal_sets

# %%
# The forgotten reassignment
# --------------------------
# **A module changes in place, so model.to(...) works on a line of its own. The
# same line for a tensor throws the converted tensor away.**
#
# ``batch`` stays float32, and the float64 model refuses it.
batch = torch.ones(4, 3, device=device)
batch.to(torch.float64)  # the result is lost
lost = batch.dtype
try:
    model(batch)
    refused = ""
except RuntimeError as error:
    refused = str(error)
    print(f"RuntimeError: {refused}")
batch = batch.to(torch.float64)  # kept this time
print(f"with the result kept: model(batch) is {model(batch).dtype}")

# %%

# Checks: the result was lost and refused; the kept result works
assert lost == torch.float32
assert refused, "a float64 model should refuse a float32 batch"
assert model(batch).dtype == torch.float64

# %%
# The same holds for devices: after ``host_model.to("cuda")`` the module has
# moved, while ``host.to("cuda")`` left the tensor ``host`` where it was.
if device.type == "cuda":
    host_model, host = nn.BatchNorm1d(3), torch.ones(4, 3)
    host_weight, host_mean = host_model.weight, host_model.running_mean
    host.to(device)  # the result is lost
    moved = host_model.to(device)
    print(f"moved is host_model: {moved is host_model}")
    print(f"weight on {host_weight.device}; host on {host.device}")
else:
    print("skipped on the CPU: moving to a GPU needs a GPU")

# %%

# Checks: on CUDA, the module moved in place, its buffer replaced
if device.type == "cuda":
    assert moved is host_model and host_model.weight is host_weight
    assert host_weight.is_cuda and not host.is_cuda
    assert host_model.running_mean is not host_mean and not host_mean.is_cuda


# %%
# A picture of it
# ---------------
# **Each name points at the object it refers to, found with is: model.to(...) is
# model, t.to(float32) is t, and t.to(float64) is a second tensor.**


# Drawing: an arrow from each name to the object it names
# Alt: Arrows from names to objects: model and model.to(float64) point to one
#   Linear module; t and t.to(float32) point to one tensor, t.to(float64) to a
#   new one.
def draw_names(ax, top, heading, names):
    """Under a heading, an arrow from each name to its object; count objects."""
    ax.text(0.1, top, heading, va="center", size=15, weight="bold")
    objects = []
    for obj in names.values():
        if not any(obj is seen for seen in objects):
            objects.append(obj)
    rows = {name: top - 0.47 * (i + 1) for i, name in enumerate(names)}
    centred = {"ha": "center", "va": "center", "size": 14}
    for k, obj in enumerate(objects):
        ys = [rows[name] for name, o in names.items() if o is obj]
        low, high = min(ys) - 0.2, max(ys) + 0.2
        fill, edge = [("#cfe2f3", "#1f4e79"), ("#fce5cd", "#b45f06")][k]
        box = plt.Rectangle((3, low), 1.9, high - low, fc=fill, ec=edge, lw=2)
        ax.add_patch(box)
        kind = "Linear" if isinstance(obj, nn.Module) else "tensor"
        dtype = (obj.weight if kind == "Linear" else obj).dtype
        label = f"{kind}, {str(dtype).removeprefix('torch.')}"
        ax.text(3.95, (low + high) / 2, label, **centred)
        for y in ys:
            ax.annotate("", (3, y), (2.5, y), arrowprops={"arrowstyle": "-|>"})
    for name, y in rows.items():
        ax.text(2.4, y, name, ha="right", va="center", family="monospace")
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
assert objects_drawn == [1, 2]

# %%
# Use it when, use instead
# ------------------------
# **Keep the result of Tensor.to every time; for a module it is optional. After
# converting a module, re-read its buffers from it.**
#
# * For a tensor, write ``x = x.to(device)``. Code that forgets it still runs
#   when the tensor already has the dtype and device asked for.
# * Need a copy even when nothing changes? ``t.to(..., copy=True)`` or
#   ``clone()``.
# * For a converted copy of a module, convert ``copy.deepcopy(model)``: ``to()``
#   will not make one.
