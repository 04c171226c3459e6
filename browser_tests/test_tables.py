"""Tables read whole: on a phone the first column stays while the others scroll, and on
a wide screen the matrix keeps its headings in view and its rows one line high."""

from __future__ import annotations

import built_site
import pytest
from playwright.sync_api import JSHandle, Page

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1400, "height": 900}
DECISION_GUIDE = "decision-guide.html"
MATRIX_TABLES = "main table.semantics-matrix"

# Scroll each table's box to its last column, bring each row to the middle of the
# window, and report the rows whose expression (the first cell's first code) is not
# whole on screen and on top, or whose last cell is still out of sight.
_FIRST_COLUMN_AT_THE_END = """(tables) => tables.flatMap((table, t) => {
    const box = table.parentElement;
    box.scrollLeft = box.scrollWidth;
    const problems = [];
    for (const row of table.rows) {
        window.scrollBy(0, row.getBoundingClientRect().top - innerHeight / 2);
        const first = row.cells[0];
        const label = row.id || `table ${t}, row ${row.rowIndex}`;
        const shown = first.querySelector('code') || first;
        const r = shown.getBoundingClientRect();
        const edge = box.getBoundingClientRect();
        if (r.left < Math.max(0, edge.left) - 1 || r.right > Math.min(innerWidth, edge.right) + 1) {
            problems.push(`${label}: its expression spans ${Math.round(r.left)}..${Math.round(r.right)} px`);
            continue;
        }
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!first.contains(hit)) {
            problems.push(`${label}: its expression is covered by ${hit && hit.outerHTML.slice(0, 60)}`);
        }
        const last = row.cells[row.cells.length - 1].getBoundingClientRect();
        if (last.right > Math.min(innerWidth, edge.right) + 1) {
            problems.push(`${label}: not scrolled to its last column`);
        }
    }
    return problems;
})"""

# Text that cannot be read whole at the present width: a caption or a cell outside the
# window or its scrolling box, content overflowing its cell, and, where the box
# scrolls, a first column that leaves the screen or a cell too wide to be seen beside it.
_CLIPPED = """(table) => {
    const box = table.parentElement;
    const problems = [];
    const inside = (e, what) => {
        const r = e.getBoundingClientRect();
        const edge = box.getBoundingClientRect();
        if (r.left < Math.max(0, edge.left) - 1 || r.right > Math.min(innerWidth, edge.right) + 1) {
            problems.push(`${what} spans ${Math.round(r.left)}..${Math.round(r.right)} px, `
                + `the screen 0..${innerWidth}, its box ${Math.round(edge.left)}..${Math.round(edge.right)}`);
        }
    };
    const name = (cell) => `"${cell.innerText.trim().slice(0, 40)}"`;
    box.scrollLeft = 0;
    if (table.caption) inside(table.caption, 'the caption');
    const cells = [...table.rows].flatMap(row => [...row.cells]);
    for (const cell of cells) {
        if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`${name(cell)} overflows its cell`);
    }
    if (box.scrollWidth <= box.clientWidth + 1) {
        for (const cell of cells) inside(cell, name(cell));
        return problems;
    }
    for (const end of [0, box.scrollWidth]) {
        box.scrollLeft = end;
        for (const row of table.rows) inside(row.cells[0], `${name(row.cells[0])} (scrolled to ${end})`);
    }
    for (const row of table.rows) {
        const room = box.clientWidth - row.cells[0].offsetWidth;
        for (const cell of [...row.cells].slice(1)) {
            if (cell.offsetWidth > room + 1) problems.push(`${name(cell)} is wider than the room beside the first column`);
        }
    }
    return problems;
}"""

# What a reader sees of each table's box: its mask while the first columns show, and
# once scrolled to the end.
_CUE = """(tables) => tables.map(table => {
    const box = table.parentElement;
    const mask = () => getComputedStyle(box).maskImage || getComputedStyle(box).webkitMaskImage;
    box.scrollLeft = 0;
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    box.dispatchEvent(new Event('scroll'));
    const atStart = mask();
    box.scrollLeft = box.scrollWidth;
    box.dispatchEvent(new Event('scroll'));
    return {scrolls, atStart, atEnd: mask()};
})"""

