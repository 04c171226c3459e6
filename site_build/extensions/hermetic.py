"""Sphinx extension: fail the build when a built page would load anything from another host.

Only the HTML pages written since the last check that passed are read (every CSS file
is): an older page was checked then. A page that fails is deleted, so that the next
build writes and checks it again; pages left by an interrupted build are newer than the
last check, so they are read next time. The times compared are those of files in the
output folder, so a clock that differs from the file system's does not matter.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

from site_build import html_urls

logger = logging.getLogger(__name__)

_REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


#: In a page's body, what every remote load needs: a source-like attribute whose value
#: may name another host (it starts with //, a scheme or a character reference), any
#: srcset (a remote candidate need not be the first), or a <link> element.
_BODY_LOAD = re.compile(
    r"""\b(?:src|poster|data)\s*=\s*["']?\s*(?://|&|[a-z][a-z0-9+.-]*\s*(?::|&))"""
    r"""|\bsrcset\s*=|<link\b""",
    re.I,
)
_BODY = re.compile(r"<body\b", re.I)


def remote_loads_in_html(text: str) -> list[str]:
    """Return every resource an HTML page would fetch from another host.

    The head is always parsed; the body (most of a page: highlighted code, outputs)
    only when a quick scan finds something in it that could load from another host.
    """
    body = _BODY.search(text)
    if body and not _BODY_LOAD.search(text, body.start()):
        text_to_parse = text[: body.start()]
    else:
        text_to_parse = text
    _, named = html_urls.parse_page(text_to_parse)
    remote = [u for u in named if u.loads and _REMOTE.match(u.url)]
    return [f"<{u.tag} {u.attribute}={u.url}>" for u in remote] + remote_loads_in_css(
        text
    )


def remote_loads_in_css(text: str) -> list[str]:
    """Return every ``@import`` or ``url()`` in CSS text that points at another host."""
    return [url for url in html_urls.css_urls(text) if _REMOTE.match(url)]


def find_remote_loads(outdir: Path, since: float = 0.0) -> dict[str, list[str]]:
    """Map each built CSS file, and each HTML page written at ``since`` or later, to
    the remote resources it loads."""
    found: dict[str, list[str]] = {}
    for path in sorted(outdir.rglob("*")):
        if path.suffix == ".html" and path.stat().st_mtime >= since:
            remote = remote_loads_in_html(path.read_text(encoding="utf-8"))
        elif path.suffix == ".css":
            remote = remote_loads_in_css(path.read_text(encoding="utf-8"))
        else:
            continue
        if remote:
            found[str(path.relative_to(outdir))] = remote
    return found


#: Touched in the output folder after every check that found nothing.
MARKER = ".hermetic-checked"


def _check(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    marker = outdir / MARKER
    since = marker.stat().st_mtime if marker.exists() else 0.0
    found = find_remote_loads(outdir, since)
    for page, remote in found.items():
        logger.warning(
            "%s loads from another host: %s", page, ", ".join(sorted(set(remote)))
        )
        if page.endswith(".html"):
            (outdir / page).unlink()
    if not found:
        marker.touch()


def setup(app: Sphinx) -> dict[str, object]:
    # Before Sphinx-Gallery's handler, which raises when an example failed.
    app.connect("build-finished", _check, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
