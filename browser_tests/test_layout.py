"""Printed output, links around code, titles and folded checks look as they should.

The checks of every page's layout (code fits the column, nothing scrolls sideways on a
phone) are in test_every_page.py.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

# Links around code with an underscore, and how far below the text their underline is.
_UNDERLINED_CODE = """() => [...document.querySelectorAll('main a')]
    .filter(a => [...a.querySelectorAll(':scope > code')].some(c => c.innerText.includes('_')))
    .map(a => {
        const style = getComputedStyle(a);
        return {text: a.innerText, offset: parseFloat(style.textUnderlineOffset) || 0,
                size: parseFloat(style.fontSize)};
    })"""


def test_underlines_clear_the_underscores_of_code(page: Page, open_page) -> None:
    open_page("views.html")
    links = page.evaluate(_UNDERLINED_CODE)
    assert links, "views.html has no link around code with an underscore"
    close = [link["text"] for link in links if link["offset"] < 0.25 * link["size"]]
    assert not close, f"underlines through the underscores of {close}"


# The computed look of the first block of printed output on a page.
_OUTPUT_LOOK = """() => {
    const pre = document.querySelector(
        'main div.sphx-glr-script-out pre, main div.cell_output pre');
    const style = getComputedStyle(pre);
    return [style.backgroundColor, style.borderTopStyle, style.color];
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_printed_output_looks_the_same_on_gallery_and_narrative_pages(
    page: Page, open_page, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    looks = {}
    for name in ("gallery/clone.html", "views.html"):
        open_page(name)
        looks[name] = page.evaluate(_OUTPUT_LOOK)
    assert looks["gallery/clone.html"] == looks["views.html"], looks


def test_code_in_a_heading_wraps_on_a_phone(page: Page, open_page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_page("gallery/copy_.html")
    overflow = page.evaluate(
        "() => { const h = document.querySelector('main h1');"
        " return h.scrollWidth - h.clientWidth; }"
    )
    assert overflow <= 0, f"the title runs {overflow} px past its column"


@pytest.mark.parametrize("name", ["gallery/clone.html", "views.html"])
def test_the_checks_are_folded_and_open_on_a_click(
    page: Page, open_page, name: str
) -> None:
    open_page(name)
    checks = page.locator("main details.folded-code").filter(
        has=page.locator("summary", has_text="Checks")
    )
    assert checks.count() > 0, f"{name} has no folded checks"
    first = checks.first
    code = first.locator("pre")
    assert not code.is_visible(), "folded checks are shown before they are opened"
    first.locator("summary").click()
    assert code.is_visible()
    assert "assert" in code.inner_text()
