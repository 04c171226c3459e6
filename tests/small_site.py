"""Small sites built with the project's real configuration, for tests of the build itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import build_command

ROOT = Path(__file__).resolve().parents[1]


def prepare(site: Path, pages: dict[str, str], examples: dict[str, str]) -> None:
    """Lay out a site: the real configuration, ``pages`` under docs/, scripts under examples/."""
    for folder in ("conf", "semantics"):  # the configuration and what it imports
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
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
