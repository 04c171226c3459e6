"""The build's semantics extension names each fact PyTorch contradicts.

Builds of small sites that publish the measurements are in test_small_sites.py.
"""

from __future__ import annotations

from semantics import probe
from site_build.extensions import semantics_measure


def test_mismatch_messages_name_operation_field_device_and_both_values() -> None:
    document = probe.report(["cpu"])
    assert semantics_measure.mismatch_messages(document) == []
    entry = next(e for e in document["entries"] if e["op"] == "detach")
    entry["shares_version_counter"] = False
    (message,) = semantics_measure.mismatch_messages(document)
    assert message.startswith(
        "semantics: detach (x.detach()) on cpu: shares_version_counter is no, "
        "but the site states yes."
    )


def test_measurements_are_kept_per_execution_key() -> None:
    cpu = semantics_measure.measurement_key("torch-2.13.0-cpu")
    assert cpu == semantics_measure.measurement_key("torch-2.13.0-cpu")
    assert cpu != semantics_measure.measurement_key("torch-2.13.0-cpu-cuda")
    assert cpu != semantics_measure.measurement_key("torch-2.14.0-cpu")
