"""
``optimizer.step()`` before a later ``backward()``: the GAN loop
================================================================

**Unless fused, step() writes each parameter that has a gradient in place
and moves its version counter, so a graph that saved the parameter refuses
backward(). Run every backward() first, or build the graph again.**
"""

# Setup: the device (TORCH_DEVICE, else CUDA if present, else the CPU), the
# test of shared memory, and a tiny GAN
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


def gan(make=torch.optim.SGD):
    """A generator and a discriminator, each with an optimizer ``make``."""
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
    D = nn.Sequential(
        nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid()
    )
    G, D = G.to(device), D.to(device)
    return G, D, make(G.parameters(), lr=0.1), make(D.parameters(), lr=0.1)


def losses(G, D, z, real):
    """The discriminator's loss, and the generator's through D."""
    fake = G(z)
    d_loss = -(D(real).log().mean() + (1 - D(fake.detach())).log().mean())
    g_loss = -D(fake).log().mean()  # its graph saves D's weights
    return d_loss, g_loss


torch.manual_seed(1)
z = torch.randn(16, 2, device=device)
real = torch.randn(16, 2, device=device) + 2

# %%
# step() writes the parameters in place
# -------------------------------------
# **A step of torch.optim updates each parameter that has a gradient in
# place, under no_grad: the same tensor, the same memory, and a higher
# version, unless the step is fused or differentiable.**
#
# An alias taken before the step sees the new values: the memory was written,
# not replaced. The counter moves by one or more per step: AdamW's weight
# decay writes once more. A fused step writes without moving it, so backward
# then runs with the new weights, without a word.
G, D, opt_G, opt_D = gan()
weight = D[2].weight
alias = weight.detach()  # the same memory, the same counter
d_loss, _ = losses(G, D, z, real)
d_loss.backward()
old = weight.detach().clone()
version = weight._version
opt_D.step()
print(f"D[2].weight._version: {version} -> {weight._version}")
print(f"D[2].weight is the same tensor: {D[2].weight is weight}")
print(f"the alias taken before saw the step: {torch.equal(alias, weight)}")

# %%

# Checks: written in place; the counter moved unless fused, for each
# optimizer that offers the three implementations
assert D[2].weight is weight and shares_memory(alias, weight)
assert not torch.equal(weight.detach(), old) and torch.equal(alias, weight)
assert weight._version == version + 1
for make in (
    torch.optim.SGD,
    torch.optim.Adam,
    torch.optim.AdamW,
    torch.optim.Adagrad,
):
    moved = {}
    for options in ({"foreach": False}, {"foreach": True}, {"fused": True}):
        torch.manual_seed(0)
        D2 = nn.Linear(2, 1).to(device)
        opt = make(D2.parameters(), lr=0.1, **options)
        x = torch.randn(4, 2, device=device, requires_grad=True)
        saved = D2(x).sum()  # saves D2.weight
        D2(real[:4, :]).sum().backward()
        view, v = D2.weight.detach(), D2.weight._version
        try:
            opt.step()
        except RuntimeError as error:  # a fused step this device lacks
            if "`fused=True` requires" not in str(error):
                raise
            continue
        assert shares_memory(D2.weight, view), (make, options)
        fused = options.get("fused", False)
        moved[str(options)] = D2.weight._version - v
        assert (moved[str(options)] == 0) == fused, (make, options)
        try:
            (through,) = torch.autograd.grad(saved, x)
        except RuntimeError:
            assert not fused, (make, options)
        else:  # silently, with the weights after the step
            assert fused and torch.allclose(through[0], D2.weight[0]), make
    # AdamW decays the weight, then updates it: two writes
    assert moved["{'foreach': False}"] == (
        2 if make is torch.optim.AdamW else 1
    )
# A parameter without a gradient is skipped; differentiable=True records the
# step, which a leaf refuses
frozen = nn.Parameter(torch.ones(3, device=device))
torch.optim.Adam([frozen], lr=0.1).step()
assert frozen._version == 0 and torch.equal(frozen.detach(), torch.ones(3))
frozen.grad = torch.ones(3, device=device)
try:
    torch.optim.SGD([frozen], lr=0.1, differentiable=True).step()
except RuntimeError as error:
    refused = str(error)
else:
    refused = "a differentiable step wrote into a leaf"
assert "leaf Variable that requires grad" in refused, refused

