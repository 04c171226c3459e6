"""constraints.txt pins everything the sessions install, so a fresh machine matches."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from site_build.config import build_command

ROOT = Path(__file__).resolve().parents[1]
#: Installed by the virtual environment itself, not by a session's requirements.
BOOTSTRAP = {"pip"}
#: This project, installed from the checkout, not from an index.
PROJECT = re.search(r'^name = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M)[1]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_package_of_the_test_environment_is_pinned() -> None:
    text = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    pinned = {
        _normal(line.split("==")[0]) for line in text.splitlines() if "==" in line
    }
    installed = {_normal(d.metadata["Name"]) for d in metadata.distributions()}
    missing = sorted(
        name
        for name in installed - pinned - BOOTSTRAP - {PROJECT}
        if not name.startswith(build_command.UNPINNED)
    )
    assert not missing, (
        f"installed but not pinned in constraints.txt: {missing}; regenerate the "
        "pins with `nox -s pins`"
    )
