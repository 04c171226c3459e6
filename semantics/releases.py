"""What each supported PyTorch release measured, as ``nox -s releases`` recorded it.

One file per release in ``semantics/releases/``, written by the session (``python -m
semantics.releases record``), never by hand: the catalogue probe's document, the
release facts, and which examples and pages passed. Readable without torch, so the
build renders them from any release. ``changes`` says which facts moved, and in
which release.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from semantics.catalogue import FIELDS
from site_build.config import torch_releases
from site_build.config.torch_releases import RECORDINGS, public, series

RECORDED_BY = "nox -s releases"


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in public(version).split(".") if part.isdigit())


def load_all(folder: Path = RECORDINGS) -> dict[str, dict]:
    """Every recording in ``folder``, by public version, oldest first."""
    found = {}
    for path in folder.glob("torch-*.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        found[public(document["torch_version"])] = document
    return dict(sorted(found.items(), key=lambda item: _key(item[0])))


def recorded(version: str, folder: Path = RECORDINGS) -> dict | None:
    """The recording of ``version``'s release, or ``None`` if there is none."""
    path = torch_releases.recording(version, folder)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def recorded_here(fact_id: str, folder: Path = RECORDINGS) -> dict[str, str]:
    """The recorded outcome of release fact ``fact_id`` for the installed PyTorch.

    A page checks its live outcome against it; it raises where the session has not
    recorded this release yet.
    """
    from importlib import metadata

    version = metadata.version("torch")
    document = recorded(version, folder)
    if document is None:
        raise LookupError(
            f"no recording of PyTorch {public(version)} in {folder}: "
            f"run {RECORDED_BY} (MAINTAINING.md, 'Measuring other PyTorch releases')"
        )
    return document["release_facts"][fact_id]


def _value(entry: dict, field: str) -> object:
    """A catalogue fact as compared between releases: an error by its whole text."""
    return entry["error"] if entry["error"] is not None else entry[field]


@dataclass(frozen=True)
class Change:
    """A fact measured one way up to a release, and another way from the next one."""

    subject: str  # a catalogue operation id, or a release fact id
    device: str
    field: str  # a catalogue field, "error", or "outcome" for a release fact
    release: str  # the first release measured with the new value, e.g. "2.14.1"
    before: object
    after: object

    @property
    def marker(self) -> str:
        """``changed in 2.14: ...``, as the matrix and the JSON show it."""
        return (
            f"changed in {series(self.release)}: {self.field} was "
            f"{_shown(self.before)}, now {_shown(self.after)}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "subject": self.subject,
            "device": self.device,
            "field": self.field,
            "changed_in": series(self.release),
            "first_release": self.release,
            "before": self.before,
            "after": self.after,
            "marker": self.marker,
        }


def _shown(value: object) -> str:
    if isinstance(value, dict):
        return f"{value['kind']} {value['detail']}"
    return {True: "yes", False: "no", None: "n/a"}.get(value, str(value))  # type: ignore[call-overload]


def catalogue_values(document: dict) -> dict[tuple[str, str, str], object]:
    """Each (operation, device, field) of a probe document and its value."""
    values: dict[tuple[str, str, str], object] = {}
    for entry in document["entries"]:
        for field in (*FIELDS, "error"):
            if field == "error" or entry["error"] is None:
                values[entry["op"], entry["device"], field] = _value(entry, field)
    return values


def changes(recordings: dict[str, dict]) -> list[Change]:
    """Every fact whose value differs from the previous release that measured it."""
    found: list[Change] = []
    previous: dict[tuple[str, str, str], object] = {}
    for version, document in recordings.items():
        now = catalogue_values(document["catalogue"])
        now.update(
            {(fid, "cpu", "outcome"): o for fid, o in document["release_facts"].items()}
        )
        for key, value in now.items():
            if key in previous and previous[key] != value:
                found.append(Change(*key, version, previous[key], value))
            previous[key] = value
    return found


