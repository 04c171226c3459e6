"""The sphinx-build and pytest command lines, shared by nox, the tests and the benchmark."""

from __future__ import annotations

import os
from pathlib import Path

from site_build.config.edition_list import ENGLISH, Edition, doctree_dir, html_dir


def sphinx_args(
    root: Path, build: Path | None = None, edition: Edition = ENGLISH
) -> list[str]:
    """Return sphinx-build arguments for ``edition`` of the project at ``root``: strict
    and nitpicky."""
    build = build or root / "build"
    language = [] if edition is ENGLISH else ["-D", f"language={edition.language}"]
    return [
        "-b", "html",
        "-c", str(root / "conf"),
        "-d", str(doctree_dir(build, edition)),
        *language,
        "-j", str(parallel_jobs()),
        "-W",  # every warning fails the build; Sphinx 9 reports them all first
        "-n",  # nitpicky: every cross-reference must resolve
        # Not -T: it prints Sphinx's crash report (extensions, traceback, "please open
        # an issue") under a failing example's own error, which names file and line.
        str(root / "docs"),
        str(html_dir(build, edition)),
    ]  # fmt: skip


def parallel_jobs() -> int:
    """Sphinx's ``-j``: one more than the cores, so that every core writes pages.

    Sphinx reads with ``-j`` processes but writes with ``-j`` minus one, the main process
    only collecting what they wrote; ``-j auto`` on two cores writes every page in one
    process. (MyST-NB pages execute before reading starts, in kernels of their own.)
    """
    return (os.cpu_count() or 1) + 1


#: CUDA runtime wheels that PyPI's torch depends on: which ones a machine needs depends
#: on the torch build it installs (TORCH_INDEX_URL), so ``nox -s pins`` leaves them out.
UNPINNED = ("nvidia-", "triton", "cuda-")

#: At most this many test workers on a CUDA run: each process holds a CUDA context of
#: its own, and the memory example allocates hundreds of MiB on the device.
CUDA_WORKERS = 4


def pytest_args(device: str = "cpu") -> list[str]:
    """Return the pytest arguments of the test session: every core, work stealing.

    Work stealing keeps the workers busy to the end: a few tests (small Sphinx builds,
    the memory example) take seconds, most take milliseconds. On a CUDA run the
    workers are capped at ``CUDA_WORKERS``.
    """
    workers = "auto" if device == "cpu" else str(min(CUDA_WORKERS, os.cpu_count() or 1))
    return ["-n", workers, "--dist", "worksteal"]


def browser_pytest_args() -> list[str]:
    """Return the pytest arguments of the browser session: a worker and its Chromium per
    core. Work stealing again: a page's tests take from a tenth of a second to several."""
    return ["-n", "auto", "--dist", "worksteal"]
