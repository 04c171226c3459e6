"""Code and output fit the column on a laptop, and no page scrolls sideways on a phone."""

from __future__ import annotations

import built_site
import pytest
from playwright.sync_api import Page

# The first line of each visible code or output block that scrolls sideways.
_SCROLLING_BLOCKS = """() => [...document.querySelectorAll('main pre')]
    .filter(pre => pre.checkVisibility() && pre.scrollWidth > pre.clientWidth + 1)
    .map(pre => pre.innerText.split('\\n').reduce(
        (a, line) => line.length > a.length ? line : a, '').slice(0, 90))"""

# Lines of visible Python code (not printed output) that assert or run past 79 columns.
_LESSON_PROBLEMS = """() => [...document.querySelectorAll(
        'main .cell_input pre, main div.highlight-Python pre, main div.highlight-python pre')]
    .filter(pre => pre.checkVisibility())
    .flatMap(pre => pre.innerText.split('\\n'))
    .filter(line => /^\\s*assert\\b/.test(line) || line.length > 79)"""

# How far the page itself reaches past the right edge of the window.
_PAGE_OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"


@pytest.mark.parametrize("name", built_site.pages())
def test_code_and_output_fit_the_column_at_1400_px(
    page: Page, open_page, name: str
) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(name)
    scrolling = page.evaluate(_SCROLLING_BLOCKS)
    assert not scrolling, (
        f"{name}: blocks wider than the column, longest lines: {scrolling}"
    )
    # The lesson in view, its checks folded away (site_build.folding_rule).
    problems = page.evaluate(_LESSON_PROBLEMS)
    assert not problems, f"{name}: visible code that asserts or is too long: {problems}"


@pytest.mark.parametrize("name", built_site.pages())
def test_no_page_scrolls_sideways_on_a_phone(page: Page, open_page, name: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(name)
    overflow = page.evaluate(_PAGE_OVERFLOW)
    assert overflow <= 0, f"{name} reaches {overflow} px past a 390 px screen"


# The previous/next links at the foot of the page whose text is cut: by the link's own
# edge (it hides what overflows it) or by the screen's.
_CUT_PREV_NEXT = """() => [...document.querySelectorAll('.prev-next-area a')].flatMap(a => {
    const text = a.innerText.replace(/\\s+/g, ' ').trim();
    const box = a.getBoundingClientRect();
    return [
        ...(a.scrollWidth > a.clientWidth + 1 ? [`${text}: cut at its edge`] : []),
        ...(box.left < 0 || box.right > innerWidth + 1 ? [`${text}: off screen`] : []),
    ];
})"""


@pytest.mark.parametrize("name", built_site.pages())
def test_previous_and_next_links_are_whole_on_a_phone(
    page: Page, open_page, name: str
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(name)
    cut = page.evaluate(_CUT_PREV_NEXT)
    assert not cut, f"{name} at 390 px: {cut}"


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
