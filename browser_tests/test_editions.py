"""The Chinese edition in a browser: every page has its twin, and Chinese search finds
the pages about a term.

That every page's language switch leads to its twin, and that no Chinese page shows an
English sentence, header and footer included, is checked in test_every_page.py.
"""

from __future__ import annotations

import built_site
import pytest
from playwright.sync_api import Page
from test_search import search_from_home

from site_build.config.edition_list import CHINESE

ZH = CHINESE.folder + "/"
ZH_PAGES = built_site.edition_pages(CHINESE.folder)


def test_every_english_page_has_a_chinese_twin() -> None:
    english = built_site.english_pages()
    assert sorted(ZH + name for name in english) == sorted(ZH_PAGES)


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
    found = search_from_home(page, open_page, base_url, query, ZH + "index.html")
    assert wanted in found, f"searching {query!r} found {found}, not {wanted}"
