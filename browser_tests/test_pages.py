"""Every page loads cleanly and describes itself; the sitemap lists them; 404 helps."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import built_site
import pytest
from playwright.sync_api import Page, expect

PAGES = built_site.pages()
_META = """() => Object.fromEntries([...document.querySelectorAll(
    'meta[name=description], meta[property^="og:"], link[rel=canonical]')].map(
    e => [e.getAttribute('name') || e.getAttribute('property') || 'canonical',
          e.getAttribute('content') || e.getAttribute('href')]))"""


@pytest.mark.parametrize("path", [*PAGES, "search.html", "genindex.html"])
def test_page_loads_cleanly_and_describes_itself(
    page: Page, open_page, path: str
) -> None:
    """Console errors, failed and outside requests are checked for every test."""
    open_page(path)
    expect(page.locator("main")).to_be_visible()
    if path not in PAGES:
        return  # the search page and the index have no text to describe
    meta = page.evaluate(_META)
    description = meta.get("description", "")
    assert len(description) >= 40, f"description too short: {description!r}"
    assert meta.get("og:description") == description
    assert meta.get("og:title"), "no og:title"
    assert meta.get("og:url") == meta.get("canonical"), (
        "og:url is not the canonical URL"
    )
    assert meta["og:url"].endswith("/" + path), f"og:url {meta['og:url']} is not {path}"
    # Sphinx's page metadata, a Python object's default repr, or the build's time and
    # memory figures, shown as if content.
    text = page.locator("main").inner_text()
    for noise in (
        "orphan:",
        " object at 0x",
        "Estimated memory usage",
        "Total running time",
    ):
        assert noise not in text, f"{path} shows {noise!r}"
    assert not description.startswith("orphan"), description
    # The description says something the title has not: it does not open by naming
    # the title's subject again (``Tensor.clone()``: ... then "torch.Tensor.clone()
    # copies ...").
    subject = re.sub(r"\W", "", meta["og:title"].split(":")[0].lower())
    opening = re.sub(r"\W", "", description.lower())[: len(subject) + len("torch")]
    assert subject not in opening, f"the description repeats the title: {description!r}"


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