# Scroll the middle row of each table to the middle of the window; report the tables
# whose column headings are then above the page header, off screen or covered.
_HEADINGS_WHILE_SCROLLING = """(tables) => tables.flatMap((table, t) => {
    const header = document.querySelector('header.bd-header').getBoundingClientRect();
    const rows = table.tBodies[0].rows;
    const middle = rows[Math.floor(rows.length / 2)];
    window.scrollBy(0, middle.getBoundingClientRect().top - innerHeight / 2);
    return [...table.tHead.rows[0].cells].flatMap(th => {
        const r = th.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return r.top >= header.bottom - 1 && r.bottom <= innerHeight && th.contains(hit)
            ? [] : [`table ${t}: "${th.innerText}" at ${Math.round(r.top)} px, `
                    + `the page header ends at ${Math.round(header.bottom)} px`];
    });
})"""


def _tables(page: Page, selector: str) -> JSHandle:
    """The tables matching ``selector``, as one handle to pass to a script."""
    handle = page.evaluate_handle(f"() => [...document.querySelectorAll('{selector}')]")
    assert page.evaluate("tables => tables.length", handle), f"no {selector}"
    return handle


def test_the_matrix_keeps_each_expression_in_view_when_scrolled_on_a_phone(
    page: Page, open_page
) -> None:
    page.set_viewport_size(PHONE)
    open_page(built_site.MATRIX_PAGE)
    lost = page.evaluate(_FIRST_COLUMN_AT_THE_END, _tables(page, MATRIX_TABLES))
    assert not lost, f"at 390 px, scrolled to the last column: {lost[:10]}"


def test_a_table_that_scrolls_shows_it_on_a_phone(page: Page, open_page) -> None:
    page.set_viewport_size(PHONE)
    open_page(built_site.MATRIX_PAGE)
    boxes = page.evaluate(_CUE, _tables(page, MATRIX_TABLES))
    assert all(box["scrolls"] for box in boxes), (
        "a matrix table fits a phone: no cue to test"
    )
    unmarked = [
        i for i, box in enumerate(boxes) if box["atStart"] in ("none", "", None)
    ]
    assert not unmarked, f"tables {unmarked} do not show that columns lie to the right"
    faded = [i for i, box in enumerate(boxes) if box["atEnd"] not in ("none", "", None)]
    assert not faded, f"tables {faded} still fade their last column when scrolled to it"


@pytest.mark.parametrize("name", ["index.html", DECISION_GUIDE])
def test_no_table_text_is_clipped_on_a_phone(page: Page, open_page, name: str) -> None:
    page.set_viewport_size(PHONE)
    open_page(name)
    tables = page.locator("main table")
    assert tables.count(), f"{name} has no table"
    for i in range(tables.count()):
        clipped = tables.nth(i).evaluate(_CLIPPED)
        assert not clipped, f"{name}, table {i}, at 390 px: {clipped[:10]}"


def test_the_home_table_fits_a_phone_with_its_caption(page: Page, open_page) -> None:
    # The answer to the top question at a glance: four columns need no scrolling.
    page.set_viewport_size(PHONE)
    open_page("index.html")
    table = page.locator("main table.semantics-table")
    caption = table.locator("caption").bounding_box()
    assert caption is not None, "the home table has no caption"
    assert 0 <= caption["x"] <= caption["x"] + caption["width"] <= PHONE["width"], (
        f"the caption spans {caption['x']:.0f}..{caption['x'] + caption['width']:.0f} px"
    )
    overflow = table.evaluate("t => t.offsetWidth - t.parentElement.clientWidth")
    assert overflow <= 0, f"the home table is {overflow} px wider than its column"


def test_the_matrix_headings_stay_in_view_while_scrolling_down(
    page: Page, open_page
) -> None:
    page.set_viewport_size(WIDE)
    open_page(built_site.MATRIX_PAGE)
    hidden = page.evaluate(_HEADINGS_WHILE_SCROLLING, _tables(page, MATRIX_TABLES))
    assert not hidden, f"at 1400 px, halfway down a table: {hidden[:10]}"


