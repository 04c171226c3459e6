"""Figures checked in the dark theme; on request, screenshots of every page.

Every run checks each page's figures in the dark theme. With ``--screenshots``, each
page is also photographed whole at 1400 px (a laptop), at 390 px (a phone) and at
1400 px in the dark theme, under build/screenshots/ as ``<page>.<view>.png``, for a
person to look at: a whole tall page is the slowest thing a browser test can do.
"""

from __future__ import annotations

import io
import struct

import built_site
import pytest
from PIL import Image, ImageStat
from playwright.sync_api import Page

PAGES = built_site.pages()
VIEWS = {"1400": (1400, "light"), "390": (390, "light"), "dark": (1400, "dark")}

# The content figures of a page: gallery figures and notebook outputs.
FIGURES = (
    "main img.sphx-glr-single-img, main img.sphx-glr-multi-img, "
    "main .cell_output img, main .sphx-glr-thumbcontainer img"
)

# Mean luma (ITU-R 601 weights on the displayed sRGB values, 0 black to 1 white) above
# which a figure reads as a bright slab on the dark page. The dark theme's background
# has a luma near 0.08 and its text near 0.85; the light-grey figures the review found
# measured about 0.9; a figure shown inverted, as the site's stylesheet does in the
# dark theme, is mostly background and measures 0.1-0.25. 0.35 sits between the two.
BRIGHT_SLAB = 0.35


def screenshot_name(path: str, view: str) -> str:
    """``gallery/clone.html`` at view ``390`` -> ``gallery-clone.390.png``."""
    return f"{path.removesuffix('.html').replace('/', '-')}.{view}.png"


def mean_luma(png: bytes) -> float:
    """The mean luma of a PNG image, from 0 (black) to 1 (white)."""
    grey = Image.open(io.BytesIO(png)).convert("L")  # ITU-R 601 luma
    return ImageStat.Stat(grey).mean[0] / 255


def test_mean_luma_tells_a_light_slab_from_a_dark_figure() -> None:
    def png(colour: tuple[int, int, int]) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (8, 8), colour).save(out, format="PNG")
        return out.getvalue()

    assert mean_luma(png((230, 230, 230))) > BRIGHT_SLAB > mean_luma(png((30, 34, 40)))


@pytest.mark.parametrize("path", PAGES)
def test_no_figure_is_a_bright_slab_in_the_dark_theme(
    page: Page, open_page, path: str
) -> None:
    page.emulate_media(color_scheme="dark")
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(path)
    figures = page.locator(FIGURES)
    bright = []
    for index in range(figures.count()):
        figure = figures.nth(index)
        figure.scroll_into_view_if_needed()
        luma = mean_luma(figure.screenshot())
        if luma > BRIGHT_SLAB:
            bright.append(f"figure {index + 1}: luma {luma:.2f}")
    assert not bright, (
        f"{path} in the dark theme: figures brighter than {BRIGHT_SLAB}: {bright}"
    )


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("path", PAGES)
def test_screenshot(
    page: Page, open_page, path: str, view: str, request: pytest.FixtureRequest
) -> None:
    if not request.config.getoption("--screenshots"):
        pytest.skip(
            "whole-page screenshots are taken on request: nox -s browser -- --screenshots"
        )
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
