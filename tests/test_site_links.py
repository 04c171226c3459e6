"""The link checker finds every broken internal link and anchor, and lists external ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_build.commands import site_links

BASE = "https://owner.github.io/repo/"


def _site(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def _broken(report: site_links.Report) -> list[tuple[str, str]]:
    return [(link.source, link.url) for link, _ in report.broken]


def test_links_between_existing_pages_and_anchors_pass(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "index.html": '<a href="gallery/a.html#rule">a</a><a href="#top">top</a>'
            '<p id="top"></p><img src="_images/a.png">',
            "gallery/a.html": '<h1 id="rule">A</h1><a href="../index.html">home</a>'
            '<a href="./">gallery</a><a href="a.html">self</a>',
            "gallery/index.html": '<a href="a.html?x=1#rule">a</a>',
            "_images/a.png": "",
        },
    )
    report = site_links.check_site(root)
    assert report.broken == []
    assert report.internal == 7


def test_missing_file_missing_anchor_and_escape_are_broken(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "index.html": '<a href="nope.html">x</a><a href="page.html#gone">y</a>'
            '<a href="../../etc/passwd">z</a><script src="_static/missing.js"></script>',
            "page.html": '<h1 id="here">P</h1>',
        },
    )
    assert _broken(site_links.check_site(root)) == [
        ("index.html", "nope.html"),
        ("index.html", "page.html#gone"),
        ("index.html", "../../etc/passwd"),
        ("index.html", "_static/missing.js"),
    ]


def test_external_links_are_listed_with_their_pages_not_checked(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "index.html": '<a href="https://docs.pytorch.org/x.html#y">t</a>'
            '<a href="mailto:a@b.c">m</a><a href="javascript:void(0)">j</a>',
            "b.html": '<a href="https://docs.pytorch.org/x.html#y">t</a>',
        },
    )
    report = site_links.check_site(root)
    assert report.broken == []
    assert report.external == {
        "https://docs.pytorch.org/x.html#y": ["b.html", "index.html"],
        "mailto:a@b.c": ["index.html"],
    }


def test_published_urls_and_absolute_paths_resolve_inside_the_site(
    tmp_path: Path,
) -> None:
    root = _site(
        tmp_path,
        {
            "index.html": f'<link rel="canonical" href="{BASE}index.html">'
            f'<meta property="og:url" content="{BASE}index.html">',
            "404.html": '<link rel="stylesheet" href="/repo/_static/a.css">'
            '<a href="/repo/index.html">home</a><a href="/repo/gone.html">x</a>'
            '<a href="/elsewhere/index.html">y</a>',
            "_static/a.css": "body { background: url(../_images/bg.png) }",
        },
    )
    assert site_links.canonical_base((root / "index.html").read_text()) == BASE
    report = site_links.check_site(root, BASE)
    assert _broken(report) == [
        ("404.html", "/repo/gone.html"),
        ("404.html", "/elsewhere/index.html"),
        ("_static/a.css", "../_images/bg.png"),
    ]
    assert report.external == {}


def test_theme_templates_among_the_assets_are_not_pages(tmp_path: Path) -> None:
    root = _site(
        tmp_path,
        {
            "index.html": "<p>home</p>",
            "_static/macros.html": "<script src=\"{{ pathto('x.js', 1) }}\"></script>",
        },
    )
    assert site_links.check_site(root).broken == []


def test_command_line_fails_on_broken_links_and_writes_the_external_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _site(
        tmp_path / "html",
        {"index.html": '<a href="gone.html">x</a><a href="https://example.org/">e</a>'},
    )
    listing = tmp_path / "external.txt"
    assert site_links.main([str(root), "--external", str(listing)]) == 1
    assert "index.html: gone.html" in capsys.readouterr().err
    assert listing.read_text() == "https://example.org/\tindex.html\n"


def test_command_line_passes_a_sound_site(tmp_path: Path) -> None:
    root = _site(tmp_path, {"index.html": '<a href="#x" id="x">x</a>'})
    assert site_links.main([str(root)]) == 0
