"""Each measurement of the probe tells the cases apart that it exists to tell apart.

Every field is checked on fake operations whose answer is known by construction, in
both directions and for the case where it cannot be measured, so a broken measurement
(one that always says yes, or reads the wrong attribute) fails here.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from semantics import catalogue, check, measurement, probe
from semantics.catalogue import FIELDS, Operation


def given(device: str) -> dict[str, object]:
    """Names for the fake operations: a leaf ``x`` that requires grad, and helpers."""
    x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], requires_grad=True)
    with torch.inference_mode():
        frozen = torch.zeros(3)
    return {
        "x": x,
        "t": x.detach(),
        "frozen": frozen,
        "same_memory_not_a_view": lambda: torch.empty(0).set_(
            x.detach().untyped_storage(), 0, (2, 3), (3, 1)
        ),
        "read_only": lambda: _read_only(x.detach().numpy()),
        "meta": torch.empty(2, 3, device="meta"),
        "empty": torch.empty(0),
        "buffer": bytearray(8),
        "fail": _fail,
    }


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _fail() -> None:
    raise ValueError("first line of the message\nsecond line, left out")


def fake(code: str, source: str = "x") -> Operation:
    """A fake operation evaluating ``code`` on the names above."""
    return Operation(
        id=f"fake {code}",
        code=code,
        group="copies",
        expect=catalogue.RAISES,
        start=catalogue.Start("", given, source, source),
    )


def measured(code: str, field: str, source: str = "x") -> bool | None:
    """One field of a fake operation, measured on the CPU."""
    return getattr(probe.measure(fake(code, source), "cpu"), field)


# (expression, source, expected) per field: yes, no, and "cannot be measured".
CASES = {
    "shares_storage": [
        ("x.view(6)", "x", True),
        ("same_memory_not_a_view()", "x", True),  # same storage, no view relation
        ("x.clone()", "x", False),
        (
            "torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])",
            "x",
            False,
        ),  # equal values
        ("t.numpy()", "t", True),
        ("t.numpy().copy()", "t", False),
        ("t.numpy()", "meta", False),  # device memory is never host memory
        ("torch.empty(0)", "empty", False),  # both start at address 0, hold no byte
        ("torch.from_numpy(t.numpy()[1:])", "t", True),  # another storage, same bytes
        ("1", "x", None),  # not a tensor or an array
    ],
    "writes_propagate": [
        ("x[0]", "x", True),
        ("x.clone()", "x", False),
        ("t.numpy()", "t", True),
        ("read_only()", "x", None),  # the write is refused
        ("empty.view(0)", "empty", None),  # no element to write
        ("1", "x", None),
    ],
    "returns_self": [
        ("x", "x", True),
        ("x.view_as(x)", "x", False),  # same memory, another object
        ("t.numpy()", "t", False),
    ],
    "result_requires_grad": [
        ("x * 2", "x", True),
        ("x.detach()", "x", False),
        ("t.numpy()", "t", None),
    ],
    "result_is_leaf": [
        ("x", "x", True),
        ("x * 2", "x", False),
        ("t.numpy()", "t", None),
    ],
    "grad_flows_to_source": [
        ("x * 2", "x", True),
        ("x.detach()", "x", False),
        ("x.detach().requires_grad_()", "x", False),  # requires grad, but disconnected
        ("t * 2", "t", None),  # the source does not require grad
        ("x.detach().numpy()", "x", None),  # NumPy has no autograd
    ],
    "shares_version_counter": [
        ("x.detach()", "x", True),
        ("x.data", "x", False),  # same memory, a counter of its own
        ("x.clone()", "x", False),
        ("frozen.view(3)", "frozen", None),  # inference tensors refuse the write
        ("empty.view(0)", "empty", True),  # an in-place op counts, writing nothing
        ("torch.empty_like(empty)", "empty", False),
        ("t.numpy()", "t", None),
    ],
}
PARAMS = [
    pytest.param(field, code, source, expected, id=f"{field}: {code} -> {expected}")
    for field, cases in CASES.items()
    for code, source, expected in cases
]


def test_every_field_has_fake_cases_for_yes_and_no() -> None:
    assert set(CASES) == set(FIELDS)
    for field, cases in CASES.items():
        outcomes = {expected for _, _, expected in cases}
        assert {True, False} <= outcomes, f"{field} needs a yes and a no case"


@pytest.mark.parametrize(("field", "code", "source", "expected"), PARAMS)
def test_measurement_tells_the_cases_apart(
    field: str, code: str, source: str, expected: bool | None
) -> None:
    assert measured(code, field, source) is expected


def test_an_expression_that_raises_records_its_error_and_nothing_else() -> None:
    result = probe.measure(fake("fail()"), "cpu")
    assert result.error == "ValueError: first line of the message"
    assert all(getattr(result, field) is None for field in FIELDS)


def test_an_error_without_a_message_is_named_by_its_type() -> None:
    assert probe.describe_error(KeyboardInterrupt()) == "KeyboardInterrupt"


def test_warnings_of_an_expression_do_not_escape_the_probe() -> None:
    # pytest turns warnings into errors here; torch.tensor(x) warns.
    assert probe.measure(fake("torch.tensor(x)"), "cpu").error is None


def test_each_field_is_measured_on_a_fresh_evaluation() -> None:
    calls = []

    def counting(device: str) -> dict[str, object]:
        calls.append(device)
        return given(device)

    op = fake("x[0]")
    op = catalogue.replace(op, start=catalogue.replace(op.start, setup=counting))
    probe.measure(op, "cpu")
    # One evaluation per field: a write made to measure one field cannot leak into
    # the measurement of another.
    assert len(calls) == len(FIELDS)


def test_probe_skips_operations_for_other_devices() -> None:
    measured_ids = {m.op for m in probe.probe("cpu")}
    assert "clone" in measured_ids
    assert "to_cuda" not in measured_ids
    assert [op.id for op in probe.not_measured(["cpu"])] == [
        op.id for op in catalogue.CATALOGUE if op.devices == ("cuda",)
    ]


def test_report_has_the_published_schema() -> None:
    document = probe.report(["cpu"])
    assert list(document) == ["torch_version", "devices", "entries"]
    assert document["torch_version"] == torch.__version__
    assert document["devices"] == ["cpu"]
    entries = document["entries"]
    assert isinstance(entries, list)
    keys = ["op", "code", "device", *FIELDS, "error"]
    for entry in entries:
        assert list(entry) == keys
        assert entry["device"] == "cpu"
        assert all(entry[f] in (True, False, None) for f in FIELDS)
        assert entry["error"] is None or isinstance(entry["error"], str)
    ops = [entry["op"] for entry in entries]
    assert len(ops) == len(set(ops)), "one entry per operation and device"
    assert measurement.from_json(entries[0]).to_json() == entries[0]


def test_available_devices_start_with_the_cpu_and_add_the_accelerator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert probe.available_devices()[0] == "cpu"
    monkeypatch.setattr(torch.accelerator, "is_available", lambda: True)
    monkeypatch.setattr(
        torch.accelerator, "current_accelerator", lambda: torch.device("cuda")
    )
    assert probe.available_devices() == ["cpu", "cuda"]


def test_a_changed_behaviour_is_reported_field_by_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clone = catalogue.BY_ID["clone"]
    sharing = catalogue.replace(clone, expect=clone.expect.with_(shares_storage=True))
    monkeypatch.setattr(check, "BY_ID", {**catalogue.BY_ID, "clone": sharing})
    (difference,) = check.differences(probe.measure(clone, "cpu"))
    assert (difference.op, difference.device, difference.field) == (
        "clone",
        "cpu",
        "shares_storage",
    )
    assert str(difference) == (
        "clone (x.clone()) on cpu: shares_storage is no, but the site states yes"
    )


def test_an_error_is_compared_by_its_type() -> None:
    leaf_write = probe.measure(catalogue.BY_ID["add_leaf"], "cpu")
    assert leaf_write.error is not None
    assert leaf_write.error.startswith("RuntimeError: ")
    assert check.differences(leaf_write) == []
    assert check.error_type("TypeError: can't convert") == "TypeError"


@pytest.mark.parametrize(
    ("code", "shared"),
    [
        ("torch.frombuffer(buffer, dtype=torch.float32)", True),
        ("torch.frombuffer(bytearray(buffer), dtype=torch.float32)", False),
    ],
)
def test_a_python_buffer_is_compared_by_its_bytes(code: str, shared: bool) -> None:
    assert measured(code, "shares_storage", source="buffer") is shared
    assert measured(code, "writes_propagate", source="buffer") is shared
