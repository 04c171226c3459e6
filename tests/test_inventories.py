"""The intersphinx inventories kept in the repo point at the official sites' real pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinx.util.inventory import InventoryFile

INVENTORIES = Path(__file__).resolve().parents[1] / "conf" / "inventories"

# A sample of (inventory, domain:role, name, URL) taken from the official sites.
SAMPLE = [
    ("torch", "py:method", "torch.Tensor.clone",
     "https://docs.pytorch.org/docs/stable/generated/torch.Tensor.clone.html#torch.Tensor.clone"),
    ("torch", "py:method", "torch.Tensor.detach",
     "https://docs.pytorch.org/docs/stable/generated/torch.Tensor.detach.html#torch.Tensor.detach"),
    ("torch", "py:function", "torch.from_numpy",
     "https://docs.pytorch.org/docs/stable/generated/torch.from_numpy.html#torch.from_numpy"),
    ("torch", "py:class", "torch.Tensor",
     "https://docs.pytorch.org/docs/stable/tensors.html#torch.Tensor"),
    ("torch", "py:class", "torch.no_grad",
     "https://docs.pytorch.org/docs/stable/generated/torch.no_grad.html#torch.no_grad"),
    ("torch", "py:function", "torch.nn.functional.relu",
     "https://docs.pytorch.org/docs/stable/generated/torch.nn.functional.relu.html#torch.nn.functional.relu"),
    ("torch", "py:method", "torch.nn.Module.state_dict",
     "https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.state_dict"),
    ("torch", "py:function", "torch.cuda.max_memory_allocated",
     "https://docs.pytorch.org/docs/stable/generated/torch.cuda.max_memory_allocated.html#torch.cuda.max_memory_allocated"),
    ("torch", "py:class", "torch.dtype",
     "https://docs.pytorch.org/docs/stable/tensor_attributes.html#torch.dtype"),
    ("torch", "py:function", "torch.nn.init.normal_",
     "https://docs.pytorch.org/docs/stable/nn.init.html#torch.nn.init.normal_"),
    ("torch", "py:class", "torch.optim.SGD",
     "https://docs.pytorch.org/docs/stable/generated/torch.optim.SGD.html#torch.optim.SGD"),
    ("numpy", "py:function", "numpy.shares_memory",
     "https://numpy.org/doc/stable/reference/generated/numpy.shares_memory.html#numpy.shares_memory"),
    ("numpy", "py:class", "numpy.ndarray",
     "https://numpy.org/doc/stable/reference/generated/numpy.ndarray.html#numpy.ndarray"),
    ("numpy", "py:attribute", "numpy.ndarray.base",
     "https://numpy.org/doc/stable/reference/generated/numpy.ndarray.base.html#numpy.ndarray.base"),
    ("python", "py:function", "id", "https://docs.python.org/3/library/functions.html#id"),
    ("python", "py:function", "copy.deepcopy",
     "https://docs.python.org/3/library/copy.html#copy.deepcopy"),
    ("python", "py:exception", "RuntimeError",
     "https://docs.python.org/3/library/exceptions.html#RuntimeError"),
    ("python", "py:class", "list", "https://docs.python.org/3/library/stdtypes.html#list"),
]  # fmt: skip
BASES = {
    "torch": "https://docs.pytorch.org/docs/stable/",
    "numpy": "https://numpy.org/doc/stable/",
    "python": "https://docs.python.org/3/",
}


def _load(name: str) -> dict:
    content = (INVENTORIES / f"{name}.inv").read_bytes()
    return InventoryFile.loads(content, uri=BASES[name]).data


@pytest.mark.parametrize(
    ("inventory", "objtype", "name", "url"), SAMPLE, ids=[s[2] for s in SAMPLE]
)
def test_inventory_entry_points_at_the_official_page(
    inventory: str, objtype: str, name: str, url: str
) -> None:
    entries = _load(inventory)
    assert name in entries.get(objtype, {}), (
        f"{name} missing from {inventory}.inv as {objtype}"
    )
    assert entries[objtype][name].uri == url


def test_no_entry_points_at_another_host() -> None:
    for inventory, base in BASES.items():
        for objects in _load(inventory).values():
            for name, item in objects.items():
                assert item.uri.startswith(base), (
                    f"{name} in {inventory}.inv points at {item.uri}"
                )
