"""
In-place ReLU: the memory it saves, and when it breaks backward
===============================================================

**relu_ allocates nothing where relu allocates its output. In the training
step measured here, it lowered the forward peak by at most one activation and
left the step's peak unchanged.**
"""

# Setup: the device, a test of shared memory, and the memory measurements
import json
import os
import tempfile
from functools import partial

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile

device = torch.device(
    os.environ.get("TORCH_DEVICE")
    or ("cuda" if torch.cuda.is_available() else "cpu")
)
print(f"torch {torch.__version__} on {device}")
MiB = 2**20


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


def measure(fn, device: torch.device) -> tuple[object, int, int]:
    """Run ``fn()``; return its result and the bytes allocated on ``device`` meanwhile:
    the peak above the start, and the net change when it returns.

    CUDA: the caching allocator's own statistics. CPU: the profiler's record of each
    allocation on this thread, and each free of memory allocated while memory profiling
    was on (an earlier call of ``measure`` included), with a running total.
    """
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        start = torch.cuda.memory_allocated(device)
        result = fn()
        torch.cuda.synchronize(device)
        peak = torch.cuda.max_memory_allocated(device) - start
        return result, peak, torch.cuda.memory_allocated(device) - start
    with profile(
        activities=[ProfilerActivity.CPU], profile_memory=True
    ) as prof:
        result = fn()
    with tempfile.TemporaryDirectory() as folder:
        trace = os.path.join(folder, "trace.json")
        prof.export_chrome_trace(trace)
        with open(trace, encoding="utf-8") as file:
            events = json.load(file)["traceEvents"]
    memory = [
        event
        for event in events
        if event.get("name") == "[memory]"
        and event["args"]["Device Type"] == 0
    ]
    if not memory:
        return result, 0, 0
    # The running total just before the earliest event is where this call started.
    first = min(memory, key=lambda event: event["ts"])["args"]
    start = first["Total Allocated"] - first["Bytes"]
    peak = max(event["args"]["Total Allocated"] for event in memory) - start
    return (
        result,
        max(peak, 0),
        sum(event["args"]["Bytes"] for event in memory),
    )


