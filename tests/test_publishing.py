"""The published base URL, the 404 page's path prefix, and a complete sitemap."""

from __future__ import annotations

from xml.etree import ElementTree

import publishing
import pytest


def test_without_site_url_the_site_describes_itself_as_served_locally() -> None:
    assert publishing.base_url({}) == publishing.LOCAL_URL
    assert publishing.path_prefix(publishing.LOCAL_URL) == "/"


def test_site_url_gets_a_trailing_slash_and_gives_the_prefix() -> None:
    url = publishing.base_url({"SITE_URL": "https://owner.github.io/repo"})
    assert url == "https://owner.github.io/repo/"
    assert publishing.path_prefix(url) == "/repo/"


@pytest.mark.parametrize(
    "value", ["owner.github.io/repo", "ftp://host/", "https://host/?q=1"]
)
def test_a_site_url_that_is_not_an_absolute_web_address_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="SITE_URL"):
        publishing.base_url({"SITE_URL": value})


def test_sitemap_lists_every_page_once_under_the_base_url() -> None:
    xml = publishing.sitemap_xml(
        "https://h/repo/", ["index.html", "gallery/clone.html", "index.html"]
    )
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [
        e.text for e in ElementTree.fromstring(xml).findall("s:url/s:loc", namespace)
    ]
    assert locs == ["https://h/repo/gallery/clone.html", "https://h/repo/index.html"]
