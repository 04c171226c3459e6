"""The one sphinx-build command line, shared by the docs session and the build tests."""

from __future__ import annotations

from pathlib import Path


def sphinx_args(root: Path, build: Path | None = None) -> list[str]:
    """Return sphinx-build arguments for the project at ``root``: strict, nitpicky, keep-going."""
    build = build or root / "build"
    return [
        "-b", "html",
        "-c", str(root / "conf"),
        "-d", str(build / "doctrees"),
        "-W", "--keep-going",  # every warning fails the build, and all are reported
        "-n",  # nitpicky: every cross-reference must resolve
        "-T",  # a full traceback names the file that broke
        str(root / "docs"),
        str(build / "html"),
    ]  # fmt: skip
