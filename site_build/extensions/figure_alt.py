"""Sphinx extension: each figure's text alternative is the description its drawing code
gives, translated in the other editions.

Sphinx-Gallery names a figure after its file ("inplace relu memory") or its title, and
MyST-NB after nothing at all; neither tells a reader who cannot see the image what it
shows. So the code that draws a figure says it once, in a comment of its own::

    # Alt: Two rows of boxes, one per tensor, each labelled with its bytes of storage;
    #   the clone's row has storage of its own.

``# Alt:`` starts the description, and comment lines indented by two spaces or more go
on with it. The figures of a code block take that block's descriptions in order. A
figure whose code has none fails the build. The descriptions are messages of the
``figures`` catalogue (``site_build.extensions.figure_text`` extracts them with the
figures' words); an edition shows each one translated from it, or in English while
it has no translation.

Sphinx-Gallery's images are nodes of its own, ``sphinx_gallery.directives.imgsgnode``,
an undocumented class (its scrapers' documented ``alt`` is the figure's title):
``setup`` refuses any Sphinx-Gallery but the pinned one, and ``tests/test_small_sites.py``
checks that a gallery page's figure has its code's description as its ``alt``.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from site_build import tested_versions

logger = logging.getLogger(__name__)
PATCHED = "figure_alt (it sets the alt of sphinx_gallery.directives.imgsgnode)"
#: Docutils' image and, once ``setup`` has checked the version, Sphinx-Gallery's, which
#: is not a docutils image; both carry "alt".
IMAGES: tuple[type[nodes.Element], ...] = (nodes.image,)
_ALT = re.compile(r"^[ \t]*# Alt: (?P<first>.*)$(?P<rest>(?:\n[ \t]*#   .*$)*)", re.M)


def descriptions(code: str) -> list[str]:
    """The ``# Alt:`` descriptions in ``code``, each on one line."""
    return [
        " ".join((m["first"] + " " + m["rest"].replace("#", " ")).split())
        for m in _ALT.finditer(code)
    ]


def sphinx_gallery_image(node: nodes.Node) -> bool:
    return isinstance(node, IMAGES) and not isinstance(node, nodes.image)


def _cell(node: nodes.Node) -> nodes.Element | None:
    """The MyST-NB cell a node is in, if any."""
    while node is not None:
        if isinstance(node, nodes.container) and node.get("nb_element") == "cell_code":
            return node
        node = node.parent
    return None


def _in_output(node: nodes.Node) -> bool:
    while node is not None:
        if isinstance(node, nodes.container) and str(
            node.get("nb_element", "")
        ).startswith("cell_code_output"):
            return True
        if isinstance(node, nodes.Element) and "sphx-glr-script-out" in node.get(
            "classes", []
        ):
            return True
        node = node.parent
    return False


def is_figure(node: nodes.Node) -> bool:
    """A figure a page's code drew: in a cell's output, or Sphinx-Gallery's."""
    return sphinx_gallery_image(node) or (
        isinstance(node, nodes.image) and _cell(node) is not None
    )


def figures_and_descriptions(
    doctree: nodes.document,
) -> list[tuple[nodes.Element, str | None]]:
    """Each figure of a page and the description its code gives (None if none)."""
    found: list[tuple[nodes.Element, str | None]] = []
    waiting: list[str] = []  # the latest code block's descriptions not yet used
    used_in_cell: dict[int, list[str]] = {}
    for node in doctree.findall(nodes.Element):
        if isinstance(node, nodes.literal_block) and not _in_output(node):
            if _cell(node) is None:
                waiting = descriptions(node.astext())
        elif isinstance(node, IMAGES) and is_figure(node):
            cell = _cell(node)
            if cell is not None:  # the cell's code may be folded below its output
                queue = used_in_cell.setdefault(
                    id(cell),
                    [
                        text
                        for block in cell.findall(nodes.literal_block)
                        if not _in_output(block)
                        for text in descriptions(block.astext())
                    ],
                )
            else:
                queue = waiting
            found.append((node, queue.pop(0) if queue else None))
    return found


class DescribeFigures(SphinxPostTransform):
    """Give every figure its code's description as its ``alt``, translated; in a
    gettext build, hand it to ``figure_text`` for the catalogue."""

    # Before folded_code folds the code (4), Sphinx-Gallery swaps its code blocks for
    # linked HTML (5) and MyST-NB keeps one form of each output (4): the code is still
    # literal blocks, and every figure is there.
    default_priority = 3

    def run(self, **kwargs: object) -> None:
        from site_build.extensions import figure_text

        translated = figure_text.translations(self.config.language)
        for node, text in figures_and_descriptions(self.document):
            if text is None:
                logger.warning(
                    "a figure without a description: give its drawing code a comment "
                    "'# Alt: what the figure shows' (site_build/extensions/figure_alt.py)",
                    location=node,
                    type="figure_alt",
                )
                continue
            node["alt"] = translated.get(text, text)
            if self.app.builder.name == "gettext":
                figure_text.extract(self.app, self.env.docname, node, text)


def _count_descriptions(app: Sphinx, doctree: nodes.document) -> None:
    """In an edition other than English, a page's descriptions are messages of its
    coverage: those without a translation are shown in English and listed."""
    from sphinx.builders.gettext import MessageCatalogBuilder

    from site_build import translation_report
    from site_build.config.edition_list import ENGLISH
    from site_build.extensions import editions, figure_text

    if app.config.language == ENGLISH.language or isinstance(
        app.builder, MessageCatalogBuilder
    ):
        return
    found = [
        (block.line, text)
        for block in doctree.findall(nodes.literal_block)
        if not _in_output(block)
        for text in descriptions(block.astext())
    ]
    if not found:
        return
    app.env.note_dependency(str(figure_text.catalogue_path(app.config.language)))
    translated = figure_text.translations(app.config.language)
    page = app.env.doc2path(app.env.docname, base=False).as_posix()
    coverage = editions._coverage(app.env)
    messages, untranslated = coverage.get(app.env.docname, (0, []))
    coverage[app.env.docname] = (
        messages + len(found),
        untranslated
        + [
            translation_report.Untranslated(page, line, text)
            for line, text in found
            if text not in translated
        ],
    )


def setup(app: Sphinx) -> dict[str, object]:
    global IMAGES
    tested_versions.require_tested("sphinx-gallery", PATCHED)
    from sphinx_gallery.directives import imgsgnode

    IMAGES = (nodes.image, imgsgnode)
    app.add_post_transform(DescribeFigures)
    # After editions counts the page's own messages (at 600).
    app.connect("doctree-read", _count_descriptions, priority=700)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