def counted_bytes(sizes: list[int], device: torch.device) -> tuple[int, int]:
    """The fewest and most bytes ``measure`` can report for tensors of these sizes.

    The CPU allocator counts exactly what is asked. CUDA's caching allocator (default
    settings) rounds each request up to a multiple of 512 bytes, and a block over 1 MiB
    may keep up to 1 MiB more, a remainder too small to split off for reuse.
    """
    if device.type != "cuda":
        return sum(sizes), sum(sizes)
    rounded = [-(-size // 512) * 512 for size in sizes]
    slack = sum(2**20 for size in rounded if size > 2**20)
    return sum(rounded), sum(rounded) + slack


# %%
# Theory and measurement
# ----------------------
# **An out-of-place ReLU returns new memory as large as its input; relu_
# returns its input, rewritten, and allocates nothing.**
#
# ``measure`` reads :func:`torch.cuda.max_memory_allocated` on CUDA, and on the
# CPU the allocations that :class:`torch.profiler.profile` recorded.
# ``counted_bytes`` gives the range the allocator may report for the output.
x = torch.randn(5_000, 5_000, device=device)
theory = x.numel() * x.element_size()
print(f"{x.numel()} x {x.element_size()} bytes = {theory / MiB:.2f} MiB")
out = F.relu(x)
out_shares, out_nbytes = shares_memory(out, x), out.untyped_storage().nbytes()
print(f"F.relu(x) shares memory with x: {out_shares}")
print(f"its storage: {out_nbytes / MiB:.2f} MiB")
del out
returned_x = F.relu_(x) is x
print(f"F.relu_(x) is x: {returned_x}; smallest value {x.min().item()}")

# %%

# Checks: new memory out of place, the input itself in place
assert not out_shares and out_nbytes == theory
assert returned_x and x.min().item() == 0.0

# %%
# Both spellings of each, measured:
out_of_place = {"F.relu(x)": F.relu, "nn.ReLU()(x)": nn.ReLU()}
in_place = {
    "F.relu_(x)": F.relu_,
    "nn.ReLU(inplace=True)(x)": nn.ReLU(inplace=True),
}
measured = {}
for name, fn in (out_of_place | in_place).items():
    measured[name] = peak = measure(partial(fn, x), device)[1]
    print(f"{name:25} {peak / MiB:7.2f} MiB, / theory {peak / theory:.4f}")

# %%

# Checks: out of place allocates one output, in place nothing
least, most = counted_bytes([theory], device)
assert all(least <= measured[name] <= most for name in out_of_place)
assert all(measured[name] == 0 for name in in_place)

# %%
# Why the device shows more
# -------------------------
# **PyTorch's CUDA allocator keeps freed blocks cached for reuse: the memory
# in use drops when a tensor is freed, the cache and the device's own count do
# not, until empty_cache() returns the blocks.**
#
# :func:`torch.cuda.memory_allocated` counts blocks in use,
# :func:`torch.cuda.memory_reserved` the cache, and
# :func:`torch.cuda.mem_get_info` the whole device. A CUDA run checks that
# order.
if device.type == "cuda":  # the outputs measured above are freed: x is live
    free, total = torch.cuda.mem_get_info()
    allocated = torch.cuda.memory_allocated()
    reserved = torch.cuda.memory_reserved()
    print(f"allocated {allocated / MiB:.0f} MiB")
    print(f"reserved {reserved / MiB:.0f} MiB")
    print(f"in use on the whole device {(total - free) / MiB:.0f} MiB")
    torch.cuda.empty_cache()  # hands the cached blocks back to the driver
    emptied = torch.cuda.memory_reserved()
    print(f"reserved after empty_cache() {emptied / MiB:.0f} MiB")
else:
    print("skipped: this run is on the CPU")

# %%

# Checks: allocated <= reserved <= in use on the device; the cache emptied
if device.type == "cuda":
    assert reserved - allocated >= theory and reserved <= total - free
    assert emptied <= reserved - 0.99 * theory

# %%
# In a network the saving is smaller
# ----------------------------------
# **Training keeps every ReLU output for backward, in place or not. In place
# removes only the moment when a pre-activation and its output are both alive,
# which here is not the training step's peak.**
#
# Each network has four blocks of ``Linear`` then ``ReLU``, and a ``Linear``
# head. A ``Sequential`` drops each pre-activation once the next layer has it.
# After a linear layer, in place is safe: both compute the same gradients.


# Setup: the batch, one activation's size, and one training step
width, depth = 32, 4
batch = torch.randn(262_144, width, device=device)  # one activation: 32 MiB
activation = batch.numel() * batch.element_size()  # one layer's output
head_output = batch.shape[0] * batch.element_size()  # the (262144, 1) result


def training_step(net):
    net(batch).sum().backward()


def make_net(inplace):
    torch.manual_seed(0)  # the same weights for both
    blocks = [
        (nn.Linear(width, width), nn.ReLU(inplace)) for _ in range(depth)
    ]
    return nn.Sequential(*sum(blocks, ()), nn.Linear(width, 1)).to(device)


# %%

# Checks: one activation is 32 MiB
assert activation == 32 * MiB

# %%
nets, net_memory = {}, {}
for inplace in (False, True):
    net = nets[inplace] = make_net(inplace)
    training_step(net)  # warm-up: gradients and one-off buffers
    peak, held = measure(partial(net, batch), device)[1:]
    net.zero_grad(set_to_none=False)  # the step writes into the same grads
    step = measure(partial(training_step, net), device)[1]
    net_memory[inplace] = peak, held, step
    print(f"{inplace=}: forward peak {peak / MiB:.1f} MiB, held after it")
    print(f"  {held / MiB:.1f} MiB, training step peak {step / MiB:.1f} MiB")
held = (net_memory[True][1] - head_output) / activation
saved = (net_memory[False][0] - net_memory[True][0]) / activation
print(f"held after forward: {held:.2f} activations and the output")
print(f"in place lowered the forward peak by {saved:.2f} activations")
print(f"and the step's peak by {net_memory[False][2] - net_memory[True][2]} B")

# %%

# Checks: same memory held and same step peak; in place lowers the forward peak
(peak_out, held_out, step_out), (peak_in, held_in, step_in) = (
    net_memory.values()
)
least, most = counted_bytes([activation] * depth + [head_output], device)
assert held_out == held_in and least <= held_in <= most
assert 0 < peak_out - peak_in <= counted_bytes([activation], device)[1]
assert step_out == step_in  # the whole step's peak: no saving at all
assert (
    step_out > peak_out and step_in > peak_in
)  # it comes in the backward pass
for a, b in zip(
    nets[False].parameters(), nets[True].parameters(), strict=True
):
    assert torch.allclose(a.grad, b.grad)

# %%
# When in-place is wrong
# ----------------------
# **A ReLU in place on a tensor that autograd saved for backward bumps its
# version counter. Backward refuses the changed value, except under
# saved-tensor hooks, which skip that check.**
#
# :func:`torch.sigmoid`, :func:`torch.tanh` and :func:`torch.exp` save their
# *output* (sigmoid's gradient is ``s * (1 - s)``).
w = torch.randn(5, device=device, requires_grad=True)
outcomes = {}
for fn in (torch.sigmoid, torch.tanh, torch.exp):
    s = F.relu_(fn(w))
    try:
        s.sum().backward()
        message = "no error"
    except RuntimeError as error:
        message = f"RuntimeError: {error}"
    outcomes[fn] = s._version, message
    print(f"{fn.__name__}, then relu_ (version {s._version}): {message}")

# %%

# Checks: each saves its output; each backward refused the changed value
s = torch.sigmoid(w)
assert torch.allclose(torch.autograd.grad(s.sum(), w)[0], s * (1 - s))
for fn, (version, message) in outcomes.items():
    assert "_saved_result" in dir(fn(w).grad_fn)  # it saves its output
    assert version == 1 and "modified by an inplace operation" in message

# %%
# Under ``torch.autograd.graph.saved_tensors_hooks`` autograd keeps what
# the pack hook returns and compares no versions: backward runs on the
# rewritten output. After these elementwise functions the gradient still comes
# out right, because ReLU passes no gradient where it changed a value.
hooks = torch.autograd.graph.saved_tensors_hooks
unpacked = []


def unpack(t):
    unpacked.append(t.clone())  # what backward reads
    return t


v = torch.tensor([-1.0, -0.5, 0.5, 1.0], device=device, requires_grad=True)
right = torch.autograd.grad(torch.tanh(v).relu().sum(), v)[0]
with hooks(lambda t: t, unpack):  # pack: the tensor as it is
    s = torch.tanh(v)  # saves its output, through the hooks
F.relu_(s)  # the negative values of s become 0
hooked_grad = torch.autograd.grad(s.sum(), v)[0]  # no error
print(f"version {s._version}; backward read {unpacked[0]}")
print(f"gradient {hooked_grad}\ncorrect  {right}")

# %%

# Checks: no refusal under hooks; backward read the rewritten values
assert s._version == 1 and len(unpacked) == 1
assert torch.equal(unpacked[0], torch.tanh(v).relu())  # not tanh(v)
assert not torch.equal(unpacked[0], torch.tanh(v))
assert torch.allclose(hooked_grad, right) and hooked_grad.any()

# %%
# The pictures
# ------------
# **The bars are the bytes measured above: one output's worth for each
# out-of-place ReLU, nothing for in place, and the network's three
# measurements.**
#
# First, one ReLU over ``x``.


# Drawing: one bar per call, its name above it
# Alt: One horizontal bar per call, the MiB it allocates: the out-of-place
#   calls reach the dashed line at the size of x, the in-place calls allocate
#   nothing.
plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3.5))
for i, (name, nbytes) in enumerate(measured.items()):
    ax.barh(i, nbytes / MiB, 0.45, color="#9fc5e8", edgecolor="#1f4e79")
    ax.text(0, i - 0.3, name, va="bottom")
    ax.text(nbytes / MiB + 8, i, f"{nbytes / MiB:.0f} MiB", va="center")
