"""Small sites built with the project's real configuration, for tests of the build itself.

Each Sphinx build costs seconds, so the tests build few sites (test_small_sites.py),
each laid out healthy: the three semantics directives, a page that runs and a stand-in
script for every gallery page the catalogue links. One is rebuilt after edits, and
at last under another execution key with a page that raises; the other is broken
every other way: its catalogue states a fact PyTorch contradicts, a page would load a
script from another host, a script raises. Each fault is named in the build's output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from semantics import catalogue
from site_build.config import build_command

ROOT = Path(__file__).resolve().parents[1]


def prepare(site: Path, pages: dict[str, str], examples: dict[str, str]) -> None:
    """Lay out a site: the real configuration, ``pages`` under docs/, scripts under examples/."""
    # The configuration, and a copy of the catalogue package that a test may edit (the
    # build finds it first: see build()); the build code is the installed project's.
    for folder in ("conf", "semantics"):
        shutil.copytree(
            ROOT / folder, site / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name, text in pages.items():
        (site / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (site / "docs" / name).write_text(text, encoding="utf-8")
    (site / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "GALLERY_HEADER.rst", site / "examples")
    for name, text in examples.items():
        (site / "examples" / name).write_text(text, encoding="utf-8")


def build(site: Path) -> subprocess.CompletedProcess[str]:
    """Build the site at ``site`` exactly as ``nox -s docs`` does; never raises on failure."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", *build_command.sphinx_args(site)],
        cwd=site,
        env={**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


INDEX = """# A small site

```{toctree}
gallery/index
matrix
narrative/views
runs
```

```{semantics-table}
:ops: clone, detach, torch.from_numpy
:fields: shares_storage, grad_flows_to_source
```
"""
MATRIX = "# The matrix\n\n## Rows\n\n```{semantics-matrix}\n```\n"
VIEWS = "# Views\n\n```{semantics-list}\n:group: views\n```\n"


def myst_nb_page(title: str, *cells: str) -> str:
    """A MyST page that MyST-NB runs as a notebook: ``title``, then one cell per code."""
    front = "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n"
    front += "  display_name: Python 3\n---\n"
    return (
        front
        + f"\n# {title}\n"
        + "".join(f"\n```{{code-cell}} python\n{code}\n```\n" for code in cells)
    )


#: A MyST-NB page whose one cell runs and says whether its kernel had torch imported
#: before the page ran (the preloaded kernels of notebook_prefetch have).
RUNS = myst_nb_page(
    "A page that runs",
    'import sys\n\nprint("torch preloaded:", "torch" in sys.modules)',
)
PRELOADED = "torch preloaded: True"
STUB = '"""\n{name}\n{underline}\n\nA stand-in.\n"""\n\nprint("ran")\n'
#: A stand-in that draws a figure, with a title (what Sphinx-Gallery would make its
#: ``alt``) and, in its drawing code, the description figure_alt makes it instead.
FIGURE_ALT = "A line from one corner to the other."
FIGURE_WORDS = "a rising line"
FIGURE_STUB = (
    STUB
    + "\n# %%\n# A paragraph before the figure, which is not its description.\n\n"
    + f"import matplotlib.pyplot as plt\n\n# Alt: {FIGURE_ALT}\n"
    + f"plt.figure(figsize=(1, 1))\nplt.plot([0, 1])\nplt.title({FIGURE_WORDS!r})\n"
)
#: A script whose figure has no description: the build fails naming it.
UNDESCRIBED_SCRIPT = (
    '"""\nUndescribed\n===========\n\nIts figure has no description.\n"""\n\n'
    "import matplotlib.pyplot as plt\n\nplt.figure(figsize=(1, 1))\n"
    "plt.plot([0, 1])\n"
)
UNDESCRIBED_SCRIPT_NAME = "undescribed_figure.py"
#: The stand-in that draws.
STUB_WITH_FIGURE = "view.py"
#: Appended to the copied catalogue: the site now claims that clone() shares memory.
WRONG_CLAIM = """
CATALOGUE = tuple(
    replace(op, expect=op.expect.with_(shares_storage=True)) if op.id == "clone" else op
    for op in CATALOGUE
)
BY_ID = MappingProxyType({op.id: op for op in CATALOGUE})
"""
#: A page that would load a script from another host, which the hermetic check refuses.
REMOTE = (
    "---\norphan: true\n---\n# Remote\n\n"
    '```{raw} html\n<script src="https://cdn.example.org/table.js"></script>\n```\n'
)
#: Found by Python at start-up in the site's folder (on PYTHONPATH): the build's
#: execution key becomes another one, as when PyTorch's version or the device changes.
SWITCH_KEY = """
from site_build.config import site_facts

_key = site_facts.execution_key
site_facts.execution_key = lambda: _key() + "-switched"
"""
#: A page that raises, outside the table of contents.
BROKEN_PAGE = myst_nb_page(
    "A broken page", "raise RuntimeError('deliberately broken')"
).replace("---\n", "---\norphan: true\n", 1)
#: A script that raises where it would assert a claim.
BROKEN_SCRIPT = '"""\nBroken\n======\n\nIt raises.\n"""\n\nraise RuntimeError("deliberately broken")\n'
BROKEN_SCRIPT_NAME = "broken_on_purpose.py"
#: One of the stand-in scripts, for the tests that edit one.
STUB_TO_EDIT = "clone.py"


def semantics_site(site: Path, *, broken: bool) -> subprocess.CompletedProcess[str]:
    """Lay out and build the healthy site at ``site``, or with ``broken`` the site
    broken every way but a broken page."""
    pages = {
        "index.md": INDEX,
        "matrix.md": MATRIX,
        "narrative/views.md": VIEWS,
        "runs.md": RUNS,
    }
    # The catalogue links gallery pages; tiny scripts stand in for the real examples.
    scripts = {
        f"{name}.py": (
            FIGURE_STUB if f"{name}.py" == STUB_WITH_FIGURE else STUB
        ).format(name=name, underline="=" * len(name))
        for name in {
            op.gallery.split("/")[-1] for op in catalogue.CATALOGUE if op.gallery
        }
    }
    prepare(site, pages, scripts)
    if broken:
        add_faults(site)
    return build(site)


def add_faults(site: Path) -> None:
    """Break the site at ``site`` every way but a broken page: a fact PyTorch
    contradicts, a page that loads from another host, a script that raises, a figure
    without a description."""
    (site / "docs" / "remote.md").write_text(REMOTE, encoding="utf-8")
    (site / "examples" / BROKEN_SCRIPT_NAME).write_text(BROKEN_SCRIPT, encoding="utf-8")
    (site / "examples" / UNDESCRIBED_SCRIPT_NAME).write_text(
        UNDESCRIBED_SCRIPT, encoding="utf-8"
    )
    with (site / "semantics" / "catalogue.py").open("a", encoding="utf-8") as f:
        f.write(WRONG_CLAIM)
