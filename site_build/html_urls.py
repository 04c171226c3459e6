"""Every URL a built HTML page or stylesheet names, and whether a browser fetches it.

One reader of pages for two checks: the hermetic check (no resource loaded from another
host) and the link check (every internal link and anchor resolves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

# Where a page names another resource: (tag, attribute).
URL_ATTRIBUTES = {
    ("a", "href"),
    ("area", "href"),
    ("link", "href"),
    ("script", "src"),
    ("img", "src"),
    ("img", "srcset"),
    ("source", "src"),
    ("source", "srcset"),
    ("iframe", "src"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("embed", "src"),
    ("object", "data"),
}
# Tags whose URL is followed by a person, not fetched while the page renders.
_NAVIGATION_TAGS = {"a", "area"}
# <link> relations that make the browser fetch the target while rendering.
_LOADING_LINK_RELS = {
    "stylesheet",
    "preload",
    "modulepreload",
    "icon",
    "prefetch",
    "manifest",
}
# OpenGraph metadata names pages of the site by their published URL.
_URL_META = {"og:url", "og:image"}
# url(...) and @import "..." in CSS, inline <style> included.
_CSS_URL = re.compile(
    r"""(?:@import\s+(?:url\()?|url\()\s*['"]?\s*([^'")\s;]+)""", re.I
)


@dataclass(frozen=True)
class NamedUrl:
    """One URL named by a page, and what names it."""

    url: str
    tag: str
    attribute: str
    #: A browser fetches it while rendering the page (a script, an image, a stylesheet).
    loads: bool


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.anchors: set[str] = set()
        self.urls: list[NamedUrl] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.anchors.add(values["id"])
        if tag == "a" and "name" in values:
            self.anchors.add(values["name"])
        if tag == "meta" and values.get("property") in _URL_META:
            self.urls.append(NamedUrl(values.get("content", ""), tag, "content", False))
        loads = tag not in _NAVIGATION_TAGS and (
            tag != "link"
            or bool(_LOADING_LINK_RELS & set(values.get("rel", "").split()))
        )
        for name, value in values.items():
            if (tag, name) not in URL_ATTRIBUTES or not value.strip():
                continue
            urls = (
                [item.split()[0] for item in value.split(",") if item.strip()]
                if name == "srcset"
                else [value.strip()]
            )
            self.urls += [NamedUrl(url, tag, name, loads) for url in urls]


def parse_page(text: str) -> tuple[set[str], list[NamedUrl]]:
    """Return the anchors an HTML page defines and the URLs it names."""
    parser = _PageParser()
    parser.feed(text)
    parser.close()
    return parser.anchors, parser.urls


def css_urls(text: str) -> list[str]:
    """Return the URLs CSS text names in ``url()`` or ``@import`` (all of them load)."""
    return [match.group(1).strip() for match in _CSS_URL.finditer(text)]
