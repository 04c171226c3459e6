"""The home page loads, and one click takes a reader to every section of the site."""

from __future__ import annotations

import contextlib
import re

import built_site
import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

# What a reader can click to follow a link to ``wanted``: the link itself when it has a
# box on screen, or the card a zero-size "stretched" link covers (sphinx-design cards).
_CLICKABLE_LINK_TO = """(wanted) => {
    const shown = (e) => {
        const box = e.getBoundingClientRect();
        return box.width > 0 && box.height > 0
            && e.checkVisibility({visibilityProperty: true, opacityProperty: true});
    };
    const links = [...document.querySelectorAll('a[href]')];
    for (const [index, a] of links.entries()) {
        if (a.href.split('#')[0] !== wanted) continue;
        if (shown(a)) return {index, card: false};
        const card = a.classList.contains('sd-stretched-link') && a.closest('.sd-card');
        if (card && shown(card)) return {index, card: true};
    }
    return null;
}"""


def test_home_page_loads_with_its_title_and_footer(page: Page, open_page) -> None:
    open_page("index.html")
    expect(page).to_have_title(re.compile("PyTorch copy semantics"))
    expect(page.locator("main h1").first).to_be_visible()
    expect(page.locator(".verified-with").first).to_contain_text("PyTorch")


@pytest.mark.parametrize("target", built_site.sections())
def test_one_click_from_home_reaches(
    page: Page, open_page, base_url: str, target: str
) -> None:
    open_page(built_site.home_of(target))
    wanted = base_url + target
    found = page.evaluate(_CLICKABLE_LINK_TO, wanted)
    assert found, f"the home page shows no link to {target} a reader could click"
    link = page.locator("a[href]").nth(found["index"])
    if found["card"]:
        link = link.locator("xpath=ancestor::div[contains(@class, 'sd-card')][1]")
    link.click()
    # Until the target has loaded (its own load is judged in test_every_page.py); if
    # it never does, the assertion names where the link led.
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_url(lambda url: url.split("#")[0] == wanted, timeout=10_000)
    assert page.url.split("#")[0] == wanted, f"the link led to {page.url}"
    expect(page.locator("main h1").first).to_be_visible()
