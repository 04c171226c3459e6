"""Each gallery script runs alone, as a reader's downloaded copy would."""

from __future__ import annotations

import ast
import inspect
import json
import shutil
import sys
from pathlib import Path

import figure_text
import pytest
from warm_python import run_warm

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))
# What a reader needs besides Python itself to run a downloaded script.
READER_PACKAGES = {"torch", "numpy", "matplotlib"}


def test_the_gallery_has_examples() -> None:
    assert EXAMPLES, f"no example scripts found in {EXAMPLES_DIR}"


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_alone_in_an_empty_folder(
    script: Path, tmp_path: Path, torch_device: str
) -> None:
    copy = tmp_path / script.name
    shutil.copy(script, copy)
    # As `python -I script.py` would, but forked from a process that imported torch:
    # the script's own imports find the modules loaded, its namespace starts empty.
    program = f"import runpy; runpy.run_path({copy.name!r}, run_name='__main__')"
    result = run_warm(program + _REPORT_FIGURES, tmp_path, torch_device)
    assert result.returncode == 0, (
        f"{script.name} failed when run alone on {torch_device}:\n"
        f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    figures = json.loads((tmp_path / "figures.json").read_text(encoding="utf-8"))
    assert figures, f"{script.name} draws no figure: the gallery shows none for it"
    small = [
        f"figure {number}: {text!r} is {size:.1f} px"
        for number, (size, text) in enumerate(figures, 1)
        if size < figure_text.SMALLEST_TEXT_PX
    ]
    assert not small, (
        f"{script.name}: on a {figure_text.PHONE_COLUMN_PX}-px phone column, text "
        f"smaller than {figure_text.SMALLEST_TEXT_PX} px: {small}; use a narrower "
        "figure or larger text"
    )


# After the script: the smallest text of each figure it left open, as the gallery's
# scraper would save it.
_REPORT_FIGURES = f"""
import json
import matplotlib.pyplot as plt
PHONE_COLUMN_PX = {figure_text.PHONE_COLUMN_PX}
CSS_PX_PER_INCH = {figure_text.CSS_PX_PER_INCH}
{inspect.getsource(figure_text.smallest_text)}
with open("figures.json", "w") as _out:
    json.dump([smallest_text(plt.figure(n)) for n in plt.get_fignums()], _out)
"""


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_imports_only_what_a_reader_has(script: Path) -> None:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    foreign = imported - READER_PACKAGES - set(sys.stdlib_module_names)
    assert not foreign, (
        f"{script.name} imports {sorted(foreign)}, which a reader may not have"
    )


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_opens_with_a_title_and_a_rule(script: Path) -> None:
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    assert docstring, (
        f"{script.name} has no docstring: the gallery needs its title and rule"
    )
    lines = [line for line in docstring.splitlines() if line.strip()]
    assert len(lines) >= 3, f"{script.name}: the docstring needs a title and a rule"
    assert set(lines[1]) == {"="}, f"{script.name}: underline the title with '='"
