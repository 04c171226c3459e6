"""The catalogue covers every operation the site promises, each defined once and soundly."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from sphinx.util.inventory import InventoryFile

from semantics import catalogue
from semantics.catalogue import BY_ID, CATALOGUE, FIELDS, GROUP_IDS

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = ROOT / "conf" / "inventories"
ROLE_TYPES = {
    "meth": "py:method",
    "func": "py:function",
    "attr": "py:attribute",
    "class": "py:class",
}

# Every id the reference promises, with the expression it stands for. Index tensors
# carry ``device=x.device`` so that the same text also runs on a GPU, and the module of
# ``state_dict`` is named ``m`` so that its weight can be compared with the result.
PROMISED = {
    "clone": "x.clone()",
    "detach": "x.detach()",
    "detach_clone": "x.detach().clone()",
    "copy_": "torch.empty_like(x).copy_(x)",
    "new_tensor": "x.new_tensor(x)",
    "torch.tensor": "torch.tensor(x)",
    "torch.as_tensor": "torch.as_tensor(x)",
    "view": "x.view(3, 2)",
    "view_as": "x.view_as(torch.empty(3, 2))",
    "reshape_contiguous": "x.reshape(3, 2)",
    "reshape_noncontiguous": "x.t().reshape(6)",
    "flatten_contiguous": "x.flatten()",
    "contiguous_already": "x.contiguous()",
    "contiguous_from_transposed": "x.t().contiguous()",
    "slice_basic": "x[:, 1:]",
    "index_int": "x[0]",
    "index_advanced": "x[[0, 1]]",
    "index_bool_mask": "x[x > 2]",
    "index_select": "x.index_select(0, torch.tensor([0, 1], device=x.device))",
    "masked_select": "x.masked_select(x > 2)",
    "gather": "x.gather(1, torch.tensor([[0], [1]], device=x.device))",
    "narrow": "x.narrow(1, 0, 2)",
    "select": "x.select(0, 1)",
    "t": "x.t()",
    "transpose": "x.transpose(0, 1)",
    "permute": "x.permute(1, 0)",
    "expand": "x[:1].expand(4, 3)",
    "unsqueeze": "x.unsqueeze(0)",
    "squeeze": "x.unsqueeze(0).squeeze(0)",
    "split": "x.split(1)[1]",
    "chunk": "x.chunk(2)[1]",
    "unbind": "x.unbind()[1]",
    "diagonal": "x.diagonal()",
    "unfold": "x.unfold(1, 2, 1)",
    "movedim": "x.movedim(0, 1)",
    "flip": "x.flip(0)",
    "to_same_dtype": "x.to(torch.float32)",
    "to_other_dtype": "x.to(torch.float64)",
    "float_same_dtype": "x.float()",
    "cpu_on_cpu": "x.cpu()",
    "data": "x.data",
    "copy.copy": "copy.copy(x)",
    "copy.deepcopy": "copy.deepcopy(x)",
    "add_out_of_place": "x + 0",
    "relu": "F.relu(x)",
    "relu_": "F.relu_(y)",
    "add_": "y.add_(1)",
    "torch.from_numpy": "torch.from_numpy(a)",
    "Tensor.numpy": "t.numpy()",
    "Tensor.numpy_force": "x.numpy(force=True)",
    "state_dict": 'm.state_dict()["weight"]',
    # The two cases where comparing storage start addresses gives the wrong answer.
    "empty_like_of_empty": "torch.empty_like(e)",
    "from_numpy_offset": "torch.from_numpy(a[2:])",
    "view_dtype": "x.view(torch.int32)",
    "unflatten": "x.unflatten(1, (3, 1))",
    "tensor_split": "x.tensor_split(3, dim=1)[1]",
    "hsplit": "x.hsplit(3)[1]",
    "vsplit": "x.vsplit(2)[1]",
    "swapaxes": "x.swapaxes(0, 1)",
    "as_strided": "x.as_strided((3,), (2,))",
    "adjoint": "x.adjoint()",
    "mH": "x.mH",
    "ravel": "x.ravel()",
    "expand_as": "x[:1].expand_as(torch.empty(4, 3))",
    "roll": "x.roll(1)",
    "torch.asarray": "torch.asarray(x)",
    "nn_parameter": "nn.Parameter(x)",
    "view_as_real": "torch.view_as_real(z)",
    "real_of_complex": "z.real",
    "torch.frombuffer": "torch.frombuffer(b, dtype=torch.float32)",
    "module_to": "m.to(torch.float64)",
    "module_double": "m.double()",
    # PyTorch's own list of views (test_view_ops.py, the Tensor Views page).
    "conj_of_complex": "z.conj()",
    "conj_of_real": "x.conj()",
    "imag_of_complex": "z.imag",
    "imag_of_real": "x.imag",
    "conj_imag": "z.conj().imag",
    "swapdims": "x.swapdims(0, 1)",
    "moveaxis": "x.moveaxis(0, 1)",
    "T_attr": "x.T",
    "H_attr": "x.H",
    "reshape_as_view": "x.reshape_as(torch.empty(3, 2))",
    "reshape_as_copy": "x.t().reshape_as(torch.empty(6))",
    "view_copy": "torch.view_copy(x, (3, 2))",
    "sparse_values": "s.values()",
    "values_uncoalesced": "u.values()",
    "sparse_indices": "s.indices()",
    "crow_indices": "c.crow_indices()",
}
# The operations that cross devices, measured on CUDA runs.
CROSSING = {
    "to_cuda": 'x.to("cuda")',
    "cuda": "x.cuda()",
    "cpu_of_cuda": "x.cpu()",
    "copy_across_devices": 'torch.empty_like(x, device="cuda").copy_(x)',
    "pin_memory": "x.pin_memory()",
    "numpy_of_cuda": "t.numpy()",
}


@pytest.mark.parametrize(("op_id", "code"), PROMISED.items(), ids=list(PROMISED))
def test_promised_operation_is_catalogued_with_its_expression(
    op_id: str, code: str
) -> None:
    assert op_id in BY_ID, f"the catalogue lost {op_id!r}"
    assert BY_ID[op_id].code == code
    assert BY_ID[op_id].applies_to("cpu"), f"{op_id} must be measured on every build"


# Ids are prefixed: a bare "cuda" id would read as the cuda marker and skip on CPU runs.
@pytest.mark.parametrize(
    ("op_id", "code"), CROSSING.items(), ids=[f"op:{op_id}" for op_id in CROSSING]
)
def test_device_crossing_is_catalogued_for_cuda_runs(op_id: str, code: str) -> None:
    op = BY_ID[op_id]
    assert op.code == code
    assert op.group == "devices"
    assert op.applies_to("cuda")
    assert not op.applies_to("cpu")


def test_the_address_traps_state_what_overlapping_bytes_say() -> None:
    empty, offset = BY_ID["empty_like_of_empty"], BY_ID["from_numpy_offset"]
    assert empty.given == "`e = torch.empty(0)`"
    assert empty.source == "e"
    assert empty.expect.shares_storage is False  # both storages start at address 0
    assert offset.given == (
        "`t = torch.from_numpy(a)`, `a = np.arange(6.0)`, compared with `t`"
    )
    assert offset.source == "t"
    facts = offset.expect
    assert (facts.shares_storage, facts.writes_propagate) == (True, True)
    assert facts.shares_version_counter is False  # one counter per from_numpy call


def test_the_catalogue_has_no_inconsistency() -> None:
    assert catalogue.problems() == []


def test_problems_are_found_when_a_group_rule_is_broken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clone = BY_ID["clone"]
    broken = catalogue.replace(clone, group="views")  # a copy filed under views
    monkeypatch.setattr(catalogue, "CATALOGUE", (*CATALOGUE, broken))
    found = catalogue.problems()
    assert "duplicate id 'clone'" in found
    assert "clone: expected facts on any do not fit group 'views'" in found


def test_the_in_place_rows_use_a_non_leaf_and_the_numpy_rows_an_array() -> None:
    assert BY_ID["relu_"].source == "y"
    assert BY_ID["add_"].source == "y"
    names = BY_ID["torch.from_numpy"].setup("cpu")
    assert names["a"].dtype.name == "float64"  # type: ignore[attr-defined]
    x = BY_ID["clone"].setup("cpu")["x"]
    assert x.is_leaf
    assert x.requires_grad
    assert not x._is_view()
    assert (x.dtype, tuple(x.shape)) == (torch.float32, (2, 3))


def test_every_group_has_operations_and_every_operation_a_known_group() -> None:
    assert {op.group for op in CATALOGUE} == set(GROUP_IDS)
    with pytest.raises(KeyError, match="no group 'nope'"):
        catalogue.group("nope")


def test_lookup_names_the_unknown_ids() -> None:
    assert [op.id for op in catalogue.lookup(["view", "clone"])] == ["view", "clone"]
    with pytest.raises(KeyError, match="unknown operation id\\(s\\): nope"):
        catalogue.lookup(["view", "nope"])


def test_expected_facts_cover_every_measured_field() -> None:
    assert catalogue.fact_names() == (*FIELDS, "error", "error_since")


def test_an_error_type_that_moved_is_stated_per_release() -> None:
    imag = BY_ID["imag_of_real"].expected("cpu")
    assert imag.error_on("2.13.0+cpu") == imag.error_on("2.14.1") == "RuntimeError"
    assert imag.error_on("2.15.0+cu132") == imag.error_on("2.16.0") == "TypeError"
    assert BY_ID["view"].expected("cpu").error_on("2.15.0") is None


def test_device_specific_facts_override_the_default() -> None:
    bridge = BY_ID["detach_cpu_numpy"]
    assert bridge.expected("cpu").shares_storage is True
    assert bridge.expected("cuda").shares_storage is False


def _inventory_names() -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for path in INVENTORIES.glob("*.inv"):
        data = InventoryFile.loads(path.read_bytes(), uri="").data
        for objtype, objects in data.items():
            names.setdefault(objtype, set()).update(objects)
    return names


def test_every_api_link_is_in_an_inventory() -> None:
    names = _inventory_names()
    missing = [
        f"{op.id}: {role} {target}"
        for op in CATALOGUE
        if op.api is not None
        for role, target in [op.api]
        if target not in names.get(ROLE_TYPES[role], set())
    ]
    assert not missing, f"API links that intersphinx cannot resolve: {missing}"


def test_every_gallery_link_names_an_example_script() -> None:
    missing = [
        f"{op.id}: {op.gallery}"
        for op in CATALOGUE
        if op.gallery is not None
        and not (
            ROOT / "examples" / f"{op.gallery.removeprefix('gallery/')}.py"
        ).exists()
    ]
    assert not missing, f"gallery pages that no example generates: {missing}"


def test_the_complex_rows_start_from_a_complex64_leaf_and_frombuffer_from_bytes() -> (
    None
):
    for op_id in ("view_as_real", "real_of_complex"):
        z = BY_ID[op_id].setup("cpu")["z"]
        assert (z.dtype, tuple(z.shape)) == (torch.complex64, (2, 3))
        assert z.is_leaf
        assert z.requires_grad
    b = BY_ID["torch.frombuffer"].setup("cpu")["b"]
    assert type(b) is bytearray
    assert len(b) == 16
    assert BY_ID["torch.frombuffer"].given == "`b = bytearray(16)`"


def test_the_module_rows_compare_the_result_with_the_module_itself() -> None:
    for op_id in ("module_to", "module_double"):
        op = BY_ID[op_id]
        assert op.source == "m"
        assert op.expect.returns_self is True


def test_the_site_reads_the_catalogue_and_measurements_without_torch() -> None:
    # A rebuild with nothing to measure renders from these alone; importing torch
    # would add about a second to it.
    code = (
        "import sys; import semantics.catalogue, semantics.check, semantics.measurement;"
        "sys.exit('torch' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, check=False)
    assert result.returncode == 0, "importing the catalogue imported torch"


def test_the_catalogue_lists_its_rows_in_the_order_of_the_groups() -> None:
    # The matrix shows one table per group, in GROUPS order, and its rows must read
    # in catalogue order: a row filed away from its group's part breaks that.
    order = [group.id for group in catalogue.GROUPS]
    misplaced = [
        op.id
        for before, op in itertools.pairwise(CATALOGUE)
        if order.index(op.group) < order.index(before.group)
    ]
    assert not misplaced, f"rows outside their group's part of CATALOGUE: {misplaced}"
