"""Version guards for the extensions that reach into other libraries' internals.

A few of the site's extensions call private functions of, or subclass, other
libraries (MAINTAINING.md, "Patches on other libraries"). Each one's ``setup()`` calls
:func:`require_tested` first, so that a build on a version nobody tested stops at once,
in one line, instead of failing deep in the build or, worse, building without the
patch. The tested versions are the pins of ``constraints.txt``: CI builds and tests at
exactly those, and each patch has an integration test that fails when the patch no
longer takes effect. After ``nox -s pins -- --upgrade`` moves a pin, those tests decide
whether the new version is tested.
"""

from __future__ import annotations

import functools
import re
from importlib import metadata
from pathlib import Path

CONSTRAINTS = Path(__file__).resolve().parents[1] / "constraints.txt"


class UntestedVersion(SystemExit):
    """An installed version that a patch of the build was not tested with.

    A ``SystemExit``, not a Sphinx ``ExtensionError``: Sphinx 9.0 answers any exception
    raised while it loads the extensions with a report of some thirty lines (versions,
    extensions, traceback, a request to report the bug to Sphinx), where this one line
    is all there is to say. ``sphinx-build`` lets a ``SystemExit`` through; Python
    prints its message and exits with status 1.
    """


def normal(name: str) -> str:
    """A distribution's name as pins and metadata compare it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def pins(path: Path = CONSTRAINTS) -> dict[str, str]:
    """The exact pins of ``constraints.txt``: normalised name -> version."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            found[normal(name)] = version.strip()
    return found


def installed(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def require_tested(distribution: str, what: str, remove_when: str = "") -> None:
    """Raise, in one line, unless ``distribution`` is installed at its pinned version.

    ``what`` names the patch (``"the notebook prefetch"``); ``remove_when`` says when
    the patch is no longer needed, for the case where a newer release has the fix.
    """
    try:
        pinned = pins().get(normal(distribution))
    except OSError:
        raise UntestedVersion(
            f"{what} patches {distribution}, and there is no {CONSTRAINTS.name} to say "
            "which version it was tested with: install the project from its checkout "
            "(nox does)"
        ) from None
    if pinned is None:
        raise UntestedVersion(
            f"{what} patches {distribution}, which {CONSTRAINTS.name} does not pin"
        )
    version = installed(distribution)
    if version != pinned:
        hint = f" ({remove_when})" if remove_when else ""
        raise UntestedVersion(
            f"{distribution} {version or '(not installed)'} is untested with {what}; "
            f"tested with {pinned}, the pin in {CONSTRAINTS.name}{hint}"
        )
