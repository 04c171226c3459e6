"""The chrome around the answers: the matrix on a phone, where code and captions wrap,
the gallery's note, buttons and captions, marked headings and the home page's first
screen (issue 24, part 4)."""

from __future__ import annotations

import built_site
import pytest
from playwright.sync_api import Page

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1400, "height": 900}
CLONE = "gallery/clone.html"

# Scroll the matrix's first table to a middle row and its last column, as a reader
# would (page and box); then check that the badge there can be told by its column's
# heading above it and its row's expression beside it, both on screen and uncovered.
_BADGE_LABELS = """() => {
    const table = document.querySelector('main table.semantics-matrix');
    const rows = table.tBodies[0].rows;
    const row = rows[Math.floor(rows.length / 2)];
    const cell = row.cells[row.cells.length - 1];
    cell.scrollIntoView({block: 'center', inline: 'end'});
    const header = document.querySelector('header.bd-header').getBoundingClientRect();
    const shown = (e) => {
        const r = e.getBoundingClientRect();
        const x = Math.min(Math.max(r.left + r.width / 2, 1), innerWidth - 1);
        const y = r.top + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        return r.top >= header.bottom - 1 && r.bottom <= innerHeight
            && r.right > 0 && r.left < innerWidth && e.contains(hit)
            ? null : `at ${Math.round(r.left)},${Math.round(r.top)} px covered by `
                     + (hit ? hit.outerHTML.slice(0, 50) : 'nothing');
    };
    const heading = table.tHead.rows[0].cells[table.tHead.rows[0].cells.length - 1];
    const box = table.parentElement;
    return {scrolledDown: window.scrollY, scrolledSideways: box.scrollLeft,
            heading: shown(heading), expression: shown(row.cells[0])};
}"""


def test_the_matrix_tells_each_badge_by_column_and_row_on_a_phone(
    page: Page, open_page
) -> None:
    page.set_viewport_size(PHONE)
    open_page(built_site.MATRIX_PAGE)
    page.evaluate(_BADGE_LABELS)
    page.wait_for_timeout(100)  # the head follows on the next frame
    seen = page.evaluate(_BADGE_LABELS)
    assert seen["scrolledDown"] > 0, seen
    assert seen["scrolledSideways"] > 0, seen
    assert seen["heading"] is None, f"the last column's heading: {seen['heading']}"
    assert seen["expression"] is None, f"the row's expression: {seen['expression']}"


# Every line break inside each matching element: the text before it and after it.
# Characters are measured one by one (Range.getClientRects); a new line starts where a
# character's top is below the previous one's.
_BREAKS = """(selector) => [...document.querySelectorAll(selector)].flatMap(element => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            // A space a line ends at has no box: it counts as text, not as a line.
            chars.push({c: node.data[i], r: range.getClientRects()[0]});
        }
    }
    const text = chars.map(x => x.c).join('');
    const breaks = [];
    let last = null;
    chars.forEach((x, i) => {
        if (!x.r) return;
        if (last && x.r.top > last.top + last.height / 2) {
            breaks.push({before: text.slice(0, i), after: text.slice(i)});
        }
        last = x.r;
    });
    return breaks;
})"""


def _mid_name(
    breaks: list[dict], after: tuple[str, ...] = (".", "(", ",")
) -> list[str]:
    """The breaks that fall anywhere but after one of ``after``, at a space, or
    between a call and its subscript (``state_dict()|["weight"]``: Chromium's own line
    breaking allows it, and it is not inside a name)."""
    return [
        f"{b['before']}|{b['after']}"
        for b in breaks
        if not b["before"].rstrip().endswith(after)
        and not b["before"].endswith(" ")
        and not b["after"].startswith(" ")
        and not (b["before"].endswith(")") and b["after"].startswith("["))
    ]


def test_code_in_tables_breaks_only_after_a_dot_a_bracket_or_a_comma(
    page: Page, open_page
) -> None:
    page.set_viewport_size(PHONE)
    for name in ("index.html", built_site.MATRIX_PAGE):
        open_page(name)
        breaks = page.evaluate(_BREAKS, "main table code")
        assert breaks, f"{name}: no code in a table wraps at 390 px: nothing tested"
        wrong = _mid_name(breaks)
        assert not wrong, f"{name}, at 390 px, code breaks inside a name: {wrong[:10]}"


