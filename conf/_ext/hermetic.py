"""Sphinx extension: fail the build when a built page would load anything from another host.

Only the HTML pages this build wrote are read (every CSS file is): a page left from an
earlier build was checked when it was written, and a page that failed the check is
deleted, so that the next build writes and checks it again.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import html_urls
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

_REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


#: In a page's body, what every remote load needs: a source-like attribute whose value
#: names another host, or a <link> element (a stylesheet, a preload).
_BODY_LOAD = re.compile(
    r"""(?:src|srcset|poster|data)\s*=\s*["']?\s*(?:https?:)?//|<link\b""", re.I
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


def _note_start(app: Sphinx) -> None:
    # Pages are written by worker processes too: their times, not events, tell which.
    app.hermetic_since = time.time() - 1  # type: ignore[attr-defined]  # mtime rounding


def _check(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page, remote in find_remote_loads(outdir, app.hermetic_since).items():  # type: ignore[attr-defined]
        logger.warning(
            "%s loads from another host: %s", page, ", ".join(sorted(set(remote)))
        )
        if page.endswith(".html"):
            (outdir / page).unlink()


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("builder-inited", _note_start)
    # Before Sphinx-Gallery's handler, which raises when an example failed.
    app.connect("build-finished", _check, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
