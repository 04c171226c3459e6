"""Sphinx extension: what the gallery's pages leave out.

Sphinx-Gallery's note above each title ("Go to the end to download the full example
code") is cut from the generated page: the page starts with its title, and the
downloads are in the sidebar and at the end of the page.

Sphinx-Gallery measures each example's running time and peak memory
(``site_build.gallery.PeakMemory``; the benchmark reads both from the ``.cost.json``
files) and also prints them on the page. On a CPU build the memory figure is how far
the example raised the build process's peak, most often 0 MB; the time is how fast this
build's machine was. Noise to a reader, who learns what memory an operation costs from
the examples that measure it; and a line that changes on every build would leave each
translation of it stale. Both lines are left off the pages; the records stay.

The time line by Sphinx-Gallery's own ``min_reported_time`` (``conf.py``: no example
takes longer than forever). The memory line has no such setting while ``show_memory``
measures (the benchmark reads the figure), so it is cut from the generated page here.
"""

from __future__ import annotations

import re
from html import escape

from sphinx.application import Sphinx

from site_build import tested_versions
from site_build.gallery import is_gallery_page
from site_build.site_words import _

#: What this extension relies on in Sphinx-Gallery's generated pages: the download
#: note's markup and the memory line's wording (tests/test_gallery.py and
#: browser_tests/test_chrome.py prove both are cut).
PATCHED = "gallery_pages (the download note and the memory line it cuts)"

MEMORY_LINE = re.compile(r"^\*\*Estimated memory usage:\*\*.*\n", re.M)
#: Sphinx-Gallery's "Go to the end to download the full example code" note, which it
#: puts above every title and has no setting for (0.22): the block and the indented
#: or blank lines under it.
DOWNLOAD_NOTE = re.compile(
    r"^\.\. only:: html\n\n {4}\.\. note::\n {8}:class: sphx-glr-download-link-note\n"
    r"(?:\n| {8}.*\n)*",
    re.M,
)


def without_memory_line(text: str) -> str:
    """A generated gallery page's source without Sphinx-Gallery's memory line."""
    return MEMORY_LINE.sub("", text)


def without_download_note(text: str) -> str:
    """A generated gallery page's source without the note above its title: the page
    starts with its title, and the downloads are in the sidebar and at the end."""
    return DOWNLOAD_NOTE.sub("", text, count=1)


def _drop_memory_line(app: Sphinx, docname: str, source: list[str]) -> None:
    if is_gallery_page(docname, app.config.sphinx_gallery_conf["gallery_dirs"]):
        source[0] = without_download_note(without_memory_line(source[0]))
        if app.config.language != "en" and DOWNLOADS in source[0]:
            source[0] += downloads_note()


#: Where Sphinx-Gallery's download links end an example's page.
DOWNLOADS = "sphx-glr-footer sphx-glr-footer-example"


def downloads_note() -> str:
    """Below the downloads of an edition other than English: they are English."""
    note = _(
        "The script and the notebook are in English in every edition of this site: "
        "Sphinx-Gallery writes them from the example's source, whose comments are "
        "part of its code."
    )
    return (
        "\n\n.. raw:: html\n\n"
        f'   <p class="downloads-language">{escape(str(note))}</p>\n'
    )


def setup(app: Sphinx) -> dict[str, object]:
    tested_versions.require_tested("sphinx-gallery", PATCHED)
    app.connect("source-read", _drop_memory_line)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
