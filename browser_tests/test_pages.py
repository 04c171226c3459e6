"""The search page and the index load cleanly; the sitemap lists every page; 404 helps."""

from __future__ import annotations

from xml.etree import ElementTree

import built_site
import pytest
from playwright.sync_api import Page, expect


@pytest.mark.parametrize("path", ["search.html", "genindex.html"])
def test_search_and_index_pages_load_cleanly(page: Page, open_page, path: str) -> None:
    """Console errors, failed and outside requests are checked for every test; the
    content pages are checked in test_every_page.py."""
    open_page(path, idle=True)
    expect(page.locator("main")).to_be_visible()


@pytest.mark.parametrize("folder", ["", *built_site.EDITION_FOLDERS])
def test_sitemap_lists_every_page_of_its_edition_with_its_twins(
    page: Page, base_url: str, folder: str
) -> None:
    response = page.request.get(base_url + folder + "sitemap.xml")
    assert response.ok, f"{folder}sitemap.xml: HTTP {response.status}"
    namespace = {
        "s": "http://www.sitemaps.org/schemas/sitemap/0.9",
        "x": "http://www.w3.org/1999/xhtml",
    }
    urls = list(ElementTree.fromstring(response.body()).iterfind("s:url", namespace))
    site = built_site.published_url()
    locs = [url.findtext("s:loc", "", namespace) for url in urls]
    assert all(loc.startswith(site + folder) for loc in locs), locs
    mine = (
        built_site.edition_pages(folder.rstrip("/"))
        if folder
        else built_site.english_pages()
    )
    assert sorted(loc.removeprefix(site) for loc in locs) == sorted(mine)
    for url, loc in zip(urls, locs, strict=True):
        own = built_site.in_edition(loc.removeprefix(site))
        twins = {
            link.get("href", "").removeprefix(site)
            for link in url.iterfind("x:link", namespace)
        }
        assert twins == {own, *(f + own for f in built_site.EDITION_FOLDERS)}, loc


def test_missing_page_gets_the_styled_404_page(
    page: Page, base_url: str, traffic
) -> None:
    missing = base_url + "no/such/page.html"
    traffic.expect_status(missing, 404)
    response = page.goto(missing)
    assert response is not None
    assert response.status == 404
    page.wait_for_load_state("networkidle")
    expect(page.locator("main h1")).to_have_text("Page not found")
    primary = page.evaluate(
        "() => getComputedStyle(document.documentElement).getPropertyValue('--pst-color-primary')"
    )
    assert primary.strip(), "the theme's stylesheet did not load on the 404 page"
    page.locator("main a", has_text="home page").click()
    page.wait_for_load_state("networkidle")
    assert page.url == base_url + "index.html"
