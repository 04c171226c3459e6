"""Run code as nox's own interpreter would: the standard library and this checkout only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bare_python(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` with no site-packages (``-I -S``) and the checkout on ``sys.path``."""
    program = f"import sys; sys.path.insert(0, {str(ROOT)!r}); {code}"
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", program],
        capture_output=True,
        text=True,
        check=False,
    )
