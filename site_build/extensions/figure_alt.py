"""Sphinx extension: each figure's text alternative is the paragraph that introduces it.

Sphinx-Gallery names a figure after its file ("inplace relu memory") and MyST-NB after
its path, neither of which tells a reader who cannot see the image what it shows. On
this site the prose right before a figure says what it draws, so that paragraph, in
the page's language (it is read after the translation), becomes the image's ``alt``.

Sphinx-Gallery's images are nodes of its own, ``sphinx_gallery.directives.imgsgnode``,
an undocumented class (its scrapers' documented ``alt`` is the figure's title, not the
prose): ``setup`` refuses any Sphinx-Gallery but the pinned one, and
``tests/test_small_sites.py`` checks that a gallery page's figure has the paragraph
before it as its ``alt``.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from site_build import tested_versions

PATCHED = "figure_alt (it sets the alt of sphinx_gallery.directives.imgsgnode)"
#: Docutils' image and, once ``setup`` has checked the version, Sphinx-Gallery's, which
#: is not a docutils image; both carry "alt".
IMAGES: tuple[type[nodes.Element], ...] = (nodes.image,)


def _is_image(node: nodes.Node) -> bool:
    return isinstance(node, IMAGES)


def _in_code_or_output(node: nodes.Node) -> bool:
    while node is not None:
        if isinstance(node, nodes.literal_block) or (
            isinstance(node, nodes.container) and node.get("nb_element")
        ):
            return True
        node = node.parent
    return False


def describe_figures(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give every image the text of the last paragraph before it as its ``alt``, but
    an image whose ``alt`` is empty on purpose (a thumbnail beside its link's text)."""
    last = None
    for node in doctree.findall(nodes.Element):
        if isinstance(node, nodes.paragraph) and not _in_code_or_output(node):
            last = node
        elif _is_image(node) and last is not None and node.get("alt", None) != "":
            node["alt"] = " ".join(last.astext().split())


def setup(app: Sphinx) -> dict[str, object]:
    global IMAGES
    tested_versions.require_tested("sphinx-gallery", PATCHED)
    from sphinx_gallery.directives import imgsgnode

    IMAGES = (nodes.image, imgsgnode)
    app.connect("doctree-resolved", describe_figures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
