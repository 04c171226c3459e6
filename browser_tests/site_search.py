"""Drive the site's search page in a browser: the sections it ranks from Pagefind's
index, or Sphinx's own search.

Both return the links a reader sees, top to bottom, as ``page#section`` paths relative
to the edition's root (``#`` and nothing after it for a link to a page's top).
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from playwright.sync_api import Page

#: Sphinx's search writes its summary once every result is shown; the site's search
#: marks its element done once its results are (conf/_static/search-sections.js).
_SPHINX_DONE = "document.querySelector('#search-results .search-summary')?.innerText"
_PAGEFIND_DONE = "document.querySelector('#pagefind-search')?.dataset.state === 'done'"
#: A result's link, on the site's search page.
RESULT_LINK = ".site-search__link"
RESULT_EXCERPT = ".site-search__excerpt"


def _relative(href: str, edition_root: str) -> str:
    """``href`` as ``page#section`` below the edition's root."""
    parts = urlsplit(href)
    page = parts.path.removeprefix(urlsplit(edition_root).path)
    if page == "" or page.endswith("/"):
        page += "index.html"
    return f"{page}#{parts.fragment}"


def search_page(edition_root: str, query: str, engine: str = "pagefind") -> str:
    """The address of the search page of the edition at ``edition_root``."""
    extra = "&engine=sphinx" if engine == "sphinx" else ""
    return f"{edition_root}search.html?q={quote(query)}{extra}"


def results(page: Page, edition_root: str, query: str, engine: str) -> list[str]:
    """Search ``query`` with ``engine`` ("pagefind" or "sphinx"); the links shown."""
    page.goto(search_page(edition_root, query, engine))
    return shown(page, edition_root, engine)


def shown(page: Page, edition_root: str, engine: str = "pagefind") -> list[str]:
    """The links the search page shows once its search has run."""
    if engine == "sphinx":
        page.wait_for_function(_SPHINX_DONE, timeout=15_000)
        selector = "#search-results ul.search li > a"
    else:
        page.wait_for_function(_PAGEFIND_DONE, timeout=15_000)
        selector = RESULT_LINK
    hrefs = page.eval_on_selector_all(selector, "links => links.map(a => a.href)")
    return [_relative(href, edition_root) for href in hrefs]


def rank(found: list[str], expected: str, aliases: dict[str, str]) -> int | None:
    """Where ``expected`` (``page#section`` or a page) first appears in ``found``, from 1.

    ``aliases`` maps each id on the expected page to its section's id (see
    :func:`section_aliases`): a section's label and its heading's id, or a page's top
    and its title section, are one place.
    """
    page, _, section = expected.partition("#")
    wanted = aliases.get(section, section)
    for place, link in enumerate(found, start=1):
        link_page, _, link_section = link.partition("#")
        if link_page == page and aliases.get(link_section, link_section) == wanted:
            return place
    return None


# A section and the labels before its heading, as Sphinx 9 writes them.
_SECTION = re.compile(r'<section id="([^"]+)">\s*((?:<span id="[^"]*"></span>\s*)*)')
_LABEL = re.compile(r'<span id="([^"]*)">')


def section_aliases(html: str) -> dict[str, str]:
    """Each id a built page gives a section -> the section's own id; the page's top
    ("") -> its title section's."""
    aliases: dict[str, str] = {}
    for match in _SECTION.finditer(html):
        aliases.setdefault("", match[1])
        aliases[match[1]] = match[1]
        for label in _LABEL.findall(match[2]):
            aliases[label] = match[1]
    return aliases
