"""The memory helpers are right on the cases that defeat simpler methods, and they are
the same everywhere: the probe imports them, every page and script carries a copy."""

from __future__ import annotations

import ast
import inspect
import re
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from semantics import cases, memory
from semantics.memory import counted_bytes, measure, shares_memory

ROOT = Path(__file__).resolve().parents[1]
#: Every page and gallery script that may compare tensors' memory.
SOURCES = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("examples/*.py")])
#: The functions pages and scripts copy, by name: (the module that holds it, its source).
CANONICAL = {
    name: (module.__name__, inspect.getsource(getattr(module, name)).strip())
    for module, names in (
        (memory, ("shares_memory", "measure", "counted_bytes")),
        (cases, ("layout_cases", "state_cases", "grad_modes")),
    )
    for name in names
}
CPU = torch.device("cpu")
MiB = 2**20


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
    assert shares_memory(t, u)
    assert shares_memory(u, t)
    u[0] = 100.0
    assert t[2].item() == 100.0  # the write is seen through the other tensor


def test_partly_overlapping_numpy_slices_share() -> None:
    a = np.arange(6.0)
    assert shares_memory(torch.from_numpy(a[:3]), torch.from_numpy(a[2:]))
    assert not shares_memory(torch.from_numpy(a[:2]), torch.from_numpy(a[2:]))


def test_a_dtype_view_shares_though_autograd_does_not_call_it_a_view() -> None:
    x = torch.arange(4.0)
    bits = x.view(torch.int32)
    assert not bits._is_view()
    assert bits._base is None
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
    assert shares_memory(x, x)
    assert shares_memory(x, x.view(2, 2))


def test_tensors_without_memory_or_on_other_devices_do_not_share() -> None:
    meta = torch.empty(3, device="meta")
    assert meta.untyped_storage().data_ptr() == 0 < meta.untyped_storage().nbytes()
    assert not shares_memory(meta, torch.empty(3, device="meta"))
    assert not shares_memory(meta, meta)
    assert not shares_memory(torch.zeros(3), meta)


def test_measure_counts_the_result_of_an_out_of_place_op_and_nothing_in_place() -> None:
    x = torch.randn(MiB)
    result, peak, held = measure(lambda: torch.relu(x), CPU)
    assert peak == held == x.numel() * x.element_size()
    assert torch.equal(result, x.relu())
    _, peak, held = measure(lambda: x.relu_(), CPU)
    assert peak == held == 0


def test_measure_sees_temporaries_freed_inside_one_operator() -> None:
    # A float32 tensor plus a float64 one, in place: PyTorch computes in float64 into
    # two temporaries the size of x, then copies back. The profiler's per-operator
    # table nets them to zero; the allocation events do not.
    x, other = torch.randn(MiB), torch.randn(MiB, dtype=torch.float64)
    _, peak, held = measure(lambda: x.add_(other), CPU)
    assert peak == 2 * x.numel() * other.element_size()
    assert held == 0


def test_measure_reports_a_net_change_when_earlier_memory_is_freed() -> None:
    kept = [measure(lambda: torch.empty(1024), CPU)[0]]  # allocated while profiling
    assert measure(kept.clear, CPU)[1:] == (0, -1024 * 4)  # freed now: a net fall

    kept = [measure(lambda: torch.empty(MiB), CPU)[0]]

    def swap() -> torch.Tensor:
        kept.clear()  # frees 4 MiB allocated under the earlier measure ...
        return torch.empty(MiB)  # ... then allocates 4 MiB again

    result, peak, held = measure(swap, CPU)
    assert (peak, held) == (0, 0)
    assert result.numel() == MiB


def test_measure_does_not_see_other_threads() -> None:
    box: list[torch.Tensor] = []

    def allocate_elsewhere() -> None:
        thread = threading.Thread(target=lambda: box.append(torch.empty(MiB)))
        thread.start()
        thread.join()

    assert measure(allocate_elsewhere, CPU)[1:] == (0, 0)
    assert box


def test_counted_bytes_is_exact_on_the_cpu_and_rounds_on_cuda() -> None:
    assert counted_bytes([10, 3 * MiB], CPU) == (10 + 3 * MiB, 10 + 3 * MiB)
    cuda = torch.device("cuda")
    assert counted_bytes([10], cuda) == (512, 512)
    assert counted_bytes([MiB], cuda) == (MiB, MiB)  # a small block: split exactly
    relu_output = 10_000 * 10_000 * 4  # the ReLU example's tensor
    least, most = counted_bytes([relu_output], cuda)
    assert least == relu_output
    assert most == relu_output + MiB
    assert least <= 191 * 2 * MiB <= most  # what the allocator's source gives for it


def defined_copies(path: Path, name: str) -> list[str]:
    """The source of every function called ``name`` that a page or script defines."""
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
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_copy_of_a_helper_is_the_canonical_one(path: Path) -> None:
    for name, (module, canonical) in CANONICAL.items():
        for copy in defined_copies(path, name):
            # The same code, whatever the line width it was formatted to (gallery
            # scripts are formatted to 79 columns, the package to 88).
            assert ast.dump(ast.parse(copy.strip())) == ast.dump(
                ast.parse(canonical)
            ), (
                f"{path.name} defines {name} differently from {module}: copy the "
                "canonical function there unchanged"
            )


EXECUTED = [
    path
    for path in SOURCES
    if path.suffix == ".py" or "file_format: mystnb" in path.read_text(encoding="utf-8")
]


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: p.name)
def test_every_script_and_executed_page_carries_the_sharing_test(path: Path) -> None:
    assert defined_copies(path, "shares_memory"), (
        f"{path.name} runs code but does not define shares_memory: copy it from "
        "semantics/memory.py, and prove sharing with it"
    )


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_page_or_script_compares_storage_addresses_for_sharing(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "storage_address" not in text, (
        f"{path.name} still uses storage_address(): equal start addresses do not mean "
        "shared memory; use shares_memory()"
    )
