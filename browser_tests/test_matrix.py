"""The reference matrix page shows a row for every operation in semantics.json."""

from __future__ import annotations

import built_site
from playwright.sync_api import Page, expect

from semantics import check
from semantics.catalogue import BY_ID

# Per table row with an id: that id, and the text of each code element in the row.
_ROWS = """() => Object.fromEntries([...document.querySelectorAll('main tr[id]')].map(
    tr => [tr.id, [...tr.querySelectorAll('code')].map(c => c.innerText.trim())]
))"""


def test_matrix_page_shows_a_row_for_every_operation(
    page: Page, open_page, base_url: str
) -> None:
    response = page.request.get(base_url + built_site.SEMANTICS)
    assert response.ok, (
        f"{built_site.SEMANTICS} is not served at the site root (HTTP {response.status})"
    )
    data = response.json()
    operations = {entry["op"]: entry["code"] for entry in data["entries"]}
    assert operations, f"{built_site.SEMANTICS} lists no operation"
    open_page(built_site.MATRIX_PAGE)
    rows = page.evaluate(_ROWS)
    # Each operation by its own row id: several share an expression (x.cpu(), t.numpy()
    # on two devices), so matching by the code alone would let one row stand for two.
    missing = [op for op in operations if BY_ID[op].anchor not in rows]
    assert not missing, f"{built_site.MATRIX_PAGE} has no row for {missing}"
    wrong = [
        op for op, code in operations.items() if code not in rows[BY_ID[op].anchor]
    ]
    assert not wrong, f"rows that do not show their operation's expression: {wrong}"
    caption = (
        f"Measured with PyTorch {data['torch_version']} on {', '.join(data['devices'])}"
    )
    assert caption in page.locator("main").inner_text(), (
        f"the page does not say: {caption}"
    )


def test_the_page_menu_lists_every_group_table(page: Page, open_page) -> None:
    open_page(built_site.MATRIX_PAGE)
    groups = page.evaluate(
        "() => [...document.querySelectorAll('main section[id^=\"semantics-group-\"]')]"
        ".map(s => s.id)"
    )
    assert groups, "the matrix has no group tables"
    menu = page.locator(".bd-sidebar-secondary")
    for group in groups:
        assert menu.locator(f'a[href="#{group}"]').first.is_visible(), (
            f"the page menu does not list #{group}"
        )


def test_badges_do_not_judge(page: Page, open_page) -> None:
    # Green yes and red no read as good and bad; either can be the answer one wants.
    open_page(built_site.MATRIX_PAGE)
    judging = page.locator("main .sd-badge.sd-bg-success, main .sd-badge.sd-bg-danger")
    assert judging.count() == 0, f"{judging.count()} green or red badges"


_VISIBLE_ROWS = """() => [...document.querySelectorAll('main tr[id]')]
    .filter(row => row.checkVisibility()).map(row => row.id)"""


def _expected_rows(data: dict, wanted: dict[str, str]) -> set[str]:
    """The rows whose operation shows each wanted value on some device it was measured on."""
    shown: dict[str, dict[str, set[str]]] = {}
    for entry in data["entries"]:
        facts = shown.setdefault(entry["op"], {})
        for field in wanted:
            value = entry[field]
            text = "raises" if entry["error"] is not None else check.show(value)
            facts.setdefault(field, set()).add(text)
    return {
        BY_ID[op].anchor
        for op, facts in shown.items()
        if all(value in facts[field] for field, value in wanted.items())
    }


def test_the_filter_box_narrows_the_matrix(
    page: Page, open_page, base_url: str
) -> None:
    data = page.request.get(base_url + built_site.SEMANTICS).json()
    open_page(built_site.MATRIX_PAGE)
    every = page.evaluate(_VISIBLE_ROWS)
    form = page.locator("form.semantics-filter")
    expect(form.locator("output")).to_have_text(f"{len(every)} of {len(every)} rows")

    form.locator("input[name=text]").fill("split")
    found = page.evaluate(_VISIBLE_ROWS)
    assert found, "no row matches 'split'"
    for row in found:
        assert "split" in page.locator(f"tr#{row}").inner_text().lower(), row
    hidden = set(every) - set(found)
    assert all("split" not in page.locator(f"tr#{row}").inner_text().lower()
               for row in hidden)  # fmt: skip
    expect(form.locator("output")).to_have_text(f"{len(found)} of {len(every)} rows")

    form.locator("input[name=text]").fill("")
    wanted = {"shares_storage": "yes", "grad_flows_to_source": "no"}
    for field, value in wanted.items():
        form.locator(f"select[name={field}]").select_option(value)
    found = page.evaluate(_VISIBLE_ROWS)
    assert set(found) == _expected_rows(data, wanted)
    assert found, "no row shares memory without passing gradient"
    expect(form.locator("output")).to_have_text(f"{len(found)} of {len(every)} rows")
