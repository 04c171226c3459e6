"""The project's code is imported by package name, not found through path edits."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: nox's own interpreter cannot have the project installed.
MAY_EDIT_THE_PATH = {"noxfile.py"}
PATH_EDIT = re.compile(r"^\s*sys\.path\.(insert|append)\(", re.MULTILINE)


#: Where the project's Python lives (a copy of the checkout need not be a git repository).
CODE = ("site_build", "semantics", "conf", "tests", "benchmarks", "browser_tests")


def test_only_the_noxfile_puts_the_checkout_on_sys_path() -> None:
    files = [*ROOT.glob("*.py"), *(p for d in CODE for p in (ROOT / d).rglob("*.py"))]
    editing = sorted(
        str(path.relative_to(ROOT))
        for path in files
        if path.name not in MAY_EDIT_THE_PATH
        and PATH_EDIT.search(path.read_text(encoding="utf-8"))
    )
    assert editing == [], "import the project's packages instead"
