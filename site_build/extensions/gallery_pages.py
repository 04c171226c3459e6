"""Sphinx extension: what the gallery's pages leave out.

Sphinx-Gallery measures each example's peak memory (``site_build.gallery.PeakMemory``;
the benchmark reads it from the ``.cost.json`` files) and also prints it on the page.
On a CPU build the figure is how far the example raised the build process's peak, most
often 0 MB: noise to a reader, who learns what memory an operation costs from the
examples that measure it. The line is dropped from the pages; the record stays.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

from site_build.extensions.code_links import is_gallery_page

MEMORY_LINE = re.compile(r"^\*\*Estimated memory usage:\*\*.*\n", re.M)


def without_memory_line(text: str) -> str:
    """A generated gallery page's source without Sphinx-Gallery's memory line."""
    return MEMORY_LINE.sub("", text)


def _drop_memory_line(app: Sphinx, docname: str, source: list[str]) -> None:
    if is_gallery_page(docname, app.config.sphinx_gallery_conf["gallery_dirs"]):
        source[0] = without_memory_line(source[0])


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("source-read", _drop_memory_line)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
