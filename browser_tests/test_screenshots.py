"""Screenshots of the home page, one gallery page and the matrix page, for a person."""

from __future__ import annotations

import struct

import built_site
import pytest
from playwright.sync_api import Page


def _gallery_page() -> str:
    pages = [entry.page for entry in built_site.gallery_entries()]
    return "gallery/clone.html" if "gallery/clone.html" in pages else pages[0]


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("home", "index.html"),
        ("gallery", _gallery_page()),
        ("matrix", built_site.MATRIX_PAGE),
    ],
)
def test_screenshot(page: Page, open_page, name: str, path: str) -> None:
    open_page(path)
    built_site.SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = built_site.SCREENSHOTS / f"{name}.png"
    target.unlink(missing_ok=True)
    page.screenshot(path=target, full_page=True)
    header = target.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert width == 1280, width
    assert height >= 800, height
