"""Sphinx extension: index each edition's prose with Pagefind when its build ends.

The search page (``conf/_templates/search.html``) ranks the sections Pagefind finds
(``conf/_static/search-sections.js``), each a link to a section with a quote of its
prose: Pagefind indexes each section as a document (``site_build.search_index``). Each
edition has its own index, in ``pagefind/`` below its folder, in its own language:
Pagefind's extended binary splits Chinese text into words, and its search splits a
Chinese query the same way.

An unchanged rebuild writes no page, so it indexes nothing: the index is rebuilt only
when a page is newer than it. Sphinx's own index (``searchindex.js``) is still written:
the search page falls back to it where Pagefind cannot load, in a copy of the site
opened from disk.
"""

from __future__ import annotations

import time
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

from site_build import search_index, tested_versions

logger = logging.getLogger(__name__)

#: What the search page relies on, checked by browser_tests/test_search.py: Pagefind's
#: JavaScript API (search, each result's score, words and data, metadata read from
#: attributes); the theme's search.html blocks; Sphinx's Search.performSearch.
PAGEFIND = "the site's search (pagefind_search, conf/_templates/search.html)"


def built_pages(app: Sphinx) -> dict[str, Path]:
    """Each page this edition's build writes: its path in the edition -> its file."""
    builder = app.builder
    names = sorted(builder.get_target_uri(doc) for doc in app.env.found_docs)
    # A page the hermetic check refused is deleted, for the next build to write again.
    paths = {name: Path(builder.outdir, name) for name in names}
    return {name: path for name, path in paths.items() if path.is_file()}


def _index(app: Sphinx, exception: Exception | None) -> None:
    if exception or app.builder.format != "html":
        return
    pages = built_pages(app)
    bundle = Path(app.builder.outdir, search_index.BUNDLE)
    if search_index.index_is_current(pages.values(), bundle):
        return
    from pagefind_bin_extended import get_executable

    started = time.perf_counter()
    sections = search_index.build_index(get_executable(), pages, bundle)
    logger.info(
        "search index: %d sections of %d pages in %.1f s",
        sections,
        len(pages),
        time.perf_counter() - started,
    )


def setup(app: Sphinx) -> dict[str, object]:
    tested_versions.require_tested("pagefind-bin-extended", PAGEFIND)
    tested_versions.require_tested("pydata-sphinx-theme", PAGEFIND)
    tested_versions.require_tested("sphinx", PAGEFIND)
    app.connect("build-finished", _index)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
