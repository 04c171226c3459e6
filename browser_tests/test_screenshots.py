"""On request, screenshots of every page.

With ``--screenshots``, each page is photographed whole at 1400 px (a laptop), at
390 px (a phone) and at 1400 px in the dark theme, under build/screenshots/ as
``<page>.<view>.png``, for a person to look at: a whole tall page is the slowest thing
a browser test can do. (Every run checks each page's figures in the dark theme, in
test_every_page.py.)
"""

from __future__ import annotations

import struct

import built_site
import pytest
from playwright.sync_api import Page

PAGES = built_site.pages()
VIEWS = {"1400": (1400, "light"), "390": (390, "light"), "dark": (1400, "dark")}


def screenshot_name(path: str, view: str) -> str:
    """``gallery/clone.html`` at view ``390`` -> ``gallery-clone.390.png``."""
    return f"{path.removesuffix('.html').replace('/', '-')}.{view}.png"


@pytest.mark.screenshots  # skipped unless --screenshots is given (conftest.py)
@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("path", PAGES)
def test_screenshot(page: Page, open_page, path: str, view: str) -> None:
    width, scheme = VIEWS[view]
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": width, "height": 900})
    open_page(path)
    page.evaluate("document.fonts.ready")
    built_site.SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = built_site.SCREENSHOTS / screenshot_name(path, view)
    target.unlink(missing_ok=True)
    page.screenshot(path=target, full_page=True)
    header = target.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    shot_width, shot_height = struct.unpack(">II", header[16:24])
    assert shot_width == width, f"{path} is {shot_width} px wide at {width} px"
    assert shot_height >= 400, shot_height
