"""Measure how fast the site installs, builds and tests itself, on a fresh copy.

Run through ``nox -s bench``. In a temporary copy of this checkout (the files git
tracks or would track) it times, in one run:

- **fresh setup**: ``nox -s docs tests`` in the copy, with environments of its own and
  the machine's download caches, from nothing to a built and tested site;
- **floor**: one process that imports torch once and runs every page's and example's
  code in turn (``benchmarks/floor.py``), the least execution can cost;
- **cold build**: the site built with no output and no caches (the median run; the
  examples' and pages' costs are that run's), then its **other editions** (Chinese),
  as ``nox -s docs`` builds them, from the same caches;
- **full rebuilds** with the HTML and doctrees removed: one keeping only the execution
  caches (notebook runs, example outputs, measurements), which is Sphinx's own work on
  a cold build, so that the cold build's **execution overhead** (cold minus it) can be
  compared with the floor; and one keeping every cache (also codeautolink's kept
  name resolutions and linked pages), which is Sphinx's own time when nothing has to
  be executed or worked out again, per page;
- rebuilds with **nothing changed**, with **one example changed**, with **one page's
  code changed** and with **one page's prose changed**, each with what it executed;
- the **test session**, and the in-place ReLU example's peak memory.

Results go to ``build/bench/results.json`` and a Markdown table is printed; the exit
status is non-zero when a target is missed.
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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from site_build.config import build_command, edition_list

ROOT = Path(__file__).resolve().parents[1]

EXAMPLE_TO_CHANGE = "clone.py"
PAGE_TO_CHANGE = "views.md"
MEMORY_EXAMPLE = "inplace_relu_memory.py"
EXECUTED = re.compile(r"Sphinx-Gallery successfully executed (\d+) out of")
NOTEBOOK_RUN = re.compile(r"Executing notebook", re.IGNORECASE)
NOTEBOOK_TIME = re.compile(r"([^/\s]+)\.md: Executed notebook in ([\d.]+) seconds")
#: What a cold build must execute at least: every page and example of the site.
MIN_PAGES, MIN_EXAMPLES = 13, 11


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


def timed(
    command: list[str], cwd: Path, environ: Mapping[str, str] | None = None
) -> Run:
    """Run ``command`` in ``cwd`` (in ``environ``, by default this process's
    environment); fail loudly with its output if it fails."""
    env = {**(os.environ if environ is None else environ), "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    output = result.stdout + result.stderr
    if result.returncode != 0:
        sys.exit(f"benchmark command failed: {' '.join(command)}\n{output[-4000:]}")
    return Run(seconds, output)


def fresh_setup(site: Path) -> Run:
    """``nox -s docs tests`` in the copy: new environments, the shared download caches."""
    # The bench session's own environment must not leak into the ones nox creates.
    environ = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return timed([sys.executable, "-m", "nox", "-s", "docs", "tests"], site, environ)


def build(site: Path, edition: edition_list.Edition = edition_list.ENGLISH) -> Run:
    """Build one edition of the site exactly as ``nox -s docs`` does."""
    return timed(
        [sys.executable, "-m", "sphinx",
         *build_command.sphinx_args(site, edition=edition)],
        site,
    )  # fmt: skip


def executed(output: str) -> tuple[int, int]:
    """How many examples and pages a build executed, from Sphinx-Gallery's and our logs."""
    match = EXECUTED.search(output)
    return (int(match.group(1)) if match else 0), len(NOTEBOOK_RUN.findall(output))


#: What a full rebuild removes, by what it keeps: nothing, the execution caches, all.
REMOVED = {
    "nothing": ("build", "docs/gallery"),
    "executions": ("build/html", "build/doctrees", "build/code-links"),
    "all": ("build/html", "build/doctrees"),
}


def clean(site: Path, *, keep: str) -> None:
    """Remove the build output and the caches that ``keep`` does not name."""
    for folder in REMOVED[keep]:
        shutil.rmtree(site / folder, ignore_errors=True)


def edit_example(site: Path, i: int) -> None:
    with (site / "examples" / EXAMPLE_TO_CHANGE).open("a", encoding="utf-8") as f:
        f.write(f"\n# benchmark edit {i}\n")


def edit_page_code(site: Path, i: int) -> None:
    """Change the page's first code cell, so that the page has to run again.

    The comment goes below the cell's first line, which may name a folded block.
    """
    page = site / "docs" / PAGE_TO_CHANGE
    text = page.read_text(encoding="utf-8")
    first_line = text.index("```{code-cell} python\n") + len("```{code-cell} python\n")
    second_line = text.index("\n", first_line) + 1
    edit = f"# benchmark edit {i}\n"
    page.write_text(text[:second_line] + edit + text[second_line:], encoding="utf-8")


