"""The published base URL, the 404 page's path prefix, and a complete sitemap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import publishing
import pytest

EXT = Path(__file__).resolve().parents[1] / "conf" / "_ext"


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


def test_nox_can_check_site_url_without_sphinx() -> None:
    # nox's own interpreter has no Sphinx: it imports this module to refuse a bad
    # SITE_URL in one line before Sphinx's long configuration-error report.
    program = (
        "import sys; sys.modules['sphinx'] = None; "
        f"sys.path.insert(0, {str(EXT)!r}); import publishing; "
        "publishing.base_url({'SITE_URL': 'owner.github.io/repo'})"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        "ValueError: SITE_URL='owner.github.io/repo' is not an absolute http(s) URL, "
        "e.g. https://owner.github.io/repo/"
    ), result.stderr


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
