"""Write a file whole or not at all: a build cut short leaves no half file for the next
build to trust (the caches of measurements and code links)."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, then rename it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
