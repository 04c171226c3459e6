"""In a translated message, each MyST link keeps the section its own address names
(``site_build.extensions.translated_links``): Sphinx alone sends every link into one
page to the last one's section."""

from __future__ import annotations

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from sphinx import addnodes
from sphinx.transforms.i18n import _NodeUpdater

from site_build.extensions import translated_links


def _paragraph(*sections: str) -> nodes.paragraph:
    """A message with one MyST link per section, all into the page ``autograd``."""
    paragraph = nodes.paragraph()
    for section in sections:
        xref = addnodes.pending_xref(
            refdomain="doc", reftarget="autograd", reftargetid=section, reftype="myst"
        )
        xref += nodes.inline(text=section)
        paragraph += xref
    return paragraph


def _translated_sections(update) -> list[str]:
    document = new_document("page", get_default_settings(Parser))
    source = _paragraph("the-version-counter", "finding-the-culprit")
    document += source
    translation = _paragraph("the-version-counter", "finding-the-culprit")
    update(_NodeUpdater(source, translation, document, noqa=False))
    return [x["reftargetid"] for x in translation.findall(addnodes.pending_xref)]


def test_sphinx_alone_sends_two_links_into_one_page_to_one_section() -> None:
    original = getattr(
        _NodeUpdater.update_pending_xrefs,
        "__wrapped__",
        _NodeUpdater.update_pending_xrefs,
    )
    # If this fails, Sphinx fixed it: remove site_build.extensions.translated_links.
    assert _translated_sections(original) == ["finding-the-culprit"] * 2


def test_each_translated_link_keeps_its_section() -> None:
    translated_links.install()
    assert _translated_sections(_NodeUpdater.update_pending_xrefs) == [
        "the-version-counter",
        "finding-the-culprit",
    ]
