"""The Chinese edition in a browser: each page switches to the same page in English and
back, Chinese search finds the pages about a term, and no English sentence is left on a
page, its header and footer included."""

from __future__ import annotations

import re

import built_site
import pytest
from playwright.sync_api import Page, expect

from site_build.config.editions import CHINESE, ENGLISH
from site_build.english_text import english_runs

ZH = CHINESE.folder + "/"
ZH_PAGES = built_site.edition_pages(CHINESE.folder)
#: Product names of three words or more that a page may show in any language.
NAMES = ("PyData Sphinx Theme",)


def test_every_english_page_has_a_chinese_twin() -> None:
    english = built_site.english_pages()
    assert sorted(ZH + name for name in english) == sorted(ZH_PAGES)


@pytest.mark.parametrize("path", ZH_PAGES)
def test_the_language_switch_leads_to_the_same_page_and_back(
    page: Page, open_page, base_url: str, path: str
) -> None:
    open_page(path)
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    page.locator(f".language-switch a[hreflang={ENGLISH.hreflang}]").filter(
        visible=True
    ).first.click()
    page.wait_for_load_state()
    assert page.url.split("#")[0] == base_url + path.removeprefix(ZH)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.locator(f".language-switch a[hreflang={CHINESE.hreflang}]").filter(
        visible=True
    ).first.click()
    page.wait_for_load_state()
    assert page.url.split("#")[0] == base_url + path


@pytest.mark.parametrize("path", ZH_PAGES)
def test_no_english_sentence_outside_code(page: Page, open_page, path: str) -> None:
    open_page(path)
    runs = [
        run
        for run in english_runs(page.content())
        if not any(run in name for name in NAMES)
    ]
    assert not runs, f"{path} shows English: {runs[:10]}"


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        pytest.param("视图", ZH + "views.html", id="view"),
        pytest.param("深拷贝", ZH + "mental-model.html", id="deep-copy"),
        pytest.param("原地操作", ZH + "inplace-memory.html", id="in-place"),
    ],
)
def test_chinese_search_finds_the_page_about_a_term(
    page: Page, open_page, base_url: str, query: str, wanted: str
) -> None:
    open_page(ZH + "index.html")
    page.locator("button.search-button__button").filter(visible=True).first.click()
    box = page.locator("input[name=q]").filter(visible=True).first
    box.fill(query)
    box.press("Enter")
    page.wait_for_url("**/search.html?q=*")
    # Results appear one by one; the summary gives their count once all are shown.
    expect(page.locator("#search-results .search-summary")).to_have_text(
        re.compile(r"\d"), timeout=15_000
    )
    found = [
        href.removeprefix(base_url).split("#")[0]
        for href in page.eval_on_selector_all(
            "#search-results ul.search li a", "links => links.map(a => a.href)"
        )
    ]
    assert wanted in found, f"searching {query!r} found {found}, not {wanted}"
