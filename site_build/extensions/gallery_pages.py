"""Sphinx extension: what the gallery's pages leave out.

Sphinx-Gallery measures each example's running time and peak memory
(``site_build.gallery.PeakMemory``; the benchmark reads both from the ``.cost.json``
files) and also prints them on the page. On a CPU build the memory figure is how far
the example raised the build process's peak, most often 0 MB; the time is how fast this
build's machine was. Noise to a reader, who learns what memory an operation costs from
the examples that measure it; and a line that changes on every build would leave each
translation of it stale. Both lines are dropped from the pages; the records stay.
"""

from __future__ import annotations

import re
from html import escape

from sphinx.application import Sphinx

from site_build.extensions.code_links import is_gallery_page
from site_build.extensions.editions import _

COST_LINES = re.compile(
    r"^(\.\. rst-class:: sphx-glr-timing\n\n +\*\*Total running time of the script:"
    r"|\*\*Estimated memory usage:)\*\*.*\n",
    re.M,
)


def without_cost_lines(text: str) -> str:
    """A generated gallery page's source without Sphinx-Gallery's time and memory lines."""
    return COST_LINES.sub("", text)


def _drop_cost_lines(app: Sphinx, docname: str, source: list[str]) -> None:
    if is_gallery_page(docname, app.config.sphinx_gallery_conf["gallery_dirs"]):
        source[0] = without_cost_lines(source[0])
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
    app.connect("source-read", _drop_cost_lines)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
