"""Pytest set-up for the whole repository: the device check and the MyST page checker.

A MyST page's code is tested by the docs build, which runs every cell in the page's
kernel and fails on any error (``nb_execution_raise_on_error``): the test session
(``testpaths``: ``tests/`` only) does not run it a second time. Named on the command
line (``pytest docs/views.md``), a page's cells run here, all of them, in seconds and
without a build. This file sits at the root so that pytest reaches it for ``docs/``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from site_build.config import devices
from site_build.page_cells import PAGE_CELLS

ROOT = Path(__file__).resolve().parent

DOCS = ROOT / "docs"


class Page(pytest.File):
    """A MyST page of the site: one test that runs all its cells, if it has any."""

    def collect(self):
        if any(True for _ in PAGE_CELLS.parse(self.path)):
            yield PageCells.from_parent(self, name="cells")


#: Set in the fresh interpreter a page's cells run in, to the page's path.
IN_OWN_PROCESS = "TORCH_COPY_PAGE_IN_OWN_PROCESS"


class PageFailed(Exception):
    """A page's cells failed in the interpreter of their own; its output says where."""


class PageCells(pytest.Item):
    """Every cell of one page, in order, in one namespace, as the page's kernel runs them.

    One test per page rather than one per cell: pytest-xdist may hand the tests of one
    file to different workers, and a cell needs the names the cells before it defined.
    Each page runs in a fresh interpreter, as in the docs build, where each has a kernel
    of its own: what one page did to the process (autograd's threads, which forbid a
    later ``fork``; warnings shown once; a compile cache) cannot change another's.
    """

    def runtest(self) -> None:
        if IN_OWN_PROCESS in os.environ:  # the fresh interpreter: run them here
            for example in PAGE_CELLS.parse(self.path):
                try:
                    example.evaluate()
                except BaseException as error:
                    error.add_note(
                        f"in the cell of {self.path.name}, line {example.line}"
                    )
                    raise
            return
        child = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "-p", "no:xdist", f"{self.path}::cells"],
            env={**os.environ, IN_OWN_PROCESS: str(self.path)},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if child.returncode != 0:
            raise PageFailed(child.stdout[-20_000:] + child.stderr[-5_000:])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str:
        if isinstance(excinfo.value, PageFailed):
            return (
                f"{self.path.name}, run in an interpreter of its own:\n{excinfo.value}"
            )
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: every cell, in order"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Page | None:
    if file_path.suffix == ".md" and file_path.parent == DOCS:
        return Page.from_parent(parent, path=file_path)
    return None


def pytest_configure(config: pytest.Config) -> None:
    try:
        config.torch_device = devices.selected()
    except devices.DeviceError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    import torch

    here = config.invocation_params.dir
    named = [(here / arg.split("::")[0]).resolve() for arg in config.args]
    pages = (
        "their cells run here, as named"
        if any(DOCS in (path, *path.parents) for path in named)
        else "their code is the docs build's test (nox -s docs); name one to run it "
        "here: pytest docs/views.md"
    )
    return [
        f"torch {torch.__version__}, TORCH_DEVICE={config.torch_device}",
        f"MyST pages: {pages}",
    ]


def spread_slow_tests(items: list, workerinput: dict) -> list:
    """Order the tests so that each pytest-xdist worker starts with its share of the
    slow ones (the small Sphinx builds), and the short ones fill the gaps.

    With work stealing, each worker first gets an equal, contiguous part of the list
    and the others steal from the end of it: slow tests all at the front would all run
    in the first worker, one after another.
    """
    workers = max(1, int(workerinput.get("workercount", 1)))
    slow = [item for item in items if item.get_closest_marker("slow")]
    rest = [item for item in items if not item.get_closest_marker("slow")]
    ordered, left = [], len(items)
    for worker in range(workers):
        size = left // (workers - worker)  # how the scheduler splits the list
        share = slow[worker::workers]
        take = max(0, size - len(share))
        ordered += share + rest[:take]
        del rest[:take]
        left -= size
    return ordered + rest


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    items[:] = spread_slow_tests(items, getattr(config, "workerinput", {}))
    if config.torch_device == "cuda":
        return
    skip = pytest.mark.skip(
        reason="needs CUDA: this run is on the CPU (run with TORCH_DEVICE=cuda on a GPU machine)"
    )
    for item in items:
        if item.get_closest_marker("cuda"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def torch_device(pytestconfig: pytest.Config) -> str:
    """The device this run checks claims on, from TORCH_DEVICE."""
    return pytestconfig.torch_device
