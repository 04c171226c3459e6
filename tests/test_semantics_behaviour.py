"""PyTorch still does what the site states: the real probe, run on this test device.

One test per catalogue operation. When PyTorch changes behaviour under the site (say
``clone()`` starts sharing memory), the test of that operation fails and names each
fact that changed, on each device.
"""

from __future__ import annotations

import pytest

from semantics import catalogue, check, probe
from site_build.config import devices


def _param(op: catalogue.Operation) -> object:
    # Operations that only exist on a GPU carry the cuda marker: skipped with a visible
    # reason on CPU runs, measured on CUDA runs.
    marks = [pytest.mark.cuda] if op.devices == ("cuda",) else []
    return pytest.param(op, id=f"op:{op.id}", marks=marks)


@pytest.mark.parametrize("op", [_param(op) for op in catalogue.CATALOGUE])
def test_measured_behaviour_matches_what_the_site_states(
    op: catalogue.Operation, torch_device: str
) -> None:
    measured_on = [
        d for d in devices.devices_verified(torch_device) if op.applies_to(d)
    ]
    assert measured_on, f"{op.id} is measured on no device of this run"
    found = [
        str(difference)
        for device in measured_on
        for difference in check.differences(probe.measure(op, device))
    ]
    assert not found, "PyTorch behaves differently from what the site states:\n" + (
        "\n".join(found)
    )
