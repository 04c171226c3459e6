"""Pytest set-up for the whole repository: the device check and the MyST page checker.

It sits at the root so that pytest reaches it for ``docs/`` as well as ``tests/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.myst import PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "conf" / "_ext"))

import devices  # noqa: E402

# Every ```python block and {code-cell} python cell of the MyST pages runs, in page
# order, in one namespace per page; doctest-style blocks compare the shown output.
pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser(), SkipParser()],
    path="docs",
    patterns=["*.md"],
    excludes=["gallery/*"],
).pytest()


def pytest_configure(config: pytest.Config) -> None:
    try:
        config.torch_device = devices.selected()
    except devices.DeviceError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_report_header(config: pytest.Config) -> str:
    import torch

    return f"torch {torch.__version__}, TORCH_DEVICE={config.torch_device}"


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
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
