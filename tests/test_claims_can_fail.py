"""The site's assertions have teeth: if PyTorch changed behaviour, the checks go red.

Each sabotage below replaces one PyTorch function with a version that breaks the
behaviour a page teaches (``clone()`` that shares memory, ``view()`` that copies...).
The unmodified gallery script, MyST page or semantics probe then runs with the sabotage
installed, and must fail on an assertion of its own. Every run has a control: the same
harness with a no-op patch passes, so a failure comes from the sabotage, not the harness.
The harness itself is ``sabotage.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sabotage import (
    DOCS_DIR,
    EXAMPLES_DIR,
    NO_OP,
    Sabotage,
    failed_claim,
    run_page,
    run_script,
)

from semantics import catalogue, check, probe

CLONE_SHARES = Sabotage(
    "clone() returns a view that shares memory",
    ("torch.Tensor.clone",),
    "def sabotaged(self, *args, **kwargs):\n    return self.view_as(self)",
)
DETACH_COPIES = Sabotage(
    "detach() returns a copy in new memory",
    ("torch.Tensor.detach",),
    "def sabotaged(self):\n    return original(self).clone()",
)
COPY_INTO_NEW = Sabotage(
    "copy_() writes into new memory and returns it, leaving the destination alone",
    ("torch.Tensor.copy_",),
    "def sabotaged(self, src, non_blocking=False):\n"
    "    return original(torch.empty_like(self), src, non_blocking)",
)
NEW_TENSOR_SHARES = Sabotage(
    "new_tensor() shares memory with its data instead of copying it",
    ("torch.Tensor.new_tensor",),
    # PyTorch's warning for a tensor argument is kept: only the copy goes missing.
    "def sabotaged(self, data, dtype=None, device=None, requires_grad=False):\n"
    "    if isinstance(data, torch.Tensor):\n"
    "        warnings.warn('use sourceTensor.detach().clone()', UserWarning)\n"
    "        data = data.detach()\n"
    "    result = torch.as_tensor(\n"
    "        data, dtype=dtype or self.dtype, device=device or self.device\n"
    "    )\n"
    "    return result.requires_grad_(requires_grad)",
)
VIEW_COPIES = Sabotage(
    "view() returns a copy (and still refuses shapes no strides fit)",
    ("torch.Tensor.view",),
    "def sabotaged(self, *args, **kwargs):\n"
    "    return original(self, *args, **kwargs).clone()",
)
COMPILE_WRITES_INTO_COPIES = Sabotage(
    "a compiled function runs on copies of its tensor inputs: writes never come back",
    ("torch.compile",),
    "def sabotaged(model=None, **kwargs):\n"
    "    if model is None:\n"
    "        return lambda function: sabotaged(function, **kwargs)\n"
    "    compiled = original(model, **kwargs)\n"
    "    def run(*args, **kw):\n"
    "        copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]\n"
    "        return compiled(*copies, **kw)\n"
    "    return run",
)
FROM_NUMPY_COPIES = Sabotage(
    "torch.from_numpy() copies the array",
    ("torch.from_numpy",),
    "def sabotaged(array):\n    return original(array).clone()",
)
RELU_ALLOCATES = Sabotage(
    "relu_() computes out of place, then copies the result back into its input",
    ("torch.relu_", "torch.nn.functional.relu_"),
    "def sabotaged(input):\n    return input.copy_(torch.relu(input))",
)
SAVE_CLONES = Sabotage(
    "torch.save() writes a clone of each tensor, so a view brings only its elements",
    ("torch.save",),
    "def own(obj):\n"
    "    if isinstance(obj, torch.Tensor):\n"
    "        return obj.clone()\n"
    "    if isinstance(obj, dict):\n"
    "        return {key: own(value) for key, value in obj.items()}\n"
    "    if isinstance(obj, (list, tuple)):\n"
    "        return type(obj)(own(value) for value in obj)\n"
    "    return obj\n"
    "def sabotaged(obj, f, *args, **kwargs):\n"
    "    return original(own(obj), f, *args, **kwargs)",
)
INDEX_PUT_OVERWRITES = Sabotage(
    "index_put_() ignores accumulate=True and overwrites repeated positions",
    ("torch.Tensor.index_put_",),
    "def sabotaged(self, indices, values, accumulate=False):\n"
    "    return original(self, indices, values, False)\n"
    "sabotaged.__doc__ = original.__doc__",
)
MODULE_TO_COPIES = Sabotage(
    "Module.to() converts and returns a deep copy, leaving the module as it was",
    ("torch.nn.Module.to",),
    "def sabotaged(self, *args, **kwargs):\n"
    "    import copy\n"
    "    return original(copy.deepcopy(self), *args, **kwargs)",
)
SHARE_MEMORY_DOES_NOTHING = Sabotage(
    "share_memory_() returns the tensor and leaves its storage in private memory",
    ("torch.Tensor.share_memory_",),
    "def sabotaged(self):\n    return self",
)
VIEW_COPIES_NON_FLOAT = Sabotage(
    "view() copies tensors that are not floating point",
    ("torch.Tensor.view",),
    "def sabotaged(self, *args, **kwargs):\n"
    "    result = original(self, *args, **kwargs)\n"
    "    return result if self.is_floating_point() else result.clone()",
)
MODULE_TO_KEEPS_BUFFERS = Sabotage(
    "Module.to() keeps each buffer object, converting it in place",
    ("torch.nn.Module.to",),
    "def sabotaged(self, *args, **kwargs):\n"
    "    held = dict(self.named_buffers())\n"
    "    result = original(self, *args, **kwargs)\n"
    "    for name, new in list(self.named_buffers()):\n"
    "        if held[name] is not new:\n"
    "            held[name].data = new\n"
    "            owner, _, attr = name.rpartition('.')\n"
    "            self.get_submodule(owner)._buffers[attr] = held[name]\n"
    "    return result",
)
EXPAND_WRITE_UNCHECKED = Sabotage(
    "add_() writes into a tensor that repeats a memory location instead of refusing",
    ("torch.Tensor.add_",),
    "def sabotaged(self, other, *, alpha=1):\n"
    "    if self.numel() and 0 in self.stride():\n"
    "        return self.fill_(float((self + alpha * other).flatten()[0]))\n"
    "    return original(self, other, alpha=alpha)",
)
OUT_RESIZE_ALWAYS_NEW = Sabotage(
    "out= of another shape always moves y to new memory",
    ("torch.add",),
    "def sabotaged(input, other, *, alpha=1, out=None):\n"
    "    result = original(input, other, alpha=alpha)\n"
    "    if out is None:\n"
    "        return result\n"
    "    if out.shape != result.shape:\n"
    "        out.set_(torch.empty_like(result))\n"
    "    return out.copy_(result)",
)
NO_GRAD_VIEWS_KEEP_GRADIENT = Sabotage(
    "a view taken under no_grad stays in the graph, so gradient reaches its base",
    ("torch.Tensor.__getitem__",),
    "def sabotaged(self, index):\n"
    "    if self.requires_grad and not torch.is_grad_enabled():\n"
    "        with torch.enable_grad():\n"
    "            return original(self, index)\n"
    "    return original(self, index)",
)
UNBIND_SELECTS = Sabotage(
    "unbind() returns separate select() views, so writes into its pieces are allowed",
    ("torch.Tensor.unbind",),
    "def sabotaged(self, dim=0):\n"
    "    return tuple(self.select(dim, i) for i in range(self.size(dim)))",
)
RESHAPE_COPIES = Sabotage(
    "reshape() always copies, even where a view exists",
    ("torch.Tensor.reshape",),
    "def sabotaged(self, *shape):\n    return original(self, *shape).clone()",
)
NUMPY_COPIES = Sabotage(
    "numpy() copies, so an array taken before a move owns its memory",
    ("torch.Tensor.numpy",),
    "def sabotaged(self, *, force=False):\n"
    "    return original(self, force=force).copy()",
)
SAVE_FILE_RESOLVES_BITS = Sabotage(
    "safetensors' save_file() resolves the conjugate and negative bits",
    ("safetensors.torch.save_file",),
    "def sabotaged(tensors, filename, metadata=None):\n"
    "    tensors = {k: v.resolve_conj().resolve_neg() for k, v in tensors.items()}\n"
    "    return original(tensors, filename, metadata)",
)
COPY_DROPS_THE_GRAPH = Sabotage(
    "copy_() writes the values but drops the link to src",
    ("torch.Tensor.copy_",),
    "def sabotaged(self, src, non_blocking=False):\n"
    "    return original(self, src.detach(), non_blocking)",
)
FORCED_NUMPY_COPIES = Sabotage(
    "numpy(force=True) always copies",
    ("torch.Tensor.numpy",),
    "def sabotaged(self, *, force=False):\n"
    "    return original(self, force=force).copy() if force else original(self)",
)
CONVERSIONS_OVERWRITE = Sabotage(
    "Module conversions install new Parameter objects",
    ("torch.__future__.get_overwrite_module_params_on_conversion",),
    "def sabotaged():\n    return True",
)
MARK_DIRTY_IGNORED = Sabotage(
    "ctx.mark_dirty() records nothing, so a written input keeps its old history",
    ("torch.autograd.function.FunctionCtx.mark_dirty",),
    "def sabotaged(self, *args):\n    return None",
)
SGD_STEP_UNCOUNTED = Sabotage(
    "SGD's step() writes through .data, so the version counters do not move",
    ("torch.optim.SGD.step",),
    "def sabotaged(self, closure=None):\n"
    "    for group in self.param_groups:\n"
    "        for p in group['params']:\n"
    "            if p.grad is not None:\n"
    "                p.data.add_(p.grad, alpha=-group['lr'])",
)
RELU_OUT_OF_PLACE = Sabotage(
    "relu_() returns a new tensor and leaves its input and its history alone",
    ("torch.Tensor.relu_",),
    "def sabotaged(self):\n    return torch.relu(self)",
)
REGISTER_HOOK_GETS_A_COPY = Sabotage(
    "a tensor hook gets a copy of the gradient, and a write into it acts as a return",
    ("torch.Tensor.register_hook",),
    "def sabotaged(self, hook):\n"
    "    def on_copy(grad):\n"
    "        copy = grad.clone()\n"
    "        result = hook(copy)\n"
    "        return copy if result is None else result\n"
    "    return original(self, on_copy)",
)
VIEW_COPY_ALIASES = Sabotage(
    "torch.view_copy returns a view where one exists, like reshape",
    ("torch.view_copy",),
    "def sabotaged(self, size):\n    return self.reshape(size)",
)
VMAP_ON_COPIES = Sabotage(
    "vmap runs the function on copies of its tensor inputs: writes never come back",
    ("torch.func.vmap",),
    "def sabotaged(func, *args, **kwargs):\n"
    "    mapped = original(func, *args, **kwargs)\n"
    "    def run(*inputs, **kw):\n"
    "        copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in inputs]\n"
    "        return mapped(*copies, **kw)\n"
    "    return run",
)
#: The behaviour at the heart of each gallery script's lesson, broken.
GALLERY = {
    "clone.py": CLONE_SHARES,
    "copy_.py": COPY_INTO_NEW,
    "detach.py": DETACH_COPIES,
    "from_numpy.py": FROM_NUMPY_COPIES,
    "gan_step_order.py": SGD_STEP_UNCOUNTED,
    "indexed_writes.py": INDEX_PUT_OVERWRITES,
    "inplace_relu_memory.py": RELU_ALLOCATES,
    "mark_dirty.py": MARK_DIRTY_IGNORED,
    "module_to.py": MODULE_TO_COPIES,
    "new_tensor.py": NEW_TENSOR_SHARES,
    "save_view.py": SAVE_CLONES,
    "share_memory.py": SHARE_MEMORY_DOES_NOTHING,
    "view.py": VIEW_COPIES,
    "vmap_inplace.py": VMAP_ON_COPIES,
}
#: More behaviours a gallery script's rules rest on, broken one at a time.
GALLERY_RULES = [
    ("view.py", VIEW_COPIES_NON_FLOAT),
    ("module_to.py", MODULE_TO_KEEPS_BUFFERS),
    ("copy_.py", COPY_DROPS_THE_GRAPH),
    ("from_numpy.py", FORCED_NUMPY_COPIES),
]
DDP_WITHOUT_BUCKET_VIEWS = Sabotage(
    "DistributedDataParallel ignores gradient_as_bucket_view=True",
    ("torch.nn.parallel.DistributedDataParallel.__init__",),
    "def sabotaged(self, module, *args, **kwargs):\n"
    "    kwargs['gradient_as_bucket_view'] = False\n"
    "    original(self, module, *args, **kwargs)",
)
#: MyST pages and the behaviours their rules rest on: each sabotage fails its page.
PAGES = [
    ("mental-model.md", CLONE_SHARES),
    ("mental-model.md", OUT_RESIZE_ALWAYS_NEW),
    ("views.md", VIEW_COPIES),
    ("views.md", EXPAND_WRITE_UNCHECKED),
    ("views.md", VIEW_COPY_ALIASES),
    ("autograd.md", NO_GRAD_VIEWS_KEEP_GRADIENT),
    ("numpy.md", FROM_NUMPY_COPIES),
    ("inplace-memory.md", UNBIND_SELECTS),
    ("indexed-writes.md", INDEX_PUT_OVERWRITES),
    ("indexed-writes.md", UNBIND_SELECTS),
    ("saving.md", SAVE_CLONES),
    ("saving.md", SAVE_FILE_RESOLVES_BITS),
    ("warnings.md", FROM_NUMPY_COPIES),
    ("warnings.md", OUT_RESIZE_ALWAYS_NEW),
    ("modules.md", MODULE_TO_COPIES),
    ("modules.md", CONVERSIONS_OVERWRITE),
    ("processes.md", SHARE_MEMORY_DOES_NOTHING),
    ("processes.md", NUMPY_COPIES),
    ("errors.md", UNBIND_SELECTS),
    ("errors.md", RESHAPE_COPIES),
    ("decision-guide.md", UNBIND_SELECTS),
    ("myths.md", RESHAPE_COPIES),
    ("compiled.md", COMPILE_WRITES_INTO_COPIES),
    ("distributed.md", DDP_WITHOUT_BUCKET_VIEWS),
    ("custom-functions.md", RELU_OUT_OF_PLACE),
    ("custom-functions.md", MARK_DIRTY_IGNORED),
    ("custom-functions.md", REGISTER_HOOK_GETS_A_COPY),
    ("autograd.md", SGD_STEP_UNCOUNTED),
    ("func.md", VMAP_ON_COPIES),
]
#: Sabotages the semantics probe must notice: the operation and the fact that changes.
PROBED = {
    "clone": (CLONE_SHARES, "clone", "shares_storage"),
    "detach": (DETACH_COPIES, "detach", "shares_storage"),
    "view": (VIEW_COPIES, "view", "shares_storage"),
    "new_tensor": (NEW_TENSOR_SHARES, "new_tensor", "shares_storage"),
    "from_numpy": (FROM_NUMPY_COPIES, "torch.from_numpy", "shares_storage"),
    "module_to": (MODULE_TO_COPIES, "module_to", "returns_self"),
    "view_copy": (VIEW_COPY_ALIASES, "view_copy", "shares_storage"),
}


def test_every_page_that_runs_code_has_a_sabotage() -> None:
    running = {
        path.name
        for path in DOCS_DIR.glob("*.md")
        if "```{code-cell}" in path.read_text(encoding="utf-8")
    }
    sabotaged = {page for page, _ in PAGES}
    assert not sabotaged - running, (
        f"PAGES in tests/test_claims_can_fail.py names pages that run no code or are "
        f"gone: {sorted(sabotaged - running)}"
    )
    assert not running - sabotaged, (
        f"no sabotage for {sorted(running - sabotaged)}: define a Sabotage that breaks "
        "a behaviour the page teaches, and add ('<page>.md', THAT_SABOTAGE) to PAGES in "
        "tests/test_claims_can_fail.py (CONTRIBUTING.md, 'adding a chapter')"
    )


def test_every_gallery_script_has_a_sabotage() -> None:
    scripts = {path.name for path in EXAMPLES_DIR.glob("*.py")}
    assert not set(GALLERY) - scripts, (
        f"GALLERY in tests/test_claims_can_fail.py names scripts that are gone: "
        f"{sorted(set(GALLERY) - scripts)}"
    )
    assert not scripts - set(GALLERY), (
        f"no sabotage for {sorted(scripts - set(GALLERY))}: define a Sabotage that "
        "breaks the behaviour the script teaches, and add '<script>.py': THAT_SABOTAGE "
        "to GALLERY in tests/test_claims_can_fail.py (CONTRIBUTING.md, 'adding an "
        "example')"
    )


@pytest.mark.parametrize(
    ("script", "sabotage"),
    [*GALLERY.items(), *GALLERY_RULES],
    ids=[f"{name}: {s.breaks}" for name, s in [*GALLERY.items(), *GALLERY_RULES]],
)
def test_gallery_script_fails_when_its_behaviour_changes(
    script: str, sabotage: Sabotage, tmp_path: Path, torch_device: str
) -> None:
    result, copy = run_script(script, sabotage, tmp_path, torch_device)
    print(f"{sabotage.breaks} -> {failed_claim(result, copy)}")


# Every script and page is proven to pass unpatched by its own test (test_examples.py,
# and Sybil for docs/); one control each shows the harness itself changes nothing.
@pytest.mark.parametrize("script", ["clone.py"])
def test_gallery_script_passes_the_sabotage_harness_unchanged(
    script: str, tmp_path: Path, torch_device: str
) -> None:
    result, _ = run_script(script, NO_OP, tmp_path, torch_device)
    assert result.returncode == 0, (
        f"{script} fails under the sabotage harness with a no-op patch, so the "
        f"harness, not a sabotage, breaks it:\n{result.stderr[-3000:]}"
    )


@pytest.mark.parametrize(
    ("page", "sabotage"),
    PAGES,
    ids=[f"{name}: {s.breaks}" for name, s in PAGES],
)
def test_page_fails_when_its_behaviour_changes(
    page: str, sabotage: Sabotage, tmp_path: Path, torch_device: str
) -> None:
    result, path = run_page(page, sabotage, tmp_path, torch_device)
    print(f"{sabotage.breaks} -> {failed_claim(result, path)}")


@pytest.mark.parametrize("page", ["mental-model.md"])
def test_page_passes_the_sabotage_harness_unchanged(
    page: str, tmp_path: Path, torch_device: str
) -> None:
    result, _ = run_page(page, NO_OP, tmp_path, torch_device)
    assert result.returncode == 0, (
        f"{page} fails under the sabotage harness with a no-op patch, so the "
        f"harness, not a sabotage, breaks it:\n{result.stderr[-3000:]}"
    )


def probe_device(op: catalogue.Operation, device: str) -> str:
    """The run's device when the operation applies there, else the CPU (NumPy ops)."""
    return device if op.applies_to(device) else "cpu"


@pytest.mark.parametrize(("sabotage", "op_id", "field"), PROBED.values(), ids=PROBED)
def test_semantics_check_reports_a_changed_behaviour(
    sabotage: Sabotage,
    op_id: str,
    field: str,
    monkeypatch: pytest.MonkeyPatch,
    torch_device: str,
) -> None:
    op = catalogue.BY_ID[op_id]
    device = probe_device(op, torch_device)
    sabotage.install(monkeypatch)
    found = check.differences(probe.measure(op, device))
    assert field in {d.field for d in found}, (
        f"with {sabotage.breaks}, the semantics check reported "
        f"{[str(d) for d in found] or 'no difference'} for {op.code} on {device}, "
        f"not a change of {field}"
    )


@pytest.mark.parametrize("op_id", sorted({op_id for _, op_id, _ in PROBED.values()}))
def test_semantics_check_agrees_without_sabotage(op_id: str, torch_device: str) -> None:
    op = catalogue.BY_ID[op_id]
    device = probe_device(op, torch_device)
    found = check.differences(probe.measure(op, device))
    assert not found, f"unsabotaged PyTorch already differs: {[str(d) for d in found]}"
