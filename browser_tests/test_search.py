"""The search box finds sections: Pagefind's results, tested in the browser where they
run, on the query list of ``search_queries`` (measured against Sphinx's own search by
``measure_search.py``); and Sphinx's search where Pagefind cannot load."""

from __future__ import annotations

import built_site
import pytest
import search_queries
import site_search
from playwright.sync_api import Page, expect

_ALIASES: dict[str, dict[str, str]] = {}


def _aliases(edition: str, name: str) -> dict[str, str]:
    folder = built_site.HTML if edition == "en" else built_site.HTML / edition
    key = f"{edition}/{name}"
    if key not in _ALIASES:
        html = (folder / name).read_text(encoding="utf-8")
        _ALIASES[key] = site_search.section_aliases(html)
    return _ALIASES[key]


def _case_id(value: object) -> str:
    if isinstance(value, search_queries.Query):
        return f"{value.kind}-{value.text[:40]}"
    return str(value)


@pytest.mark.parametrize(("edition", "query"), search_queries.cases(), ids=_case_id)
def test_search_finds_the_section(
    page: Page, base_url: str, edition: str, query: search_queries.Query
) -> None:
    root = base_url if edition == "en" else f"{base_url}{edition}/"
    found = site_search.results(page, root, query.text, "pagefind")
    name = query.expected.split("#")[0]
    place = site_search.rank(found, query.expected, _aliases(edition, name))
    within = search_queries.FIRST[query.kind]
    shown = place if place is not None else len(found) + 1
    assert shown <= within, (
        f"{query.text!r} put {query.expected} at {place or 'no place'}, not within "
        f"{within}; the first results: {found[:5]}"
    )


def test_a_result_links_a_section_and_quotes_prose(page: Page, base_url: str) -> None:
    """Each link goes to a section's anchor; no excerpt quotes code or output."""
    site_search.results(page, base_url, "clone", "pagefind")
    links = page.eval_on_selector_all(
        site_search.RESULT_LINK, "links => links.map(a => a.href)"
    )
    assert links, "searching 'clone' showed no result"
    assert all("#" in link for link in links), links
    excerpts = page.locator(site_search.RESULT_EXCERPT).all_inner_texts()
    code = [e for e in excerpts if "import torch" in e or ">>>" in e or "assert " in e]
    assert not code, f"excerpts quote code: {code}"


def test_the_results_take_the_theme_colours(page: Page, base_url: str) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        site_search.results(page, base_url, "clone", "pagefind")
        colours = page.evaluate(
            """() => {
              const css = (el, p) => getComputedStyle(el).getPropertyValue(p).trim();
              const root = document.documentElement;
              const probe = document.createElement('span');
              probe.style.color = 'var(--pst-color-primary)';
              document.body.append(probe);
              const link = document.querySelector('.site-search__link');
              const mark = document.querySelector('.site-search mark');
              return [css(link, 'color'), css(probe, 'color'),
                      css(mark, 'background-color'), css(document.body, 'color')];
            }"""
        )
        link, primary, mark, _ = colours
        assert link == primary, (scheme, colours)
        assert mark != "rgb(255, 255, 0)", (scheme, colours)  # the browser's yellow


def test_sphinx_search_still_works_where_pagefind_cannot(
    page: Page, base_url: str
) -> None:
    """?engine=sphinx runs the search a copy opened from disk gets (file:// pages
    cannot fetch Pagefind's index); the theme's search page still drives it."""
    found = site_search.results(page, base_url, "clone", "sphinx")
    assert any(link.startswith("gallery/clone.html") for link in found), found
    expect(page.locator("#pagefind-search")).to_be_hidden()


def search_from_home(
    page: Page, open_page, base_url: str, query: str, home: str = "index.html"
) -> list[str]:
    """Type ``query`` into the search box of ``home``; return the pages found."""
    open_page(home)
    page.locator("button.search-button__button").filter(visible=True).first.click()
    box = page.locator("input[name=q]").filter(visible=True).first
    box.fill(query)
    box.press("Enter")
    page.wait_for_url("**/search.html?q=*")
    root = page.url.split("search.html")[0]
    prefix = root.removeprefix(base_url)
    return [prefix + link.split("#")[0] for link in site_search.shown(page, root)]


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        pytest.param("clone", "gallery/clone.html", id="clone-finds-the-clone-example"),
        pytest.param("view", "views.html", id="view-finds-the-views-page"),
    ],
)
def test_search_box_finds(
    page: Page, open_page, base_url: str, query: str, wanted: str
) -> None:
    found = search_from_home(page, open_page, base_url, query)
    assert wanted in found, f"searching {query!r} found {found}, not {wanted}"


@pytest.mark.parametrize("message", built_site.error_headings())
def test_search_finds_the_error_page_by_a_fragment_of_each_message(
    page: Page, open_page, base_url: str, message: str
) -> None:
    found = search_from_home(page, open_page, base_url, message)
    assert built_site.ERRORS_PAGE in found, (
        f"searching the message fragment {message!r} found {found}, not "
        f"{built_site.ERRORS_PAGE}"
    )