def disagreements(recording: dict, live: dict) -> list[str]:
    """Where a recording differs from what was measured live on the same release.

    Only what both measured is compared: an operation added to the catalogue since the
    recording (or a device the recording lacks) is not yet recorded, not wrong.
    """
    found = []
    recorded_values = catalogue_values(recording["catalogue"])
    live_values = catalogue_values(live["catalogue"])
    codes = {e["op"]: e["code"] for e in recording["catalogue"]["entries"]}
    for key, value in live_values.items():
        op = key[0]
        same_row = key in recorded_values and codes.get(op) == _code(live, op)
        if same_row and recorded_values[key] != value:
            found.append(
                f"{op} on {key[1]}: {key[2]} recorded {_shown(recorded_values[key])}"
                f", measured {_shown(value)}"
            )
    for fact_id, outcome in live.get("release_facts", {}).items():
        kept = recording["release_facts"].get(fact_id)
        if kept is not None and kept != outcome:
            found.append(
                f"{fact_id}: recorded {_shown(kept)}, measured {_shown(outcome)}"
            )
    return found


def _code(document: dict, op: str) -> str | None:
    for entry in document["catalogue"]["entries"]:
        if entry["op"] == op:
            return entry["code"]
    return None


def live(devices: list[str] | None = None) -> dict:
    """What this PyTorch measures now: the catalogue probe and the release facts."""
    from semantics import probe, release_facts

    return {
        "catalogue": probe.report(devices or probe.available_devices()),
        "release_facts": release_facts.measure_all(),
    }


def record(catalogue_json: Path, folder: Path = RECORDINGS) -> Path:
    """Write this release's recording: the probe's document from ``catalogue_json``
    and the release facts measured now. The runs follow (``add_runs``): the pages
    check their release facts against this file."""
    from semantics import release_facts

    catalogue = json.loads(catalogue_json.read_text(encoding="utf-8"))
    # The session's runs replace the last ones right after; until then they stay.
    before = recorded(catalogue["torch_version"], folder) or {}
    document = {
        "torch_version": catalogue["torch_version"],
        "recorded_by": RECORDED_BY,
        "catalogue": catalogue,
        "release_facts": release_facts.measure_all(),
        "runs": before.get("runs", {}),
        "install": before.get("install", {}),
    }
    return _write(document, folder)


def add_runs(
    runs: dict[str, str], install: dict[str, object], folder: Path = RECORDINGS
) -> Path:
    """Add to the installed release's recording how each example and page ran, and
    what installing the release cost."""
    from importlib import metadata

    document = recorded(metadata.version("torch"), folder)
    if document is None:
        raise LookupError(f"no recording of this release in {folder}: record first")
    kept = document.get("install", {})
    if kept.get("fresh_environment") and not install.get("fresh_environment"):
        # A reused environment installed nothing: the last fresh install's cost stands.
        install = kept
    document.update(runs=dict(sorted(runs.items())), install=install)
    return _write(document, folder)


def _write(document: dict, folder: Path) -> Path:
    path = torch_releases.recording(document["torch_version"], folder)
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path


def moved(before: Path, after: Path) -> list[str]:
    """The recordings of folder ``after`` whose measurements differ from ``before``'s
    (what installing cost is left out: it differs on every run)."""

    def facts(document: dict) -> dict:
        return {k: v for k, v in document.items() if k != "install"}

    old, new = load_all(before), load_all(after)
    return [v for v in new if v not in old or facts(old[v]) != facts(new[v])]


def main(argv: Sequence[str] | None = None) -> int:
    """``record`` this release's measurements, then ``runs``: how its tests ran;
    ``moved`` compares two folders of recordings (CI: the committed and the new)."""
    parser = argparse.ArgumentParser(prog="python -m semantics.releases")
    commands = parser.add_subparsers(dest="command", required=True)
    first = commands.add_parser("record", help="the catalogue and the release facts")
    first.add_argument("--catalogue", type=Path, required=True)
    then = commands.add_parser("runs", help="the examples', pages' and install's")
    then.add_argument("--runs", type=Path, required=True, help="JSON: test -> result")
    then.add_argument("--install", type=Path, required=True, help="JSON: costs")
    compare = commands.add_parser("moved", help="fail if a recording differs")
    compare.add_argument("before", type=Path)
    compare.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "moved":
        found = moved(args.before, args.after)
        for version in found:
            print(
                f"PyTorch {version} measured differently from its committed recording:"
                f" commit the new {torch_releases.recording(version).name}"
            )
        return 1 if found else 0
    if args.command == "record":
        path = record(args.catalogue)
    else:
        path = add_runs(
            json.loads(args.runs.read_text(encoding="utf-8")),
            json.loads(args.install.read_text(encoding="utf-8")),
        )
    print(f"recorded {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
