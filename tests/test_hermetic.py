"""The hermetic check finds every resource a built page would fetch from another host."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_build.extensions import hermetic


def test_remote_script_stylesheet_and_image_are_found() -> None:
    html = """
    <script src="https://cdn.example.org/datatables.js"></script>
    <link rel="stylesheet" href="//fonts.example.org/font.css">
    <img src="http://img.example.org/a.png">
    """
    found = hermetic.remote_loads_in_html(html)
    assert len(found) == 3
    assert any("datatables.js" in item for item in found)


@pytest.mark.parametrize(
    "load",
    [
        '<img alt="x" src="https://img.example.org/a.png">',
        "<img srcset='//img.example.org/a.png 2x'>",
        '<video poster="http://img.example.org/p.png"></video>',
        '<object data="https://x.example.org/a.svg"></object>',
        '<LINK REL="stylesheet" HREF="https://x.example.org/a.css">',
        '<img srcset="local.png 1x, https://img.example.org/b.png 2x">',
        '<img src="https&#58;//img.example.org/a.png">',
        '<img src="&#47;&#47;img.example.org/a.png">',
        '<img data-src="x" src = " //img.example.org/a.png">',
    ],
)
def test_a_load_deep_in_a_long_body_is_found(load: str) -> None:
    filler = '<p><a href="https://docs.pytorch.org/">a link</a></p>' * 2000
    html = f"<html><head><title>t</title></head><body>{filler}{load}</body></html>"
    assert len(hermetic.remote_loads_in_html(html)) == 1


def test_links_and_local_resources_are_not_loads() -> None:
    html = """
    <a href="https://docs.pytorch.org/docs/stable/">PyTorch docs</a>
    <link rel="canonical" href="https://example.org/page.html">
    <script src="_static/local.js"></script>
    <img src="../_images/thumb.png">
    """
    assert hermetic.remote_loads_in_html(html) == []


def test_css_imports_and_urls_are_found() -> None:
    css = "@import 'https://x.example/a.css'; body { background: url(//y.example/b.png); }"
    assert hermetic.remote_loads_in_css(css) == [
        "https://x.example/a.css",
        "//y.example/b.png",
    ]


def test_find_remote_loads_names_the_offending_file(tmp_path: Path) -> None:
    (tmp_path / "ok.html").write_text('<script src="_static/a.js"></script>')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.html").write_text(
        '<script src="https://cdn.x/a.js"></script>'
    )
    assert list(hermetic.find_remote_loads(tmp_path)) == ["sub/bad.html"]


def test_pages_written_before_the_build_began_are_not_read_again(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old.html"
    old.write_text('<script src="https://cdn.x/a.js"></script>')
    css = tmp_path / "old.css"
    css.write_text("@import 'https://x.example/a.css';")
    since = old.stat().st_mtime + 10
    assert list(hermetic.find_remote_loads(tmp_path, since)) == ["old.css"]