# %%
# The wrong order
# ---------------
# **Building g_loss, then stepping D, then calling g_loss.backward() fails:
# the graph saved D's weights at the version before the step.**
#
# The message names the saved tensor by its shape: the transposed weight of
# D's last linear layer, ``[8, 1]``. Its version was 1 (initialisation wrote
# it once) and is now 2.
G, D, opt_G, opt_D = gan()
d_loss, g_loss = losses(G, D, z, real)
opt_D.zero_grad()
d_loss.backward()
opt_D.step()  # too early: g_loss still needs D's old weights
opt_G.zero_grad()
try:
    g_loss.backward()
except RuntimeError as error:
    message = str(error)
    print(f"RuntimeError: {message.split(' Hint')[0]}")
else:
    message = ""

# %%

# Checks: refused, naming the saved weight and the two versions
assert "modified by an inplace operation" in message
assert "[8, 1]" in message and "at version 2; expected version 1" in message
assert all(p.grad is None or not p.grad.any() for p in G.parameters())
G, D, opt_G, opt_D = gan()  # retain_graph keeps tensors, not old values
d_loss, g_loss = losses(G, D, z, real)
d_loss.backward(retain_graph=True)
opt_D.step()
try:
    g_loss.backward(retain_graph=True)
except RuntimeError as error:
    retained = str(error)
else:
    retained = "retain_graph=True let backward run after step()"
assert "modified by an inplace operation" in retained, retained

# %%
# Two orders that work
# --------------------
# **Run both backward() calls before either step, or step D first and build
# g_loss afterwards through the updated D. They train G against the old D
# and the new one.**
#
# Zero D's gradients before its next backward in either loop, because
# ``g_loss.backward()`` adds to them too.
G, D, opt_G, opt_D = gan()
d_loss, g_loss = losses(G, D, z, real)
opt_D.zero_grad()
opt_G.zero_grad()
d_loss.backward()
g_loss.backward()  # before any step
against_old = G[0].weight.grad.clone()
opt_D.step()
opt_G.step()

G, D, opt_G, opt_D = gan()
d_loss, _ = losses(G, D, z, real)
opt_D.zero_grad()
d_loss.backward()
opt_D.step()
opt_G.zero_grad()
g_loss = -D(G(z)).log().mean()  # a new graph, through the updated D
g_loss.backward()
against_new = G[0].weight.grad.clone()
opt_G.step()
print(
    f"G[0].weight.grad[0], against the old D: "
    f"{[round(g, 5) for g in against_old[0].tolist()]}"
)
print(
    f"                     against the new D: "
    f"{[round(g, 5) for g in against_new[0].tolist()]}"
)

# %%

# Checks: both ran, and gave G different gradients; g_loss reached D's grads
assert against_old.abs().sum() > 0 and against_new.abs().sum() > 0
assert not torch.allclose(against_old, against_new)
G, D, _, _ = gan()
d_loss, g_loss = losses(G, D, z, real)
d_loss.backward()
d_only = D[2].weight.grad.clone()
g_loss.backward()
assert not torch.allclose(D[2].weight.grad, d_only)

# %%
# A picture of it
# ---------------
# **The graph of g_loss holds the version it saved; step() moves the counter
# on, and backward() compares the two.**
#
# Drawn from the counters above.

# Drawing: the saved version against the version after the step
# Alt: Two bars of D[2].weight._version: the version g_loss saved, and a higher
#   one after opt_D.step().
G, D, opt_G, opt_D = gan()
d_loss, g_loss = losses(G, D, z, real)
saved_version = D[2].weight._version
d_loss.backward()
opt_D.step()
versions = [saved_version, D[2].weight._version]
plt.rcParams["font.size"] = 13
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(
    ["saved by g_loss", "after opt_D.step()"],
    versions,
    color=["#6fa8dc", "#cc4125"],
)
for i, v in enumerate(versions):
    ax.text(i, v + 0.05, f"version {v}", ha="center")
ax.set_ylim(0, 2.6)
ax.set_yticks([0, 1, 2])
ax.set_title("D[2].weight._version")
plt.show()

# %%

# Checks: the bars are the versions backward compares, and they differ
assert versions == [1, 2]

# %%
# Use it when, use instead
# ------------------------
# **Call every backward() of one iteration before any step(), or build each
# loss after the steps it depends on.**
#
# * ``retain_graph=True`` does not help: it keeps the saved tensors, not
#   their old values.
# * ``fake.detach()`` in D's loss keeps G out of D's graph; it does nothing
#   for D's weights in G's graph.
