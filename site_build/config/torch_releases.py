"""The PyTorch releases ``nox -s releases`` measures, and how it installs each one.

The default build installs the pin of ``constraints.txt`` (``BUILD_RELEASE``). The
release session installs every release of ``SUPPORTED`` beside it, each in an
environment of its own, with every other pin unchanged. Standard library only: nox's
own interpreter imports it.
"""

from __future__ import annotations

import re
from pathlib import Path

#: Oldest first. A release added here is measured by the next ``nox -s releases``.
SUPPORTED = ("2.13.0", "2.14.1", "2.15.0")
#: Where the session writes what each release measured, one file per release.
RECORDINGS = Path(__file__).resolve().parents[2] / "semantics" / "releases"
#: A torch requirement or pin: ``torch==2.13.0``, ``torch<=2.14.1``.
_TORCH = re.compile(r"^\s*torch\s*[=<>!~]", re.IGNORECASE)


def public(version: str) -> str:
    """A version without its local part: ``2.13.0+cpu`` -> ``2.13.0``."""
    return version.split("+", 1)[0]


def recording(version: str, folder: Path = RECORDINGS) -> Path:
    """The file holding what ``version`` (``2.14.1`` or ``2.14.1+cu130``) measured."""
    return folder / f"torch-{public(version)}.json"


def series(version: str) -> str:
    """The feature release a version belongs to: ``2.14.1`` -> ``2.14``."""
    return ".".join(public(version).split(".")[:2])


def with_torch(requirements: list[str], version: str) -> list[str]:
    """A dependency group's requirements with torch at ``version`` instead of its pin."""
    kept = [r for r in requirements if not _TORCH.match(r)]
    return [f"torch=={version}", *kept]


def without_torch(text: str) -> str:
    """A constraints file's text less its lines about torch.

    The release session chooses torch's version itself: a torch pin in
    ``constraints.txt``, or a cap in the user's pip configuration, would contradict it.
    """
    lines = text.splitlines()
    return "\n".join(line for line in lines if not _TORCH.match(line)) + "\n"


def folder_bytes(path: Path) -> int:
    """Bytes of every regular file under ``path``, links not followed."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file())
