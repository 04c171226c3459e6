"""Sphinx extension: measure the semantics catalogue at build time and publish the data.

At the start of a build the probe runs on each device the build verifies (the CPU,
and CUDA on a CUDA build); any fact that differs from what the catalogue states is a
warning, so ``-W`` fails the build rather than publish a stale page. The measurements
are kept in ``build/semantics/`` and reused only while the PyTorch version, the devices
and every file of the ``semantics`` package are unchanged, so that a rebuild with
nothing new to measure does not import torch. They are written to ``semantics.json``
at the site root; ``semantics_pages`` renders them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from semantics import catalogue, check, measurement
from semantics.measurement import Measurement
from site_build.atomic_write import write_whole
from site_build.config import devices, site_facts

logger = logging.getLogger(__name__)

JSON_NAME = "semantics.json"
#: Every source file of the semantics package: pages that render it depend on them.
PACKAGE_FILES = sorted(Path(catalogue.__file__).resolve().parent.glob("*.py"))


def mismatch_messages(document: dict[str, object]) -> list[str]:
    """Return one message per fact measured differently from what the site states."""
    measurements = [measurement.from_json(entry) for entry in document["entries"]]  # type: ignore[attr-defined]
    return [
        f"semantics: {difference}. PyTorch behaves differently from what the site "
        "states: update the facts in semantics/catalogue.py and every page that "
        "explains them"
        for difference in check.all_differences(measurements)
    ]


def measurement_key(execution_key: str) -> str:
    """What the measurements depend on: PyTorch and the devices (the execution key),
    and this package's code."""
    digest = hashlib.sha256(execution_key.encode())
    for path in PACKAGE_FILES:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _measure(app: Sphinx) -> None:
    device_list = devices.devices_verified(devices.selected())
    env = app.env
    # Measurements are kept beside the other execution caches, under a key of what
    # they depend on: an unchanged PyTorch on the same devices behaves the same way,
    # and a rebuild that finds them does not even import torch.
    cached = (
        Path(app.doctreedir).parent
        / "semantics"
        / f"{measurement_key(app.config.execution_key)}.json"
    )
    try:
        document = json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, or cut short: measure again
        from semantics import probe

        document = probe.report(device_list)
        write_whole(cached, json.dumps(document))
    env.semantics_document = document  # type: ignore[attr-defined]
    env.semantics_device_names = site_facts.verified_with()["verified_devices"]  # type: ignore[attr-defined]
    for problem in catalogue.problems():
        logger.warning(
            "semantics catalogue: %s", problem, type="semantics", subtype="catalogue"
        )
    for message in mismatch_messages(document):
        logger.warning(message, type="semantics", subtype="mismatch")


def _write_json(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    document = app.env.semantics_document  # type: ignore[attr-defined]
    path = Path(app.outdir) / JSON_NAME
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def measured_by_op(env: BuildEnvironment) -> dict[str, dict[str, Measurement]]:
    """Map each operation id to its measurements, by device."""
    found: dict[str, dict[str, Measurement]] = {}
    for entry in env.semantics_document["entries"]:  # type: ignore[attr-defined]
        measured = measurement.from_json(entry)
        found.setdefault(measured.op, {})[measured.device] = measured
    return found


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("builder-inited", _measure)
    app.connect("build-finished", _write_json)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
