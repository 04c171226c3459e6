"""The reference matrix page shows a row for every operation in semantics.json."""

from __future__ import annotations

import built_site
from playwright.sync_api import Page

# Per table row: the text of each cell and of each code element in it.
_ROWS = """() => [...document.querySelectorAll('main table tr')].map(tr => [
    ...[...tr.querySelectorAll('th, td')].map(c => c.innerText.trim()),
    ...[...tr.querySelectorAll('code')].map(c => c.innerText.trim()),
])"""


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
    rows = [set(cells) for cells in page.evaluate(_ROWS)]
    missing = [
        op
        for op, code in operations.items()
        if not any({op, code} & row for row in rows)
    ]
    assert not missing, f"{built_site.MATRIX_PAGE} has no row for {missing}"
    text = page.locator("main").inner_text()
    assert data["torch_version"] in text, "the page does not name the PyTorch version"
    for device in data["devices"]:
        assert device in text, f"the page does not name the device {device}"
