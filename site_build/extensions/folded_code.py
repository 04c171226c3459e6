"""Sphinx extension: fold set-up, checks and drawing code under their first line.

Which blocks fold is decided in ``site_build.folding_rule``, for MyST pages and gallery
pages alike. A folded block becomes a closed ``<details>`` element whose summary is the
block's first comment line (the code keeps it: sphinx-codeautolink matches each block's
HTML to its source). A MyST-NB cell's output stays in view below its folded source; a
cell that ends in a folded part is split when the page is read, before codeautolink
reads its code, and the folded part goes below the cell's output.
"""

from __future__ import annotations

from html import escape

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator

from site_build.config.site_facts import N_
from site_build.folding_rule import folded_title, split_folded_tail
from site_build.site_words import _

CLASS = "folded-code"


class folded_code(nodes.General, nodes.Element):
    """Code shown under a summary line, closed until the reader opens it."""


#: A folded block's summary in an edition other than English: the kind of code it
#: holds, translated. Its first line, a code comment like the rest of the code, stays
#: English, in the block.
KINDS = {
    "Setup": N_("Setup code"),
    "Checks": N_("Checks"),
    "Drawing": N_("Drawing code"),
}


def summary(title: str, language: str) -> str:
    """The summary line shown for a folded block titled ``title`` (its comment)."""
    if language == "en":
        return title
    return str(_(KINDS[title.split(":")[0].split()[0]]))


def _visit(self: HTML5Translator, node: folded_code) -> None:
    shown = summary(node["title"], self.config.language)
    self.body.append(f'<details class="{CLASS}"><summary>{escape(shown)}</summary>\n')


def _depart(self: HTML5Translator, node: folded_code) -> None:
    self.body.append("</details>\n")


def _literal(code: str, like: nodes.literal_block) -> nodes.literal_block:
    block = nodes.literal_block(code, code, **like.attributes)
    block.source, block.line = like.source, like.line
    return block


def _split_folded_tails(app: Sphinx, doctree: nodes.document) -> None:
    """Cut the folded end off each MyST-NB cell's source; put it below the cell."""
    for source in list(doctree.findall(nodes.container)):
        if source.get("nb_element") != "cell_code_source":
            continue
        block = source.children[0]
        if not isinstance(block, nodes.literal_block):
            continue
        shown, folded = split_folded_tail(block.astext())
        if folded is None or folded_title(shown) is not None:
            continue
        block.replace_self(_literal(shown, block))
        fold = folded_code(title=folded_title(folded))
        fold += _literal(folded, block)
        source.parent += fold


class FoldCode(SphinxPostTransform):
    """Put each folded code block in a closed ``<details>`` titled by its comment."""

    # Before Sphinx-Gallery swaps its code blocks for linked ones (5).
    default_priority = 4
    formats = ("html",)

    def run(self, **kwargs: object) -> None:
        for block in list(self.document.findall(nodes.literal_block)):
            if block.get("language", "").lower() not in {"python", "ipython3"}:
                continue
            title = folded_title(block.astext())
            if title is None or isinstance(block.parent, folded_code):
                continue
            parent = block.parent
            # A MyST-NB cell: fold its source container, keep its output visible.
            target = (
                parent
                if isinstance(parent, nodes.container)
                and parent.get("nb_element") == "cell_code_source"
                else block
            )
            fold = folded_code(title=title)
            target.replace_self(fold)
            fold.append(target)


def setup(app: Sphinx) -> dict[str, object]:
    app.add_node(folded_code, html=(_visit, _depart))
    app.add_post_transform(FoldCode)
    # Before code_links marks folded checks (480) and codeautolink reads code (490).
    app.connect("doctree-read", _split_folded_tails, priority=470)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
