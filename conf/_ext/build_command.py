"""The sphinx-build and pytest command lines, shared by nox, the tests and the benchmark."""

from __future__ import annotations

from pathlib import Path


def sphinx_args(root: Path, build: Path | None = None) -> list[str]:
    """Return sphinx-build arguments for the project at ``root``: strict and nitpicky."""
    build = build or root / "build"
    return [
        "-b", "html",
        "-c", str(root / "conf"),
        "-d", str(build / "doctrees"),
        "-j", "auto",  # read and write pages on every core (MyST-NB pages run earlier)
        "-W",  # every warning fails the build; Sphinx 9 reports them all first
        "-n",  # nitpicky: every cross-reference must resolve
        "-T",  # a full traceback names the file that broke
        str(root / "docs"),
        str(build / "html"),
    ]  # fmt: skip


def pytest_args() -> list[str]:
    """Return the pytest arguments of the test session: all cores, work stealing.

    Work stealing keeps both workers busy to the end: a few tests (small Sphinx builds,
    the memory example) take seconds, most take milliseconds.
    """
    return ["-n", "auto", "--dist", "worksteal"]
