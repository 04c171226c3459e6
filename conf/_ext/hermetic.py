"""Sphinx extension: fail the build when a built page would load anything from another host."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

# Attributes through which a browser fetches a resource while rendering a page.
# Plain <a href> links are navigation, not loads, and stay allowed.
_LOADING = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
}
_LOADING_LINK_RELS = {
    "stylesheet",
    "preload",
    "modulepreload",
    "icon",
    "prefetch",
    "manifest",
}
_REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
_CSS_REMOTE = re.compile(
    r"""(@import\s+|url\()\s*['"]?\s*((https?:)?//[^'")\s]+)""", re.I
)


class _LoadFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.remote: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        names = _LOADING.get(tag, ())
        if tag == "link" and _LOADING_LINK_RELS & set(values.get("rel", "").split()):
            names = ("href",)
        for name in names:
            for url in values.get(name, "").split(","):
                if _REMOTE.match(url):
                    self.remote.append(f"<{tag} {name}={url.strip().split()[0]}>")


def remote_loads_in_html(text: str) -> list[str]:
    """Return every resource an HTML page would fetch from another host."""
    finder = _LoadFinder()
    finder.feed(text)
    return finder.remote + remote_loads_in_css(text)


def remote_loads_in_css(text: str) -> list[str]:
    """Return every ``@import`` or ``url()`` in CSS text that points at another host."""
    return [match.group(2) for match in _CSS_REMOTE.finditer(text)]


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
