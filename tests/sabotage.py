"""The sabotage harness: patch one PyTorch behaviour, run a script or page, read the failure.

A :class:`Sabotage` replaces PyTorch functions with versions that break one behaviour;
:func:`run_script` and :func:`run_page` run a gallery script or a MyST page with it
installed, in a fresh process forked from one that has imported torch
(``warm_python``); :func:`failed_claim` checks that the run died on an assertion of
the script or page itself, not somewhere else.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from warm_python import run_warm

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = ROOT / "examples"
DOCS_DIR = ROOT / "docs"


@dataclass(frozen=True)
class Sabotage:
    """A change to one PyTorch behaviour: ``code`` defines ``sabotaged``, which replaces
    every name in ``targets``; it may call ``original``, the first target's old value."""

    breaks: str
    targets: tuple[str, ...]
    code: str

    def source(self) -> str:
        """Python that installs the sabotage in a fresh interpreter."""
        lines = [
            "import warnings",
            "import numpy",
            "import safetensors.torch",
            "import torch",
            "import torch.nn.functional",
            f"original = {self.targets[0]}",
            self.code,
        ]
        lines += [f"{target} = sabotaged" for target in self.targets]
        return "\n".join(lines) + "\n"

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Install the sabotage in this process until the test ends."""
        scope = {"warnings": warnings, "numpy": np, "torch": torch}
        scope["original"] = eval(self.targets[0], scope)
        exec(self.code, scope)
        for target in self.targets:
            monkeypatch.setattr(target, scope["sabotaged"])


NO_OP = Sabotage(
    "nothing (the control)",
    ("torch.Tensor.clone",),
    "sabotaged = original",
)

# The MyST pages run as the test session runs them.
RUN_PAGE = """
from pathlib import Path
from site_build.page_cells import PAGE_CELLS
for example in PAGE_CELLS.parse(Path({page!r})):
    example.evaluate()
"""
RUN_SCRIPT = """
import runpy
runpy.run_path({script!r}, run_name="__main__")
"""
# The last frame of a traceback and the exception line under it.
LAST_FRAME = re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d+)[^\n]*\n'
    r"(?:(?P<code>[ \t]+[^\n]*)\n)?(?:[ \t]+[~^ ]+\n)?"
    r"(?P<error>\w+(?:Error|Exception))"
)


def run_with(
    sabotage: Sabotage, program: str, folder: Path, device: str
) -> subprocess.CompletedProcess[str]:
    """Run ``program`` in a fresh isolated process after installing ``sabotage``."""
    return run_warm(sabotage.source() + program, folder, device, timeout=300)


def failed_claim(result: subprocess.CompletedProcess[str], source: Path) -> str:
    """Check that the run died on an assertion in ``source``; return that line."""
    assert result.returncode != 0, (
        f"{source.name} still passed with the sabotage installed: its assertions do "
        f"not catch the change.\n{result.stdout[-3000:]}"
    )
    frames = list(LAST_FRAME.finditer(result.stderr))
    assert frames, f"{source.name} failed without a traceback:\n{result.stderr[-3000:]}"
    last = frames[-1]
    assert Path(last["file"]) == source, (
        f"{source.name} failed outside its own code, in {last['file']}: the sabotage "
        f"broke the run before it reached a claim.\n{result.stderr[-3000:]}"
    )
    assert last["error"] == "AssertionError", (
        f"{source.name} failed with {last['error']}, not on one of its assertions: "
        f"the sabotage broke something else first.\n{result.stderr[-3000:]}"
    )
    return f"{source.name}, line {last['line']}: {(last['code'] or '').strip()}"


def run_script(
    script: str, sabotage: Sabotage, folder: Path, device: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run a copy of a gallery script alone in ``folder``, as a reader would."""
    copy = folder / script
    shutil.copy(EXAMPLES_DIR / script, copy)
    return run_with(sabotage, RUN_SCRIPT.format(script=str(copy)), folder, device), copy


def run_page(
    page: str, sabotage: Sabotage, folder: Path, device: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run a MyST page's Python cells in order, in ``folder``."""
    path = DOCS_DIR / page
    return run_with(sabotage, RUN_PAGE.format(page=str(path)), folder, device), path
