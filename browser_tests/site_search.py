"""Drive the site's search page in a browser: Pagefind's results, or Sphinx's own.

Both return the links a reader sees, top to bottom, as ``page#section`` paths relative
to the edition's root (``#`` and nothing after it for a link to a page's top).
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from playwright.sync_api import Page

#: Sphinx's search writes its summary once every result is shown; Pagefind's UI its
#: message once the search has run, and each result's link once its data has loaded.
_SPHINX_DONE = "document.querySelector('#search-results .search-summary')?.innerText"
_PAGEFIND_DONE = """() => {
  const message = document.querySelector('.pagefind-ui__message');
  // "Searching for ..." (in the page's language) until the search has run.
  return message && message.innerText.length > 0
    && !message.innerText.trim().endsWith("...")
    && !document.querySelector('.pagefind-ui__result .pagefind-ui__loading');
}"""


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
        selector = ".pagefind-ui__result-link"
    hrefs = page.eval_on_selector_all(selector, "links => links.map(a => a.href)")
    shown: list[str] = []
    for href in hrefs:
        link = _relative(href, edition_root)
        if not shown or shown[-1] != link:  # a page's link repeats its best section's
            shown.append(link)
    return shown


def rank(found: list[str], expected: str, title_ids: dict[str, str]) -> int | None:
    """Where ``expected`` (``page#section`` or a page) first appears in ``found``, from 1.

    A link to a page's top and one to its title section are the same place.
    """
    page, _, section = expected.partition("#")
    wanted = {section} if section else {"", title_ids.get(page, "")}
    if section and section == title_ids.get(page):
        wanted.add("")
    for place, link in enumerate(found, start=1):
        link_page, _, link_section = link.partition("#")
        if link_page == page and link_section in wanted:
            return place
    return None


def title_section(html: str) -> str:
    """The id of a built page's title section: its first ``<section>``."""
    start = html.find('<section id="')
    return html[start + len('<section id="') :].split('"', 1)[0] if start >= 0 else ""
