"""The header is one row, and a link's target lands below it, where the reader sees it.

That every in-page link of every page lands below the header is checked in
test_every_page.py.
"""

from __future__ import annotations

import built_site
import pytest
from playwright.sync_api import Page

from site_build.config import site_url

WIDTHS = [1000, 1400, 1920]

# The vertical centre and height of each visible link and button of the header: in one
# row, every centre lies within the height of the smallest.
_HEADER_ITEMS = """() => [...document.querySelectorAll('header.bd-header a, header.bd-header button')]
    .filter(e => e.checkVisibility())
    .map(e => e.getBoundingClientRect())
    .filter(box => box.width > 0 && box.height > 0)
    .map(box => ({centre: box.top + box.height / 2, height: box.height}))"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_header_is_one_row(page: Page, open_page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    for name in ("index.html", built_site.MATRIX_PAGE, built_site.GALLERY_INDEX):
        open_page(name)
        items = page.evaluate(_HEADER_ITEMS)
        centres = [item["centre"] for item in items]
        assert max(centres) - min(centres) < min(item["height"] for item in items), (
            f"{name} at {width} px: the header's items sit on several rows: {items}"
        )


def test_links_from_the_home_table_land_on_their_row(page: Page, open_page) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page("index.html")
    links = page.locator("main table a[href*='#semantics-']")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert len(hrefs) >= 7, f"the home table links {len(hrefs)} rows"
    for href in hrefs:
        open_page("index.html")
        page.locator(f'main table a[href="{href}"]').first.click()
        page.wait_for_url(f"**/{href}")
        row = page.locator(f"tr#{href.split('#')[1]}")
        box = row.bounding_box()
        header = page.locator("header.bd-header").bounding_box()
        assert box is not None
        assert header is not None
        assert header["y"] + header["height"] - 1 <= box["y"] <= 900 - box["height"], (
            f"{href}: the row is not fully below the header ({box}, header {header})"
        )
        marked = row.locator("td").first.evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
        plain = page.locator("main tr:not(:target) td").first.evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
        assert marked != plain, f"{href}: the target row is not marked"


def test_the_header_links_the_source_repository_when_it_is_known(
    page: Page, open_page
) -> None:
    source = site_url.source_url()  # as the build read it
    open_page(built_site.MATRIX_PAGE)
    links = page.locator(f'header.bd-header a[href="{source}"]')
    if source is None:
        assert page.locator("header.bd-header a[href*='github.com']").count() == 0
    else:
        assert links.first.is_visible(), f"no visible link to {source} in the header"
        assert page.locator(f'main a[href="{source}"]').count() == 1, (
            "the reference page does not link the repository it tells readers to clone"
        )
