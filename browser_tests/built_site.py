"""What the built site in build/html contains, read from its files to parametrize tests."""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from site_build.config.edition_list import EDITIONS

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "build" / "html"
SCREENSHOTS = ROOT / "build" / "screenshots"
REQUEST_LOG = ROOT / "build" / "browser" / "requests.txt"
GALLERY_INDEX = "gallery/index.html"
ERRORS_PAGE = "errors.html"
MATRIX_PAGE = "reference.html"
SEMANTICS = "semantics.json"
# Pages Sphinx and the 404 extension generate: no content of their own.
GENERATED = {"genindex.html", "search.html", "404.html", "py-modindex.html"}
_ASSET_DIRS = ("_static/", "_sources/", "_downloads/", "_images/")
#: Where each edition's pages sit below the site's root ("" for the English one).
EDITION_FOLDERS = tuple(f"{e.folder}/" for e in EDITIONS if e.folder)


def require(name: str) -> Path:
    """Return the path of a built file, failing with a clear message when it is missing."""
    path = HTML / name
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} does not exist: the built site lacks it (run `nox -s browser`, "
            "which builds the site first)"
        )
    return path


def in_edition(name: str) -> str:
    """A path relative to the site's root, relative to its edition's root instead."""
    for folder in EDITION_FOLDERS:
        if name.startswith(folder):
            return name.removeprefix(folder)
    return name


def pages() -> list[str]:
    """Every content page of every edition, as a path relative to the site root."""
    require("index.html")
    found = []
    for path in sorted(HTML.rglob("*.html")):
        name = path.relative_to(HTML).as_posix()
        own = in_edition(name)
        if not own.startswith(_ASSET_DIRS) and own not in GENERATED:
            found.append(name)
    return found


def edition_pages(folder: str) -> list[str]:
    """The content pages of the edition built into ``folder`` (``zh_CN``)."""
    return [name for name in pages() if name.startswith(folder + "/")]


def english_pages() -> list[str]:
    """The content pages of the English edition, at the site's root."""
    folders = tuple(f"{e.folder}/" for e in EDITIONS if e.folder)
    return [name for name in pages() if not name.startswith(folders)]


def sections() -> list[str]:
    """The pages a reader reaches from their edition's home page in one click.

    In each edition, every content page outside the gallery (the narrative pages and
    the reference matrix, wherever they sit) and the gallery's index; its entries are
    one more click.
    """
    gallery = posixpath.dirname(GALLERY_INDEX) + "/"
    return [
        name
        for name in pages()
        if (own := in_edition(name)) != "index.html"
        and (own == GALLERY_INDEX or not own.startswith(gallery))
    ]


def home_of(name: str) -> str:
    """The home page of the edition ``name`` belongs to."""
    return name.removesuffix(in_edition(name)) + "index.html"


@dataclass(frozen=True)
class GalleryEntry:
    """One thumbnail of the gallery index: the page it links to and its image."""

    page: str  # relative to the site root, e.g. gallery/clone.html
    thumbnail: str  # relative to the site root, e.g. _images/sphx_glr_clone_thumb.svg


class _GalleryParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.entries: list[tuple[str, str]] = []
        self._image: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if (
            tag == "div"
            and "sphx-glr-thumbcontainer" in values.get("class", "").split()
        ):
            self._image = ""
        elif tag == "img" and self._image == "":
            self._image = values.get("src", "")
        elif tag == "a" and self._image is not None:
            self.entries.append((values.get("href", ""), self._image))
            self._image = None


def _resolve(base: str, href: str) -> str:
    return posixpath.normpath(
        posixpath.join(posixpath.dirname(base), urlsplit(href).path)
    )


def gallery_entries() -> list[GalleryEntry]:
    """Every entry of the gallery index, in page order."""
    parser = _GalleryParser()
    parser.feed(require(GALLERY_INDEX).read_text(encoding="utf-8"))
    return [
        GalleryEntry(_resolve(GALLERY_INDEX, href), _resolve(GALLERY_INDEX, image))
        for href, image in parser.entries
    ]


def pages_with_prompts() -> list[str]:
    """Pages with a code block that shows interpreter prompts (``>>>``, ``$``)."""
    return [
        name
        for name in pages()
        if 'class="gp"' in (HTML / name).read_text(encoding="utf-8")
    ]


def published_url() -> str:
    """The URL the site is published at, from the home page's canonical link."""
    text = require("index.html").read_text(encoding="utf-8")
    match = re.search(r'<link rel="canonical" href="([^"]+)"', text)
    if not match:
        raise ValueError("the home page has no canonical link: is html_baseurl set?")
    return match.group(1).rsplit("/", 1)[0] + "/"


def path_prefix() -> str:
    """The URL path the site is published under: ``/`` at a host's root."""
    return urlsplit(published_url()).path or "/"


def semantics() -> dict:
    """The reference matrix's measured data, as published next to the pages."""
    return json.loads(require(SEMANTICS).read_text(encoding="utf-8"))


class _MessageHeadings(HTMLParser):
    """Collects the text of every third-level heading: one per message."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headings: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h3":
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "h3" and self._text is not None:
            self.headings.append(" ".join("".join(self._text).split()).rstrip("#"))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def error_headings() -> list[str]:
    """The heading of each message on the error-message page: a fragment of it."""
    parser = _MessageHeadings()
    parser.feed(require(ERRORS_PAGE).read_text(encoding="utf-8"))
    if not parser.headings:
        raise ValueError(f"{ERRORS_PAGE} has no third-level heading: no message")
    return parser.headings
