"""The light/dark switch changes and keeps the theme; the copy button copies bare code."""

from __future__ import annotations

import built_site
import pytest
from playwright.sync_api import Page, expect

_BACKGROUND = "() => getComputedStyle(document.body).backgroundColor"
# The code of a block as a reader wants it: no prompts, no output, no line numbers.
_BARE_CODE = """(block) => {
    const pre = block.querySelector('pre').cloneNode(true);
    pre.querySelectorAll('.gp, .go, .linenos').forEach(e => e.remove());
    return pre.textContent;
}"""


def _luminance(css_color: str) -> float:
    """Relative brightness, 0 to 255, of an ``rgb(r, g, b)`` colour."""
    r, g, b = (
        float(v) for v in css_color[css_color.index("(") + 1 : -1].split(",")[:3]
    )
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _choose_mode(page: Page, mode: str) -> None:
    page.locator(".theme-switch-button").filter(visible=True).first.click()
    page.locator(f".theme-change-button[data-mode='{mode}']").filter(
        visible=True
    ).first.click()


def test_theme_switch_turns_the_page_dark_and_back(page: Page, open_page) -> None:
    open_page("index.html")
    html = page.locator("html")
    expect(html).to_have_attribute("data-theme", "light")
    light = _luminance(page.evaluate(_BACKGROUND))
    _choose_mode(page, "dark")
    expect(html).to_have_attribute("data-theme", "dark")
    expect(html).to_have_attribute("data-mode", "dark")
    dark = _luminance(page.evaluate(_BACKGROUND))
    assert dark < 80 < light, f"background brightness {light:.0f} -> {dark:.0f}"
    open_page(built_site.sections()[0])
    expect(html).to_have_attribute("data-theme", "dark")  # remembered on the next page
    _choose_mode(page, "light")
    expect(html).to_have_attribute("data-theme", "light")


def test_system_setting_picks_the_theme(page: Page, open_page) -> None:
    page.emulate_media(color_scheme="dark")
    open_page("index.html")
    expect(page.locator("html")).to_have_attribute("data-mode", "auto")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")


def _pages_to_copy_from() -> list[str]:
    entries = built_site.gallery_entries()
    first = [entries[0].page] if entries else []
    return sorted({*first, *built_site.pages_with_prompts()})


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


@pytest.mark.parametrize("path", _pages_to_copy_from())
def test_copy_button_copies_the_code_without_prompts(
    page: Page, open_page, base_url: str, path: str
) -> None:
    origin = base_url[: base_url.index("/", len("http://"))]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    open_page(path)
    # Blocks in view: folded set-up and checks are closed until the reader opens them.
    with_prompts = page.locator("main div.highlight:visible:has(.gp)")
    prompts = with_prompts.count() > 0
    block = (
        with_prompts.first
        if prompts
        else page.locator("main div.highlight:visible").first
    )
    block.hover()
    button = block.locator("button.copybtn")
    expect(button).to_be_visible()
    button.click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    expected = block.evaluate(_BARE_CODE)
    assert copied.strip(), "the copy button copied nothing"
    assert not any(line.startswith((">>>", "...", "$ ")) for line in _lines(copied)), (
        f"prompts were copied:\n{copied}"
    )
    if prompts:  # only the lines typed at a prompt are copied, without it
        assert [x for x in _lines(copied) if x] == [x for x in _lines(expected) if x]
    else:
        assert _lines(copied) == _lines(expected)
