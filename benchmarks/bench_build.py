"""Measure how fast the site builds and tests itself, on a fresh copy of this checkout.

Run through ``nox -s bench``. It times, in one run: a cold build (no output, no caches),
rebuilds with nothing changed, rebuilds after one example changed, and the test session;
it reads each example's execution time and peak memory from Sphinx-Gallery's per-example
timing records. Results go to ``build/bench/results.json`` and a table is printed. The
exit status is non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "conf" / "_ext"))

import build_command  # noqa: E402

EXAMPLE_TO_CHANGE = "clone.py"
EXECUTED = re.compile(r"Sphinx-Gallery successfully executed (\d+) out of")
NOTEBOOK_RUN = re.compile(r"Executing notebook", re.IGNORECASE)
NOTEBOOK_TIME = re.compile(r"([^/\s]+)\.md: Executed notebook in ([\d.]+) seconds")


class Run(NamedTuple):
    """One timed command: wall seconds and what it printed."""

    seconds: float
    output: str


def copy_checkout(dest: Path) -> None:
    """Copy the files git tracks or would track (not ignored) into ``dest``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def timed(command: list[str], cwd: Path) -> Run:
    """Run ``command`` in ``cwd``; fail loudly with its output if it fails."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    output = result.stdout + result.stderr
    if result.returncode != 0:
        sys.exit(f"benchmark command failed: {' '.join(command)}\n{output[-4000:]}")
    return Run(seconds, output)


def build(site: Path) -> Run:
    """Build the site exactly as ``nox -s docs`` does."""
    return timed(
        [sys.executable, "-m", "sphinx", *build_command.sphinx_args(site)], site
    )


def executed_examples(output: str) -> int:
    """How many gallery scripts a build executed, from Sphinx-Gallery's summary line."""
    match = EXECUTED.search(output)
    return int(match.group(1)) if match else 0


def executed_notebooks(output: str) -> int:
    """How many MyST-NB pages a build executed, from MyST-NB's log."""
    return len(NOTEBOOK_RUN.findall(output))


def example_costs(site: Path) -> dict[str, dict[str, float]]:
    """Each example's execution time (s) and peak memory (MiB) as Sphinx-Gallery recorded them."""
    costs = {}
    for record in sorted((site / "docs" / "gallery").glob("*.cost.json")):
        data = json.loads(record.read_text(encoding="utf-8"))
        costs[record.name.removesuffix(".cost.json") + ".py"] = {
            "seconds": round(data["time"], 3),
            "peak_memory_mib": round(data["memory"], 1),
        }
    return costs


def page_costs(output: str) -> dict[str, float]:
    """Each MyST-NB page's execution time (s), from MyST-NB's log of a build."""
    return {
        f"{name}.md": round(float(sec), 3)
        for name, sec in NOTEBOOK_TIME.findall(output)
    }


def measure(site: Path, repeats: int) -> dict[str, object]:
    """Run every measurement on the fresh copy at ``site``."""
    cold = build(site)
    unchanged = [build(site) for _ in range(repeats)]
    changed = []
    example = site / "examples" / EXAMPLE_TO_CHANGE
    for i in range(repeats):
        with example.open("a", encoding="utf-8") as f:
            f.write(f"\n# benchmark edit {i}\n")
        changed.append(build(site))
    tests = timed(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            *build_command.pytest_args(os.environ.get("TORCH_DEVICE") or "cpu"),
        ],
        site,
    )
    return {
        "cold_build": {
            "seconds": cold.seconds,
            "examples_executed": executed_examples(cold.output),
            "notebooks_executed": executed_notebooks(cold.output),
        },
        "unchanged_rebuild": {
            "seconds": statistics.median(r.seconds for r in unchanged),
            "runs": [r.seconds for r in unchanged],
            "examples_executed": max(executed_examples(r.output) for r in unchanged),
            "notebooks_executed": max(executed_notebooks(r.output) for r in unchanged),
        },
        "one_example_changed": {
            "seconds": statistics.median(r.seconds for r in changed),
            "runs": [r.seconds for r in changed],
            "examples_executed": max(executed_examples(r.output) for r in changed),
            "notebooks_executed": max(executed_notebooks(r.output) for r in changed),
        },
        "tests": {"seconds": tests.seconds},
        "examples": example_costs(site),
        "pages": page_costs(cold.output),
    }


def verdicts(results: dict) -> list[tuple[str, float, str, bool]]:
    """Compare each figure with its target: (name, seconds, target, met)."""
    cold = results["cold_build"]["seconds"]
    unchanged = results["unchanged_rebuild"]
    changed = results["one_example_changed"]
    return [
        ("cold build", cold, "<= 60 s", cold <= 60),
        (
            "rebuild, nothing changed",
            unchanged["seconds"],
            f"<= max(10% of cold, 5 s) = {max(0.1 * cold, 5):.1f} s, executes nothing",
            unchanged["seconds"] <= max(0.1 * cold, 5)
            and unchanged["examples_executed"] == 0
            and unchanged["notebooks_executed"] == 0,
        ),
        (
            "rebuild, one example changed",
            changed["seconds"],
            f"<= 25% of cold = {0.25 * cold:.1f} s, executes only that example",
            changed["seconds"] <= 0.25 * cold
            and changed["examples_executed"] == 1
            and changed["notebooks_executed"] == 0,
        ),
        (
            "test session",
            results["tests"]["seconds"],
            "<= 60 s",
            results["tests"]["seconds"] <= 60,
        ),
    ]


def report(results: dict) -> str:
    """Format the results as a Markdown table, ready for README."""
    cold = results["cold_build"]["seconds"]
    lines = [
        "| measurement | seconds | ratio to cold build | target | met |",
        "|---|---:|---:|---|---|",
    ]
    for name, seconds, target, met in verdicts(results):
        lines.append(
            f"| {name} | {seconds:.1f} | {seconds / cold:.2f} | {target} | {'yes' if met else 'NO'} |"
        )
    lines += ["", "| example | execution (s) | peak memory (MiB) |", "|---|---:|---:|"]
    for name, cost in results["examples"].items():
        lines.append(
            f"| {name} | {cost['seconds']:.2f} | {cost['peak_memory_mib']:.0f} |"
        )
    lines += ["", "| page | execution (s) |", "|---|---:|"]
    lines += [f"| {name} | {sec:.2f} |" for name, sec in results["pages"].items()]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of each short measurement"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        site = Path(tmp)
        copy_checkout(site)
        results = measure(site, args.repeats)
    results["machine"] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch_device": os.environ.get("TORCH_DEVICE", "cpu"),
    }
    results["verdicts"] = [
        {"measurement": n, "seconds": s, "target": t, "met": m}
        for n, s, t, m in verdicts(results)
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(
        json.dumps(results, indent=2), encoding="utf-8"
    )
    print(report(results))
    print(f"\nresults written to {args.out / 'results.json'}")
    return 0 if all(met for *_, met in verdicts(results)) else 1


if __name__ == "__main__":
    sys.exit(main())
