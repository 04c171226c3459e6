"""A complete sitemap, and no page left over from a removed source."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from site_build.extensions import publishing


def test_sitemap_lists_every_page_once_under_the_base_url() -> None:
    xml = publishing.sitemap_xml(
        "https://h/repo/", ["index.html", "gallery/clone.html", "index.html"]
    )
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [
        e.text for e in ElementTree.fromstring(xml).findall("s:url/s:loc", namespace)
    ]
    assert locs == ["https://h/repo/gallery/clone.html", "https://h/repo/index.html"]


def test_sitemap_gives_each_page_its_address_in_every_edition() -> None:
    editions = {"en": "https://h/repo/", "zh-Hans": "https://h/repo/zh_CN/"}
    xml = publishing.sitemap_xml("https://h/repo/zh_CN/", ["views.html"], editions)
    namespace = {
        "s": "http://www.sitemaps.org/schemas/sitemap/0.9",
        "x": "http://www.w3.org/1999/xhtml",
    }
    url = ElementTree.fromstring(xml).find("s:url", namespace)
    assert url.find("s:loc", namespace).text == "https://h/repo/zh_CN/views.html"
    assert [
        (link.get("rel"), link.get("hreflang"), link.get("href"))
        for link in url.findall("x:link", namespace)
    ] == [
        ("alternate", "en", "https://h/repo/views.html"),
        ("alternate", "zh-Hans", "https://h/repo/zh_CN/views.html"),
    ]


def test_pages_no_source_accounts_for_are_stale(tmp_path: Path) -> None:
    for name in (
        "index.html",
        "old-name.html",
        "gallery/clone.html",
        "gallery/removed.html",
        "_static/page.html",
        "search.html",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<html></html>")
    current = {"index", "gallery/clone", "search"}
    stale = publishing.stale_pages(tmp_path, current)
    assert [p.relative_to(tmp_path).as_posix() for p in stale] == [
        "gallery/removed.html",
        "old-name.html",
    ]
