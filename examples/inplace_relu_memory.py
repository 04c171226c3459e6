"""
In-place ReLU: the memory it saves, and when it breaks backward
===============================================================

:func:`torch.nn.functional.relu_` overwrites its input instead of allocating an output,
which is only safe where autograd does not need that input, and in a network saves a
passing peak rather than the memory held for backward.
"""

# %%
# Setup
# -----
# The script runs on ``TORCH_DEVICE`` when set, else on CUDA when available, else CPU.
import os

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile

device = torch.device(
    os.environ.get("TORCH_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")
)
print(f"torch {torch.__version__} on {device}")
MiB = 2**20


def measure(fn, *args) -> tuple[int, int]:
    """Bytes ``fn(*args)`` allocates: at its peak, and still held when it returns."""
    if device.type == "cpu":
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            _result = fn(*args)  # kept alive to the end, like the tensors it holds
        held = peak = 0  # replay the allocations and frees the profiler saw, in order
        for event in sorted(prof.events(), key=lambda e: e.time_range.start):
            held += event.self_cpu_memory_usage
            peak = max(peak, held)
        return peak, held
    torch.cuda.reset_peak_memory_stats()  # the allocator counts on the host, at once
    start = torch.cuda.memory_allocated()
    _result = fn(*args)
    torch.cuda.synchronize()  # not needed for the counts, but the work is done now
    peak, held = torch.cuda.max_memory_allocated(), torch.cuda.memory_allocated()
    return peak - start, held - start


# %%
# Theory and measurement
# ----------------------
# An out-of-place ReLU returns new memory as large as its input; ``relu_`` returns its
# input, rewritten. ``measure`` reads :func:`torch.cuda.max_memory_allocated` on CUDA;
# on the CPU it replays what :class:`torch.profiler.profile` recorded. Three runs each.
x = torch.randn(10_000, 10_000, device=device)
theory = x.numel() * x.element_size()
print(f"{x.dtype}: {x.numel()} x {x.element_size()} bytes = {theory / MiB:.2f} MiB")
assert F.relu(x).untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
assert F.relu_(x) is x and x.min().item() == 0.0
out_of_place = {"F.relu(x)": F.relu, "nn.ReLU()(x)": nn.ReLU()}
in_place = {"F.relu_(x)": F.relu_, "nn.ReLU(inplace=True)(x)": nn.ReLU(inplace=True)}
measured = {}
for name, fn in (out_of_place | in_place).items():
    measured[name] = peak = sorted(measure(fn, x)[0] for _ in range(3))[1]  # the median
    print(f"{name:25} {peak / MiB:7.2f} MiB, measured / theory = {peak / theory:.4f}")
assert all(abs(measured[name] - theory) <= 0.01 * theory for name in out_of_place)
assert all(measured[name] <= 0.01 * theory for name in in_place)

# %%
# Why ``nvidia-smi`` shows more
# -----------------------------
# PyTorch's CUDA caching allocator keeps freed blocks for reuse. After ``del``,
# :func:`torch.cuda.memory_allocated` (live tensors) drops, but
# :func:`torch.cuda.memory_reserved` (the cache) does not, and ``nvidia-smi`` adds the
# CUDA context on top. A CUDA run prints the three and checks that order.
if device.type == "cuda":  # the outputs measured above are freed: only x is live
    free, total = torch.cuda.mem_get_info()
    allocated, reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    print(f"allocated {allocated / MiB:.0f} MiB, reserved {reserved / MiB:.0f} MiB")
    print(f"in use on the device (nvidia-smi's view) {(total - free) / MiB:.0f} MiB")
    assert reserved - allocated >= theory and reserved <= total - free
    torch.cuda.empty_cache()  # hands the cached blocks back to the driver
    assert torch.cuda.memory_reserved() <= reserved - 0.99 * theory

# %%
# In a network the saving is smaller
# ----------------------------------
# Training keeps every ReLU output for backward, in place or not. What in-place removes
# is the moment when a layer's pre-activation and its ReLU output are both alive. And
# after a linear layer it is safe: both networks compute the same gradients.
width, depth = 256, 4
batch = torch.randn(32768, width, device=device)
activation = batch.numel() * batch.element_size()  # one layer's output
nets, net_memory = {}, {}
for inplace in (False, True):
    torch.manual_seed(0)  # the same weights for both
    blocks = [(nn.Linear(width, width), nn.ReLU(inplace)) for _ in range(depth)]
    nets[inplace] = nn.Sequential(*sum(blocks, ()), nn.Linear(width, 1)).to(device)
    nets[inplace](batch)  # a first call makes one-off allocations (library workspaces)
    net_memory[inplace] = peak, held = measure(nets[inplace], batch)
    print(f"inplace={inplace}: peak {peak / MiB:.1f} MiB, held {held / MiB:.1f} MiB")
(peak_out, held_out), (peak_in, held_in) = net_memory[False], net_memory[True]
print(f"held for backward: {held_in / activation:.2f} activations, either way")
assert held_out == held_in and abs(held_in - depth * activation) <= 0.01 * held_in
assert 0 < peak_out - peak_in <= 1.01 * activation
for net in nets.values():
    net(batch).sum().backward()
assert torch.allclose(nets[False][0].weight.grad, nets[True][0].weight.grad)

# %%
# When in-place is wrong
# ----------------------
# :func:`torch.sigmoid`, :func:`torch.tanh` and :func:`torch.exp` save their *output*
# for backward (sigmoid's gradient is ``s * (1 - s)``). A ReLU in place on that output
# bumps its version counter, and backward refuses to use the changed value.
w = torch.randn(5, device=device, requires_grad=True)
for fn in (torch.sigmoid, torch.tanh, torch.exp):
    s = F.relu_(fn(w))
    try:
        s.sum().backward()
        message = "no error"
    except RuntimeError as error:
        message = f"RuntimeError: {error}"
    print(f"{fn.__name__}, then relu_ (version {s._version}): {message}")
    assert s._version == 1 and "modified by an inplace operation" in message

# %%
# Both measurements, side by side:
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
bars = left.barh(list(measured), [m / MiB for m in measured.values()], color="#3d85c6")
left.bar_label(bars, fmt="%.2f MiB", padding=3)
left.axvline(theory / MiB, color="black", ls="--")
left.invert_yaxis()
left.set(xlim=(0, 1.5 * theory / MiB), xlabel="MiB (dashed: theory)", title="One ReLU")
for offset, inplace, colour in [(0, False, "#e69138"), (0.4, True, "#3d85c6")]:
    mib = [v / MiB for v in net_memory[inplace]]
    right.bar([offset, 1 + offset], mib, 0.4, color=colour, label=f"{inplace=}")
right.set(xticks=[0.2, 1.2], xticklabels=["peak", "held for backward"], ylabel="MiB")
right.set(title=f"{depth}-layer network, forward pass on {device}")
right.legend(loc="lower right")
plt.show()

# %%
# Use it when, use instead
# ------------------------
# * Use ``F.relu_`` or ``nn.ReLU(inplace=True)`` under real memory pressure, after an op
#   that does not save its output, such as a linear layer.
# * Otherwise keep ``F.relu``: the saving is one activation at the peak, not the memory
#   held for backward. `PyTorch's advice
#   <https://docs.pytorch.org/docs/stable/autograd.html#in-place-operations-on-tensors>`__
#   agrees: in-place operations rarely lower memory use by much.
