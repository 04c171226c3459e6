"""The project's code is imported by package name, not found through path edits."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: nox's own interpreter cannot have the project installed.
MAY_EDIT_THE_PATH = {"noxfile.py"}
PATH_EDIT = re.compile(r"^\s*sys\.path\.(insert|append)\(", re.MULTILINE)


def test_only_the_noxfile_puts_the_checkout_on_sys_path() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    editing = sorted(
        name
        for name in tracked
        if name not in MAY_EDIT_THE_PATH
        and (ROOT / name).is_file()
        and PATH_EDIT.search((ROOT / name).read_text(encoding="utf-8"))
    )
    assert editing == [], "import the project's packages instead"