@pytest.mark.parametrize("width", [390, 1400])
def test_gallery_captions_wrap_between_words(page: Page, open_page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    open_page(built_site.GALLERY_INDEX)
    breaks = page.evaluate(_BREAKS, ".sphx-glr-thumbnail-title")
    assert breaks, f"no caption wraps at {width} px: nothing tested"
    # A keyword argument's '=' too: index_put_(accumulate=|True) is wider than a card.
    wrong = _mid_name(breaks, (".", "(", ",", "="))
    assert not wrong, f"at {width} px, captions break inside a word: {wrong}"


# The first element of the article with a box of its own on screen, leaving out those
# that hold the title (the article, its section).
_FIRST_SHOWN = """() => {
    const h1 = document.querySelector('main article h1');
    const first = [...document.querySelectorAll('main article *')].find(e =>
        !e.contains(h1) && e.getBoundingClientRect().height > 0);
    return h1.contains(first) ? '<h1>' : first.outerHTML.slice(0, 80);
}"""


@pytest.mark.parametrize("size", [PHONE, WIDE], ids=["390", "1400"])
def test_a_gallery_page_starts_with_its_title(
    page: Page, open_page, size: dict
) -> None:
    page.set_viewport_size(size)
    open_page(CLONE)
    first = page.evaluate(_FIRST_SHOWN)
    assert first.startswith("<h1"), f"{CLONE} starts with {first}"


# The computed colour of ``property`` of ``selector``, and the value of each theme
# variable named, resolved the same way: both in rgb().
_COLOURS = """([selector, checks]) => {
    const element = document.querySelector(selector);
    const probe = document.createElement('span');
    element.parentElement.append(probe);
    const out = checks.map(([property, variable]) => {
        probe.style.setProperty(property, `var(${variable})`);
        return {property, variable,
                got: getComputedStyle(element).getPropertyValue(property),
                theme: getComputedStyle(probe).getPropertyValue(property)};
    });
    probe.remove();
    return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_download_buttons_take_the_themes_colours(
    page: Page, open_page, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    open_page(CLONE)
    checks = [
        ["background-color", "--pst-color-surface"],
        ["color", "--pst-color-link"],
        ["border-top-color", "--pst-color-border"],
    ]
    for selector in (".sphx-glr-download-python a", ".sphx-glr-download-python code"):
        for check in page.evaluate(_COLOURS, [selector, checks]):
            if selector.endswith("code") and check["property"] != "color":
                continue  # the code's box is transparent: the button's shows
            assert check["got"] == check["theme"], f"{scheme}, {selector}: {check}"
    image = page.evaluate(
        "() => getComputedStyle(document.querySelector("
        "'.sphx-glr-download-python a')).backgroundImage"
    )
    assert image == "none", f"{scheme}: the buttons are painted with {image}"


# The id of the first message's section on the errors page, then that heading's look
# once its section is the target.
_FIRST_MESSAGE = "() => document.querySelector('main section:has(> h3)').id"
_LOOK = """(selector) => {
    const style = getComputedStyle(document.querySelector(selector));
    return {background: style.backgroundColor, width: parseFloat(style.borderLeftWidth)};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_targeted_heading_is_marked_by_a_bar_not_a_block(
    page: Page, open_page, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    open_page(built_site.ERRORS_PAGE)
    target = page.evaluate(_FIRST_MESSAGE)
    page.evaluate("(id) => { location.hash = id; }", target)
    heading = f"section#{target} > h3"
    assert page.evaluate(
        f"() => document.querySelector('{heading}:is(:target > *)') !== null"
    )
    look = page.evaluate(_LOOK, heading)
    assert look["background"] == "rgba(0, 0, 0, 0)", f"{scheme}: {look}"
    assert look["width"] >= 2, f"{scheme}: the heading is not marked: {look}"
    bar = page.evaluate(
        _COLOURS, [heading, [["border-left-color", "--pst-color-primary"]]]
    )
    assert bar[0]["got"] == bar[0]["theme"], f"{scheme}: {bar}"


# Within the first screen: the quick-answer table's first rows, whole, or question
# links. Each counts only where its bottom is above the window's.
_FIRST_SCREEN = """() => {
    const rows = [...document.querySelectorAll('main table.semantics-table tbody tr')]
        .filter(r => r.getBoundingClientRect().bottom <= innerHeight);
    const questions = [...document.querySelectorAll('main a[href*="questions"]')]
        .filter(a => a.getBoundingClientRect().bottom <= innerHeight);
    return {rows: rows.length, questions: questions.map(a => a.href)};
}"""


@pytest.mark.parametrize("size", [PHONE, WIDE], ids=["390", "1400"])
def test_the_home_pages_first_screen_answers(page: Page, open_page, size: dict) -> None:
    page.set_viewport_size(size)
    open_page("index.html")
    seen = page.evaluate(_FIRST_SCREEN)
    assert seen["rows"] >= 2, (
        f"at {size['width']}x{size['height']}, {seen['rows']} rows of the quick-answer "
        "table are in the first screen"
    )
    assert seen["questions"], "the first screen does not link to the questions"
