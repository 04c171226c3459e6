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
#: The behaviour at the heart of each gallery script's lesson, broken.
GALLERY = {
    "clone.py": CLONE_SHARES,
    "copy_.py": COPY_INTO_NEW,
    "detach.py": DETACH_COPIES,
    "from_numpy.py": FROM_NUMPY_COPIES,
    "indexed_writes.py": INDEX_PUT_OVERWRITES,
    "inplace_relu_memory.py": RELU_ALLOCATES,
    "module_to.py": MODULE_TO_COPIES,
    "new_tensor.py": NEW_TENSOR_SHARES,
    "save_view.py": SAVE_CLONES,
    "share_memory.py": SHARE_MEMORY_DOES_NOTHING,
    "view.py": VIEW_COPIES,
}
#: MyST pages and the behaviour each one's argument rests on.
PAGES = {
    "mental-model.md": CLONE_SHARES,
    "views.md": VIEW_COPIES,
    "numpy.md": FROM_NUMPY_COPIES,
    "saving.md": SAVE_CLONES,
    "modules.md": MODULE_TO_COPIES,
    "processes.md": SHARE_MEMORY_DOES_NOTHING,
    "indexed-writes.md": INDEX_PUT_OVERWRITES,
}
#: Sabotages the semantics probe must notice: the operation and the fact that changes.
PROBED = {
    "clone": (CLONE_SHARES, "clone", "shares_storage"),
    "detach": (DETACH_COPIES, "detach", "shares_storage"),
    "view": (VIEW_COPIES, "view", "shares_storage"),
    "new_tensor": (NEW_TENSOR_SHARES, "new_tensor", "shares_storage"),
    "from_numpy": (FROM_NUMPY_COPIES, "torch.from_numpy", "shares_storage"),
    "module_to": (MODULE_TO_COPIES, "module_to", "returns_self"),
}


def test_every_gallery_script_has_a_sabotage() -> None:
    scripts = {path.name for path in EXAMPLES_DIR.glob("*.py")}
    assert scripts == set(GALLERY), (
        f"gallery scripts without a sabotage: {sorted(scripts - set(GALLERY))}; "
        f"sabotages for missing scripts: {sorted(set(GALLERY) - scripts)}"
    )


@pytest.mark.parametrize(
    ("script", "sabotage"),
    GALLERY.items(),
    ids=[f"{name}: {s.breaks}" for name, s in GALLERY.items()],
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
    PAGES.items(),
    ids=[f"{name}: {s.breaks}" for name, s in PAGES.items()],
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
