"""The search box finds pages; Sphinx's search runs in the browser, so it is tested there."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

import built_site
import pytest
from playwright.sync_api import Page, expect


def _clone_example(path: str) -> bool:
    return path == "gallery/clone.html"


def _views_page(path: str) -> bool:
    """The narrative page on views: outside the gallery, named for views."""
    return not path.startswith("gallery/") and posixpath.basename(path).startswith(
        "view"
    )


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        pytest.param("clone", _clone_example, id="clone-finds-the-clone-example"),
        pytest.param("view", _views_page, id="view-finds-the-views-page"),
    ],
)
def test_search_box_finds(
    page: Page, open_page, base_url: str, query: str, wanted: Callable[[str], bool]
) -> None:
    found = search_from_home(page, open_page, base_url, query)
    assert any(wanted(path) for path in found), (
        f"searching {query!r} found {found}, not {wanted.__doc__ or wanted.__name__}"
    )


@pytest.mark.parametrize("message", built_site.error_headings())
def test_search_finds_the_error_page_by_a_fragment_of_each_message(
    page: Page, open_page, base_url: str, message: str
) -> None:
    found = search_from_home(page, open_page, base_url, message)
    assert built_site.ERRORS_PAGE in found, (
        f"searching the message fragment {message!r} found {found}, not "
        f"{built_site.ERRORS_PAGE}"
    )


def search_from_home(
    page: Page,
    open_page,
    base_url: str,
    query: str,
    home: str = "index.html",
    finished: str | re.Pattern = "Search finished",
) -> list[str]:
    """Type ``query`` into the search box of ``home``; return the pages found.

    Results appear one by one; the summary (``finished``, in the edition's language)
    is written once all are shown.
    """
    open_page(home)
    page.locator("button.search-button__button").filter(visible=True).first.click()
    box = page.locator("input[name=q]").filter(visible=True).first
    box.fill(query)
    box.press("Enter")
    page.wait_for_url("**/search.html?q=*")
    summary = page.locator("#search-results .search-summary")
    if isinstance(finished, str):
        expect(summary).to_contain_text(finished, timeout=15_000)
    else:
        expect(summary).to_have_text(finished, timeout=15_000)
    return [
        href.removeprefix(base_url).split("#")[0]
        for href in page.eval_on_selector_all(
            "#search-results ul.search li a", "links => links.map(a => a.href)"
        )
    ]
