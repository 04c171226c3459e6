"""Sphinx extension: fail the build when a built page would load anything from another host."""

from __future__ import annotations

import re
from pathlib import Path

import html_urls
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

_REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


def remote_loads_in_html(text: str) -> list[str]:
    """Return every resource an HTML page would fetch from another host."""
    _, named = html_urls.parse_page(text)
    remote = [u for u in named if u.loads and _REMOTE.match(u.url)]
    return [f"<{u.tag} {u.attribute}={u.url}>" for u in remote] + remote_loads_in_css(
        text
    )


def remote_loads_in_css(text: str) -> list[str]:
    """Return every ``@import`` or ``url()`` in CSS text that points at another host."""
    return [url for url in html_urls.css_urls(text) if _REMOTE.match(url)]


def find_remote_loads(outdir: Path) -> dict[str, list[str]]:
    """Map each built HTML or CSS file to the remote resources it loads."""
    found: dict[str, list[str]] = {}
    for path in sorted(outdir.rglob("*")):
        if path.suffix == ".html":
            remote = remote_loads_in_html(path.read_text(encoding="utf-8"))
        elif path.suffix == ".css":
            remote = remote_loads_in_css(path.read_text(encoding="utf-8"))
        else:
            continue
        if remote:
            found[str(path.relative_to(outdir))] = remote
    return found


def _check(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for page, remote in find_remote_loads(Path(app.outdir)).items():
        logger.warning(
            "%s loads from another host: %s", page, ", ".join(sorted(set(remote)))
        )


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("build-finished", _check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
