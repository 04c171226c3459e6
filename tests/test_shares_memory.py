"""The memory-sharing test is right on the cases that defeat simpler tests, and it is
the same test everywhere: the probe imports it, every page and script carries a copy."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from semantics import memory
from semantics.memory import shares_memory

ROOT = Path(__file__).resolve().parents[1]
#: Every page and gallery script that may compare tensors' memory.
SOURCES = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("examples/*.py")])


def test_empty_tensors_share_nothing_though_both_storages_start_at_zero() -> None:
    e, f = torch.empty(0), torch.empty(0)
    assert e.untyped_storage().data_ptr() == f.untyped_storage().data_ptr() == 0
    assert not shares_memory(e, f)
    assert not shares_memory(e, torch.empty_like(e))
    assert not shares_memory(e, e)  # not even with itself: it holds no byte


def test_tensors_over_one_numpy_buffer_share_though_their_storages_differ() -> None:
    a = np.arange(6.0)
    t, u = torch.from_numpy(a), torch.from_numpy(a[2:])
    assert t.untyped_storage().data_ptr() != u.untyped_storage().data_ptr()
    assert shares_memory(t, u) and shares_memory(u, t)
    u[0] = 100.0
    assert t[2].item() == 100.0  # the write is seen through the other tensor


def test_partly_overlapping_numpy_slices_share() -> None:
    a = np.arange(6.0)
    assert shares_memory(torch.from_numpy(a[:3]), torch.from_numpy(a[2:]))
    assert not shares_memory(torch.from_numpy(a[:2]), torch.from_numpy(a[2:]))


def test_a_dtype_view_shares_though_autograd_does_not_call_it_a_view() -> None:
    x = torch.arange(4.0)
    bits = x.view(torch.int32)
    assert not bits._is_view() and bits._base is None
    assert shares_memory(x, bits)
    bits[0] = 1
    assert x[0].item() != 0.0


def test_disjoint_halves_of_one_storage_share_it() -> None:
    x = torch.arange(4.0)
    first, rest = x[:1], x[1:]
    assert shares_memory(first, rest)  # one storage, though no element in common
    assert not np.shares_memory(first.numpy(), rest.numpy())


def test_unrelated_tensors_and_copies_do_not_share() -> None:
    x = torch.arange(4.0)
    assert not shares_memory(x, torch.arange(4.0))
    assert not shares_memory(x, x.clone())
    assert shares_memory(x, x) and shares_memory(x, x.view(2, 2))


def test_tensors_without_memory_or_on_other_devices_do_not_share() -> None:
    meta = torch.empty(3, device="meta")
    assert meta.untyped_storage().data_ptr() == 0 < meta.untyped_storage().nbytes()
    assert not shares_memory(meta, torch.empty(3, device="meta"))
    assert not shares_memory(meta, meta)
    assert not shares_memory(torch.zeros(3), meta)


def defined_copies(path: Path) -> list[str]:
    """The source of every ``shares_memory`` function a page or script defines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":  # the code of the page's Python cells, in order
        text = "\n".join(
            re.findall(r"```\{code-cell\} python\n(.*?)```", text, flags=re.DOTALL)
        )
        text = "\n".join(
            line for line in text.splitlines() if not line.startswith((":", "%"))
        )
    tree = ast.parse(text)
    return [
        ast.get_source_segment(text, node) or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "shares_memory"
    ]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_copy_of_the_test_is_the_canonical_one(path: Path) -> None:
    canonical = inspect.getsource(memory.shares_memory).strip()
    for copy in defined_copies(path):
        assert copy.strip() == canonical, (
            f"{path.name} defines shares_memory differently from "
            "semantics/memory.py: copy the canonical function there unchanged"
        )


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_page_or_script_compares_storage_addresses_for_sharing(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "storage_address" not in text, (
        f"{path.name} still uses storage_address(): equal start addresses do not mean "
        "shared memory; use shares_memory()"
    )
