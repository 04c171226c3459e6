"""Run the semantics probe on this machine: ``python -m semantics --device cuda``.

Prints one row per operation and device, then what differs from the facts the site
states. ``--json PATH`` also writes the measurements in the site's ``semantics.json``
schema; ``--check`` makes any difference an exit status of 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from semantics.catalogue import BY_ID, FIELDS, GROUPS, X_CODE
from semantics.check import all_differences, show
from semantics.measurement import Measurement, from_json
from semantics.probe import available_devices, not_measured, report

PROG = "python -m semantics"
#: Column headings, short enough for a terminal; the legend spells them out.
HEADINGS = {
    "shares_storage": "shares",
    "writes_propagate": "writes",
    "returns_self": "self",
    "result_requires_grad": "req.grad",
    "result_is_leaf": "leaf",
    "grad_flows_to_source": "grad->src",
    "shares_version_counter": "version",
}
LEGEND = (
    "shares: result and source share storage; writes: a write through the result is "
    "seen in the source; self: the result is the source object; req.grad / leaf: the "
    "result requires grad / is a leaf; grad->src: a backward through the result reaches "
    "the source's .grad; version: an in-place change of the result bumps the source's "
    "version counter; n/a: does not apply."
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Measure what copy-related PyTorch operations do on this machine.",
    )
    parser.add_argument(
        "--device",
        action="append",
        metavar="DEVICE",
        help="device type to measure on, e.g. cpu or cuda (repeatable; "
        "default: every available device)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="PATH", help="also write the measurements here"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit with status 1 when a measurement differs from the site's facts",
    )
    return parser.parse_args(argv)


def format_table(measurements: list[Measurement]) -> list[str]:
    """Lay out the measurements as text, grouped as on the site."""
    code_width = max(len(m.code) for m in measurements)
    device_width = max(len("device"), *(len(m.device) for m in measurements))
    widths = [max(len(HEADINGS[name]), 3) for name in FIELDS]

    def line(code: str, device: str, cells: list[str]) -> str:
        parts = [code.ljust(code_width), device.ljust(device_width)]
        # An error spans the fact columns: zip stops at the shorter list.
        parts += [cell.ljust(width) for cell, width in zip(cells, widths)]  # noqa: B905
        return "  ".join(parts).rstrip()

    lines = []
    for group in GROUPS:
        rows = [m for m in measurements if BY_ID[m.op].group == group.id]
        if not rows:
            continue
        lines += [
            "",
            group.title,
            line("expression", "device", list(HEADINGS.values())),
        ]
        for m in rows:
            if m.error is not None:
                lines.append(line(m.code, m.device, [f"raises {m.error}"]))
            else:
                lines.append(
                    line(m.code, m.device, [show(getattr(m, f)) for f in FIELDS])
                )
            given = BY_ID[m.op].given.replace("`", "")
            if given:
                lines.append(f"  where {given}")
    return lines


def unwritable(path: Path) -> str | None:
    """Why a JSON file could not be written at ``path``, or ``None`` if it could."""
    if path.is_dir():
        return "it is a folder"
    folder = path.parent
    if not folder.is_dir():
        return f"there is no folder {folder}"
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is not writable"
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is not writable"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Probe, print the table and the differences; return the exit status."""
    args = parse_args(argv)
    available = available_devices()
    devices = args.device or available
    for device in devices:
        if device not in available:
            print(
                f"{PROG}: error: device {device!r} is not available here; "
                f"available devices: {', '.join(available)}",
                file=sys.stderr,
            )
            return 2
    devices = list(dict.fromkeys(devices))
    if args.json is not None:
        problem = unwritable(args.json)
        if problem:
            print(
                f"{PROG}: error: cannot write --json {args.json}: {problem}",
                file=sys.stderr,
            )
            return 2
    document = report(devices)
    measurements = [from_json(entry) for entry in document["entries"]]  # type: ignore[attr-defined]

    print(f"PyTorch {document['torch_version']}, measured on {', '.join(devices)}")
    print(f"x is {X_CODE.removeprefix('x = ')} unless a row says otherwise")
    for text in format_table(measurements):
        print(text)
    print()
    print(LEGEND)
    skipped = not_measured(devices)
    if skipped:
        names = ", ".join(
            f"{op.id} (needs {' or '.join(op.devices or ())})" for op in skipped
        )
        print(f"Not measured on {', '.join(devices)}: {names}")

    if args.json is not None:
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        print(f"Measurements written to {args.json}")

    found = all_differences(measurements)
    if found:
        print(f"{len(found)} fact(s) differ from what the site states:")
        for difference in found:
            print(f"  {difference}")
    else:
        print(f"All {len(measurements)} measurements agree with what the site states.")
    return 1 if found and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
