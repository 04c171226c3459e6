"""The recordings of ``nox -s releases``: true for this build's release, and only
ever written by the session."""

from __future__ import annotations

import copy
import json
from importlib import metadata
from pathlib import Path

import pytest

from semantics import release_facts, releases
from semantics.catalogue import BY_ID
from semantics.check import error_type
from site_build.config import torch_releases

RELEASE = torch_releases.public(metadata.version("torch"))


@pytest.fixture(scope="module")
def live() -> dict:
    """What this build's PyTorch measures now, on the CPU."""
    return releases.live(["cpu"])


def test_every_supported_release_has_a_recording() -> None:
    recorded = releases.load_all()
    assert list(recorded) == list(torch_releases.SUPPORTED), (
        "run nox -s releases: it records each release of "
        "site_build/config/torch_releases.py in semantics/releases/"
    )


def test_the_recording_of_this_release_agrees_with_a_live_measurement(
    live: dict,
) -> None:
    recording = releases.recorded(RELEASE)
    assert recording is not None, f"no recording of {RELEASE}: run nox -s releases"
    found = releases.disagreements(recording, live)
    assert not found, (
        f"semantics/releases/torch-{RELEASE}.json differs from what PyTorch "
        f"{RELEASE} measures here: {found}. Recordings are written by "
        "nox -s releases, never by hand"
    )
    assert set(recording["release_facts"]) == set(release_facts.BY_ID)


def test_an_edited_recording_disagrees(live: dict) -> None:
    recording = copy.deepcopy(releases.recorded(RELEASE))
    entry = next(e for e in recording["catalogue"]["entries"] if e["op"] == "clone")
    entry["shares_storage"] = not entry["shares_storage"]
    recording["release_facts"]["dlpack_reversed"] = {"kind": "returns", "detail": "[]"}
    found = releases.disagreements(recording, live)
    assert len(found) == 2, found
    assert found[0].startswith("clone on cpu: shares_storage recorded")


def test_an_operation_not_yet_recorded_is_not_a_disagreement(live: dict) -> None:
    recording = copy.deepcopy(releases.recorded(RELEASE))
    recording["catalogue"]["entries"] = [
        e for e in recording["catalogue"]["entries"] if e["op"] != "clone"
    ]
    assert releases.disagreements(recording, live) == []


def test_every_recording_was_written_by_the_session() -> None:
    for version, document in releases.load_all().items():
        path = torch_releases.recording(version)
        assert document["recorded_by"] == releases.RECORDED_BY
        # The session's own layout, byte for byte: a hand edit rarely keeps it.
        assert path.read_text(encoding="utf-8") == json.dumps(document, indent=1) + "\n"
        assert document["runs"], f"{version}: no example or page ran"
        outcomes = set(document["runs"].values())
        assert outcomes <= {"passed", "failed", "skipped"}, outcomes


def _recording(version: str, shares: bool, outcome: str) -> dict:
    entry = {"op": "clone", "code": "x.clone()", "device": "cpu", "error": None}
    entry.update(dict.fromkeys(releases.FIELDS, False), shares_storage=shares)
    return {
        "torch_version": version,
        "catalogue": {"entries": [entry]},
        "release_facts": {"dlpack_reversed": {"kind": outcome, "detail": "x"}},
    }


def test_a_fact_that_moved_is_marked_with_its_release() -> None:
    recordings = {
        "2.13.0": _recording("2.13.0", False, "dies"),
        "2.14.1": _recording("2.14.1", True, "raises"),
        "2.15.0": _recording("2.15.0", True, "raises"),
    }
    found = releases.changes(recordings)
    assert [(c.subject, c.field, c.release) for c in found] == [
        ("clone", "shares_storage", "2.14.1"),
        ("dlpack_reversed", "outcome", "2.14.1"),
    ]
    assert found[0].marker == "changed in 2.14: shares_storage was no, now yes"
    assert found[0].to_json()["changed_in"] == "2.14"


def test_the_recorded_releases_differ_where_nox_s_releases_found() -> None:
    # What nox -s releases found: update this list when a new recording moves a fact.
    found = releases.changes(releases.load_all())
    assert [(c.subject, c.field, c.release) for c in found] == [
        ("dlpack_reversed", "outcome", "2.14.1"),
        ("imag_of_real", "error", "2.15.0"),
        ("conj_imag_of_real", "error", "2.15.0"),
        ("view_as_complex_copy_grad", "error", "2.15.0"),
        ("index_assign_records", "outcome", "2.15.0"),
        ("expanded_mask_assign", "outcome", "2.15.0"),
        ("expanded_row_assign", "outcome", "2.15.0"),
        ("imag_of_a_real_tensor", "outcome", "2.15.0"),
    ]
    assert found[0].before == {"kind": "dies", "detail": "SIGABRT"}
    assert found[0].after["kind"] == "raises"


def test_the_catalogue_states_each_recorded_releases_exception_types() -> None:
    # Every recording against the catalogue's error_since: a type that moved in a
    # release is stated for it, and one stated to move did move there.
    for version, document in releases.load_all().items():
        for entry in document["catalogue"]["entries"]:
            op = BY_ID.get(entry["op"])
            if op is None or op.code != entry["code"]:
                continue  # changed since it was recorded
            stated = op.expected(entry["device"]).error_on(version)
            assert error_type(entry["error"]) == stated, (version, op.id)


def test_a_reused_environment_keeps_the_last_fresh_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metadata, "version", lambda name: "2.15.0+cu132")
    document = _recording("2.15.0", True, "raises")
    document["install"] = {"seconds": 452.0, "fresh_environment": True}
    (tmp_path / "torch-2.15.0.json").write_text(json.dumps(document), encoding="utf-8")
    reused = {"seconds": 3.0, "fresh_environment": False}
    releases.add_runs({"a": "passed"}, reused, tmp_path)
    assert releases.recorded("2.15.0", tmp_path)["install"]["seconds"] == 452.0
    fresh = {"seconds": 460.0, "fresh_environment": True}
    releases.add_runs({"a": "passed"}, fresh, tmp_path)
    assert releases.recorded("2.15.0", tmp_path)["install"]["seconds"] == 460.0


def test_another_release_replaces_the_torch_pin_only(tmp_path: Path) -> None:
    group = ["torch==2.13.0", "numpy", "matplotlib"]
    assert torch_releases.with_torch(group, "2.15.0") == [
        "torch==2.15.0",
        "numpy",
        "matplotlib",
    ]
    text = "numpy==2.4.1\ntorch==2.13.0\ntorch<=2.14.1\ntorchvision<=0.29.1\n"
    assert torch_releases.without_torch(text) == "numpy==2.4.1\ntorchvision<=0.29.1\n"
    assert torch_releases.recording("2.14.1+cu130").name == "torch-2.14.1.json"
    assert torch_releases.series("2.14.1") == "2.14"
    (tmp_path / "a").write_bytes(b"123")
    assert torch_releases.folder_bytes(tmp_path) == 3


def test_the_workflow_measures_every_supported_release() -> None:
    workflow = (
        Path(__file__).resolve().parents[1] / ".github" / "workflows" / "site.yml"
    )
    releases_line = next(
        line
        for line in workflow.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("torch: [")
    )
    listed = json.loads(releases_line.split(":", 1)[1])
    assert listed == list(torch_releases.SUPPORTED)
