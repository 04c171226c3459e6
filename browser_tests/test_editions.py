"""The Chinese edition in a browser: each page switches to the same page in English and
back, Chinese search finds the pages about a term, and no English sentence is left on a
page, its header and footer included."""

from __future__ import annotations

import re

import built_site
import pytest
from playwright.sync_api import Page, expect
from test_search import search_from_home

from site_build.config.edition_list import CHINESE, ENGLISH
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
    # The Chinese summary gives the count of pages found, once all are shown.
    found = search_from_home(
        page, open_page, base_url, query, ZH + "index.html", re.compile(r"\d")
    )
    assert wanted in found, f"searching {query!r} found {found}, not {wanted}"