ax.axvline(theory / MiB, color="#333333", ls="--")
ax.text(theory / MiB, 3.55, "size of x ", ha="right", va="center")
ax.invert_yaxis()
ax.set(xlim=(0, 1.3 * theory / MiB), ylim=(3.75, -0.85), yticks=[])
ax.set_xlabel("MiB allocated")
ax.spines[["left", "right", "top"]].set_visible(False)
fig.tight_layout(pad=0.2)
plt.show()

# %%
# The network: its three measurements, with and without in-place ReLU.


# Drawing: grouped bars, the legend above them
# Alt: Pairs of bars, inplace=False beside inplace=True, for the forward
#   peak, the memory held after forward and the training step's peak, each
#   labelled with its MiB: the in-place ReLU lowers only the forward peak.
fig, ax = plt.subplots(figsize=(5, 3.5))
styles = {False: ("#f9cb9c", "#b45f06"), True: ("#9fc5e8", "#1f4e79")}
for inplace, (fill, edge) in styles.items():
    mib = [value / MiB for value in net_memory[inplace]]
    spots = [k + (0.21 if inplace else -0.21) for k in range(3)]
    bars = ax.bar(
        spots, mib, 0.4, color=fill, edgecolor=edge, label=f"{inplace=}"
    )
    ax.bar_label(bars, fmt="%.0f", padding=2)
ax.set_xticks(
    range(3), ["forward\npeak", "held after\nforward", "training\nstep peak"]
)
ax.set_ylabel("MiB")
ax.set_ylim(0, 1.15 * max(max(v) for v in net_memory.values()) / MiB)
ax.spines[["right", "top"]].set_visible(False)
ax.legend(
    loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False
)
fig.tight_layout(pad=0.2)
plt.show()

# %%
# Use it when, use instead
# ------------------------
# **Use in-place ReLU only where nothing saved the tensor it overwrites, and
# measure the whole training step before counting on a saving.**
#
# * ``F.relu_`` or ``nn.ReLU(inplace=True)`` fit the output of a linear layer
#   inside a ``Sequential``, under real memory pressure in the forward pass.
# * Otherwise keep ``F.relu``. Code that keeps pre-activations in variables of
#   its own can save more; measure your own model.
# * `PyTorch's advice
#   <https://docs.pytorch.org/docs/stable/autograd.html#in-place-operations-on-tensors>`__
#   agrees: in-place operations rarely lower memory use by much.
