"""Sphinx extension: the sitemap, and no stale pages.

The pages are listed under the base URL (``site_build.config.site_url``), each with its
address in every edition as an alternate (hreflang). The sitemap is
written from the whole environment after every build, so an incremental rebuild that
rewrites no page still leaves a complete sitemap. sphinx-sitemap would not do: its
latest release, 2.9.0, tried on a three-page site, listed after one page was edited
only that page, its parent, ``genindex`` and ``search``, and after an unchanged
rebuild only the last two (jdillard/sphinx-sitemap#13, open); it puts every edition
under a folder named after its language (English at ``en/``, not the root); and its
alternates are the locale folders' names (``zh-CN``), not each edition's ``hreflang``
(``zh-Hans``), with none for the page's own edition. A page whose source was removed
or renamed would stay in the output folder, unlisted and unlinked: after each build,
every HTML file that no current source or generated page accounts for is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from xml.etree import ElementTree

from sphinx.application import Sphinx

from site_build.config import site_url
from site_build.config.edition_list import EDITIONS

SITEMAP = "sitemap.xml"
_NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
_XHTML = "http://www.w3.org/1999/xhtml"


def sitemap_xml(
    site_url: str, page_uris: Iterable[str], editions: dict[str, str] | None = None
) -> bytes:
    """Return a sitemap listing each page URI (relative to the site root) under
    ``site_url``; with ``editions`` (hreflang -> each edition's base URL), each page's
    URL in every edition as its alternates."""
    ElementTree.register_namespace("xhtml", _XHTML)
    urlset = ElementTree.Element("urlset", xmlns=_NAMESPACE)
    for uri in sorted(set(page_uris)):
        url = ElementTree.SubElement(urlset, "url")
        ElementTree.SubElement(url, "loc").text = site_url + uri
        for hreflang, base in (editions or {}).items():
            ElementTree.SubElement(
                url,
                f"{{{_XHTML}}}link",
                rel="alternate",
                hreflang=hreflang,
                href=base + uri,
            )
    ElementTree.indent(urlset)
    return ElementTree.tostring(urlset, encoding="utf-8", xml_declaration=True)


def _write_sitemap(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    uris = [app.builder.get_target_uri(doc) for doc in app.env.found_docs]
    root = site_url.base_url()
    editions = {
        e.hreflang: f"{root}{e.folder}/" if e.folder else root for e in EDITIONS
    }
    Path(app.outdir, SITEMAP).write_bytes(
        sitemap_xml(app.config.html_baseurl, uris, editions)
    )


#: Output folders of assets, and of the other editions' builds: not this build's pages.
ASSET_DIRS = (
    "_static",
    "_sources",
    "_images",
    "_downloads",
    *(edition.folder for edition in EDITIONS if edition.folder),
)


def stale_pages(outdir: Path, current: set[str]) -> list[Path]:
    """HTML files under ``outdir`` outside the asset folders whose name is not current.

    ``current`` holds page names relative to ``outdir`` without ``.html``
    (``gallery/clone``).
    """
    return sorted(
        path
        for path in outdir.rglob("*.html")
        if path.relative_to(outdir).parts[0] not in ASSET_DIRS
        and path.relative_to(outdir).with_suffix("").as_posix() not in current
    )


def _note_page(app: Sphinx, pagename: str, *args: object) -> None:
    app.pages_written_now.add(pagename)  # type: ignore[attr-defined]


def _forget_pages(app: Sphinx) -> None:
    # On the application, not the environment: this build's list, never pickled.
    app.pages_written_now = set()  # type: ignore[attr-defined]


def _remove_stale_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    # Pages of sources, and pages such as search or 404 that are generated each build.
    current = set(app.env.found_docs) | app.pages_written_now  # type: ignore[attr-defined]
    for path in stale_pages(Path(app.outdir), current):
        path.unlink()


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("builder-inited", _forget_pages)
    app.connect("html-page-context", _note_page)
    app.connect("build-finished", _write_sitemap)
    app.connect("build-finished", _remove_stale_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
