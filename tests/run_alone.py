"""Run Python the way a reader runs a downloaded script: isolated, in a folder of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_alone(
    arguments: list[str], folder: Path, device: str, timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``python -I ARGUMENTS`` in ``folder`` on ``device``; never raises on failure.

    ``-I`` leaves out PYTHONPATH, the user site and the script's folder: only installed
    packages can be imported, as on a reader's machine.
    """
    return subprocess.run(
        [sys.executable, "-I", *arguments],
        cwd=folder,
        env={**os.environ, "MPLBACKEND": "Agg", "TORCH_DEVICE": device},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
