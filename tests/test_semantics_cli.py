"""``python -m semantics`` lets readers run the probe themselves, and fails politely."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from semantics import catalogue, check, probe
from semantics.__main__ import main

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "semantics", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_terminal_table_shows_every_operation_and_agrees_with_the_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--device", "cpu", "--json", str(tmp_path / "m.json")]) == 0
    out = capsys.readouterr().out
    cpu_ops = [op for op in catalogue.CATALOGUE if op.applies_to("cpu")]
    missing = [op.code for op in cpu_ops if f"\n{op.code} " not in out]
    assert not missing, f"rows missing from the table: {missing}"
    assert f"All {len(cpu_ops)} measurements agree with what the site states." in out
    assert "Not measured on cpu: to_cuda (needs cuda)" in out
    assert "x.clone()" in out
    clone_row = next(line for line in out.splitlines() if line.startswith("x.clone() "))
    assert clone_row.split()[1:] == ["cpu", "no", "no", "no", "yes", "no", "yes", "no"]
    document = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert document["devices"] == ["cpu"]
    assert [e["op"] for e in document["entries"]] == [op.id for op in cpu_ops]


@pytest.mark.parametrize("device", ["tpu", "cuda:7"])
def test_an_unavailable_device_is_one_line_naming_the_available_ones(
    device: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if device in probe.available_devices():
        pytest.skip(f"{device} is available on this machine")
    assert main(["--device", device]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    available = ", ".join(probe.available_devices())
    assert lines[0] == (
        f"python -m semantics: error: device {device!r} is not available here; "
        f"available devices: {available}"
    )


def test_python_dash_m_semantics_runs_the_command(tmp_path: Path) -> None:
    # The one run in a new process: the module runs as a program and sets its status.
    result = _run("--device", "tpu", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.startswith("python -m semantics: error: device 'tpu'")


def test_check_turns_a_difference_into_exit_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = catalogue.BY_ID["clone"]
    sharing = catalogue.replace(clone, expect=clone.expect.with_(shares_storage=True))
    monkeypatch.setattr(check, "BY_ID", {**catalogue.BY_ID, "clone": sharing})
    assert main(["--device", "cpu"]) == 0, (
        "without --check a difference is reported only"
    )
    assert main(["--device", "cpu", "--check"]) == 1
    out = capsys.readouterr().out
    assert "1 fact(s) differ from what the site states:" in out
    assert (
        "clone (x.clone()) on cpu: shares_storage is no, but the site states yes" in out
    )


def test_without_a_device_every_available_device_is_measured(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(f"measured on {', '.join(probe.available_devices())}")


@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
def test_an_unwritable_json_path_is_one_line_before_any_measuring(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = (
        tmp_path / "no" / "such" / "m.json" if where == "missing-folder" else tmp_path
    )
    before = sorted(tmp_path.rglob("*"))
    assert main(["--device", "cpu", "--json", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == "", "nothing is measured or printed before the path is checked"
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"python -m semantics: error: cannot write --json {target}: ")
    assert sorted(tmp_path.rglob("*")) == before, "nothing is written"