def test_a_row_a_link_jumps_to_lands_below_the_stuck_headings(
    page: Page, open_page
) -> None:
    page.set_viewport_size(WIDE)
    open_page(built_site.MATRIX_PAGE)
    rows = page.evaluate(f"() => [...document.querySelector('{MATRIX_TABLES}')"
                         ".querySelectorAll('tr[id]')].map(r => r.id)")  # fmt: skip
    target = rows[len(rows) * 3 // 4]  # far enough down for the headings to be stuck
    page.goto("about:blank")  # a new load, as from a link on another page
    open_page(f"{built_site.MATRIX_PAGE}#{target}")
    row = page.locator(f"tr#{target}").bounding_box()
    head = page.locator(f"tr#{target}").locator("xpath=../../thead").bounding_box()
    assert row is not None
    assert head is not None
    assert (
        head["y"] + head["height"] - 1 <= row["y"] <= WIDE["height"] - row["height"]
    ), (
        f"#{target} lands at {row['y']:.0f} px, under the headings ending at "
        f"{head['y'] + head['height']:.0f} px"
    )


# Each row of the matrix: its height, and whether its first link sits beside the
# expression (on the expression's line) rather than under it.
_ROW_LINES = """() => [...document.querySelectorAll('main table.semantics-matrix tbody tr')]
    .map(row => {
        const code = row.cells[0].querySelector('code').getBoundingClientRect();
        const link = row.cells[0].querySelector('.semantics-docs a');
        const beside = link ? (r => r.top < code.bottom && r.bottom > code.top)(
            link.getBoundingClientRect()) : null;
        return {id: row.id, height: row.offsetHeight, beside};
    })"""


def test_a_typical_matrix_row_is_one_line_high_on_a_wide_screen(
    page: Page, open_page
) -> None:
    page.set_viewport_size(WIDE)
    open_page(built_site.MATRIX_PAGE)
    rows = page.evaluate(_ROW_LINES)
    one_line = min(row["height"] for row in rows)
    heights = sorted(row["height"] for row in rows)
    median = heights[len(heights) // 2]
    assert median <= one_line + 2, (
        f"the median matrix row is {median} px high, a one-line row {one_line} px"
    )
    view = next(row for row in rows if row["id"] == "semantics-view")
    assert view["beside"], "x.view(3, 2): the link to its documentation is under it"
    assert view["height"] <= one_line + 2, f"x.view(3, 2): {view['height']} px high"


# Each table heading's breaks between two Chinese characters: Chinese has no spaces,
# so a browser breaks a narrow heading anywhere (共享内/存) unless told to keep words.
_BREAKS_INSIDE_WORDS = """() => [...document.querySelectorAll('main th')].flatMap((th) => {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getBoundingClientRect();
            chars.push({ch: node.data[i], top: rect.top, height: rect.height});
        }
    }
    const han = /[\\u4e00-\\u9fff]/;
    const found = [];
    for (let i = 1; i < chars.length; i++) {
        const [a, b] = [chars[i - 1], chars[i]];
        if (han.test(a.ch) && han.test(b.ch) && b.top > a.top + a.height / 2) {
            found.push(`${th.innerText.replace(/\\s+/g, '')}: ${a.ch}/${b.ch}`);
        }
    }
    return found;
})"""


@pytest.mark.parametrize(
    "name", ["zh_CN/index.html", f"zh_CN/{DECISION_GUIDE}", "zh_CN/reference.html"]
)
@pytest.mark.parametrize(
    "size", [PHONE, {"width": 1280, "height": 900}], ids=["phone", "1280"]
)
def test_a_chinese_table_heading_never_breaks_inside_a_word(
    page: Page, open_page, name: str, size: dict
) -> None:
    page.set_viewport_size(size)
    open_page(name)
    broken = page.evaluate(_BREAKS_INSIDE_WORDS)
    assert not broken, f"{name}: headings broken inside a word: {broken}"