def edit_page_prose(site: Path, i: int) -> None:
    """Change a sentence of the page, not its code: nothing has to run again."""
    with (site / "docs" / PAGE_TO_CHANGE).open("a", encoding="utf-8") as f:
        f.write(f"\nBenchmark edit {i}.\n")


def repeated(
    site: Path, repeats: int, edit: Callable[[Path, int], None] | None
) -> list[Run]:
    runs = []
    for i in range(repeats):
        if edit is not None:
            edit(site, i)
        runs.append(build(site))
    return runs


def summary(runs: list[Run]) -> dict[str, object]:
    counts = [executed(r.output) for r in runs]
    return {
        "seconds": statistics.median(r.seconds for r in runs),
        "runs": [round(r.seconds, 2) for r in runs],
        "examples_executed": max(c[0] for c in counts),
        "notebooks_executed": max(c[1] for c in counts),
    }


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


def measure(site: Path, repeats: int) -> dict[str, object]:
    """Run every measurement on the fresh copy at ``site``."""
    setup = fresh_setup(site)
    floors = []
    for i in range(2):  # a floor is a least value; the first run may read from disk
        floor_json = site / "build" / f"floor-{i}.json"
        script = site / "benchmarks" / "floor.py"
        timed([sys.executable, str(script), str(floor_json)], site)
        floors.append(json.loads(floor_json.read_text(encoding="utf-8")))
    floor = min(floors, key=lambda parts: parts["total"])
    colds, translated = [], []
    for _ in range(repeats):  # the longest measurement, and as noisy as the others
        clean(site, keep="nothing")
        colds.append((build(site), example_costs(site)))
        # The other editions, as nox -s docs builds them: after the English one.
        translated.append(
            [build(site, edition) for edition in edition_list.EDITIONS[1:]]
        )
    order = sorted(range(repeats), key=lambda i: colds[i][0].seconds)
    cold, examples = colds[order[len(order) // 2]]
    others = translated[order[len(order) // 2]]
    pages = {f"{n}.md": float(s) for n, s in NOTEBOOK_TIME.findall(cold.output)}
    sphinx_cold, cached = [], []
    for _ in range(repeats):
        clean(site, keep="executions")
        sphinx_cold.append(build(site))
    for _ in range(repeats):
        clean(site, keep="all")
        cached.append(build(site))
    documents = len(list((site / "build" / "doctrees").rglob("*.doctree")))
    edited = [site / "examples" / EXAMPLE_TO_CHANGE, site / "docs" / PAGE_TO_CHANGE]
    originals = {path: path.read_text(encoding="utf-8") for path in edited}
    unchanged = repeated(site, repeats, None)
    one_example = repeated(site, repeats, edit_example)
    one_page = repeated(site, repeats, edit_page_code)
    one_page_prose = repeated(site, repeats, edit_page_prose)
    # The tests read both editions as nox -s docs leaves them: the edits above undone
    # (the Chinese build refuses their untranslated sentences), then every edition.
    for path, text in originals.items():
        path.write_text(text, encoding="utf-8")
    for edition in edition_list.EDITIONS:
        build(site, edition)
    tests = timed(
        [sys.executable, "-m", "pytest", "-q",
         *build_command.pytest_args(os.environ.get("TORCH_DEVICE") or "cpu")],
        site,
    )  # fmt: skip
    cold_examples, cold_pages = executed(cold.output)
    return {
        "fresh_setup": {"seconds": setup.seconds},
        "floor": {"seconds": floor["total"], "parts": floor},
        "cold_build": {
            "seconds": cold.seconds,
            "runs": [round(run.seconds, 2) for run, _ in colds],
            "examples_executed": cold_examples,
            "notebooks_executed": cold_pages,
        },
        "other_editions": {
            "seconds": sum(run.seconds for run in others),
            "executed": [executed(run.output) for run in others],
        },
        "executions_cached_rebuild": summary(sphinx_cold),
        "cached_rebuild": {**summary(cached), "pages": documents},
        "unchanged_rebuild": summary(unchanged),
        "one_example_changed": summary(one_example),
        "one_page_changed": summary(one_page),
        "one_page_prose_changed": summary(one_page_prose),
        "tests": {"seconds": tests.seconds},
        "examples": examples,
        "pages": pages,
    }


def verdicts(r: dict) -> list[tuple[str, float, str, bool]]:
    """Compare each figure with its target: (name, value, target, met)."""
    cold = r["cold_build"]["seconds"]
    cached = r["cached_rebuild"]
    sphinx_cold = r["executions_cached_rebuild"]["seconds"]
    overhead = cold - sphinx_cold
    floor = r["floor"]["seconds"]
    per_page = cached["seconds"] / cached["pages"]
    relu = r["examples"].get(MEMORY_EXAMPLE, {}).get("peak_memory_mib", float("inf"))

    def only(runs: dict, examples: int, notebooks: int) -> bool:
        return (runs["examples_executed"], runs["notebooks_executed"]) == (
            examples,
            notebooks,
        )

    return [
        ("fresh clone to built and tested site (s)", r["fresh_setup"]["seconds"],
         "<= 150 s", r["fresh_setup"]["seconds"] <= 150),
        ("cold build (s)", cold,
         f"<= 40 s, >= {MIN_PAGES} pages and >= {MIN_EXAMPLES} examples executed",
         cold <= 40 and r["cold_build"]["notebooks_executed"] >= MIN_PAGES
         and r["cold_build"]["examples_executed"] >= MIN_EXAMPLES),
        ("floor: all code in one process (s)", floor, "reference", True),
        ("the other editions, built after it (s)", r["other_editions"]["seconds"],
         f"<= 50% of cold = {0.5 * cold:.1f} s (all editions <= 1.5 x English), "
         "executes nothing",
         r["other_editions"]["seconds"] <= 0.5 * cold
         and all(tuple(e) == (0, 0) for e in r["other_editions"]["executed"])),
        ("full rebuild, execution caches kept (s)", sphinx_cold, "reference", True),
        ("execution overhead = cold - that rebuild (s)", overhead,
         f"<= 1.5 x floor = {1.5 * floor:.1f} s", overhead <= 1.5 * floor),
        ("full rebuild, every cache kept (s)", cached["seconds"], "reference", True),
        ("Sphinx time per page, every cache kept (s)", per_page,
         f"<= 0.6 s ({cached['pages']} pages)", per_page <= 0.6),
        ("Sphinx time per page, execution caches kept (s)",
         sphinx_cold / cached["pages"], "reference", True),
        ("rebuild, nothing changed (s)", r["unchanged_rebuild"]["seconds"],
         "<= 3 s, executes nothing",
         r["unchanged_rebuild"]["seconds"] <= 3 and only(r["unchanged_rebuild"], 0, 0)),
        ("rebuild, one example changed (s)", r["one_example_changed"]["seconds"],
         f"<= 15% of cold = {0.15 * cold:.1f} s, executes only it",
         r["one_example_changed"]["seconds"] <= 0.15 * cold
         and only(r["one_example_changed"], 1, 0)),
        ("rebuild, one page's code changed (s)", r["one_page_changed"]["seconds"],
         f"<= 15% of cold = {0.15 * cold:.1f} s, executes only it",
         r["one_page_changed"]["seconds"] <= 0.15 * cold
         and only(r["one_page_changed"], 0, 1)),
        ("rebuild, one page's prose changed (s)", r["one_page_prose_changed"]["seconds"],
         f"<= 15% of cold = {0.15 * cold:.1f} s, executes nothing",
         r["one_page_prose_changed"]["seconds"] <= 0.15 * cold
         and only(r["one_page_prose_changed"], 0, 0)),
        ("test session (s)", r["tests"]["seconds"], "<= 45 s", r["tests"]["seconds"] <= 45),
        (f"{MEMORY_EXAMPLE} peak memory (MiB)", relu, "< 1024 MiB", relu < 1024),
    ]  # fmt: skip


def report(results: dict) -> str:
    """Format the results as Markdown tables, ready for README."""
    cold = results["cold_build"]["seconds"]
    lines = [
        "| measurement | value | ratio to cold build | target | met |",
        "|---|---:|---:|---|---|",
    ]
    for name, value, target, met in verdicts(results):
        ratio = (
            f"{value / cold:.2f}" if name.endswith("(s)") and "per" not in name else ""
        )
        lines.append(
            f"| {name} | {value:.2f} | {ratio} | {target} | {'yes' if met else 'NO'} |"
        )
    lines += ["", "| example | execution (s) | peak memory (MiB) |", "|---|---:|---:|"]
    for name, cost in results["examples"].items():
        lines.append(
            f"| {name} | {cost['seconds']:.2f} | {cost['peak_memory_mib']:.0f} |"
        )
    lines += [
        "",
        "| page | execution in the cold build (s) | alone, in the floor (s) |",
    ]
    lines += ["|---|---:|---:|"]
    floor = results["floor"]["parts"]
    for name, seconds in sorted(results["pages"].items()):
        lines.append(f"| {name} | {seconds:.2f} | {floor.get(f'docs/{name}', 0):.2f} |")
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
        {"measurement": n, "value": v, "target": t, "met": m}
        for n, v, t, m in verdicts(results)
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
