"""Sphinx extension: fold set-up, checks and drawing code under their first line.

Which blocks fold is decided in ``site_build.folding_rule``, for MyST pages and gallery
pages alike. A folded block becomes a closed ``<details>`` element whose summary is the
block's first comment line (the code keeps it: sphinx-codeautolink matches each block's
HTML to its source). A MyST-NB cell's output stays in view below its folded source; a
cell that ends in a folded part is split when the page is read, before codeautolink
reads its code, and the folded part goes below the cell's output.

That first line is also a message of the page's own catalogue: an edition shows it
translated, or in English marked "not yet translated", and ``nox -s translations``
extracts it with the page's prose. Each distinct line becomes a ``folded_summary``
node at the end of the page, before Sphinx's Locale transform translates the page's
messages; the folds read their summary from those nodes, which are then dropped.
"""

from __future__ import annotations

from html import escape

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator

from site_build.folding_rule import folded_title, split_folded_tail

CLASS = "folded-code"
#: The languages of the code blocks that may fold.
PYTHON = frozenset({"python", "ipython3"})


class folded_code(nodes.General, nodes.Element):
    """Code shown under a summary line, closed until the reader opens it."""


class folded_summary(nodes.Element, addnodes.translatable):
    """A folded block's summary line, a message of its page: its text is the line as
    the edition shows it, ``title`` the block's first line, in English."""

    def preserve_original_messages(self) -> None:
        self.setdefault("title", self.astext())

    def apply_translated_message(self, original: str, translated: str) -> None:
        self.children = []
        self += nodes.Text(translated)
        self["translated"] = True  # Sphinx marks only the messages it patches

    def extract_original_messages(self) -> list[str]:
        return [self["title"]]


def _title(block: nodes.literal_block) -> str | None:
    """The summary line of the fold ``block`` makes or ends in, if any."""
    if block.get("language", "").lower() not in PYTHON:
        return None
    code = block.astext()
    title = folded_title(code)
    if title is None:
        _shown, folded = split_folded_tail(code)
        title = folded_title(folded) if folded is not None else None
    return title


class FoldedSummaries(SphinxTransform):
    """Make each folded block's first line a message of the page, one node per line,
    at the end of the page."""

    # Before Sphinx's Locale transform (20) translates the page's messages.
    default_priority = 15

    def apply(self, **kwargs: object) -> None:
        seen: dict[str, folded_summary] = {}
        for block in self.document.findall(nodes.literal_block):
            title = _title(block)
            if title is None or title in seen:
                continue
            node = seen[title] = folded_summary(title=title)
            node += nodes.Text(title)
            node.source, node.line = block.source, block.line
        self.document.extend(seen.values())


def summaries(document: nodes.document) -> dict[str, nodes.Element]:
    """Each folded block's first line, and the node that holds it as shown."""
    return {node["title"]: node for node in document.findall(folded_summary)}


def _visit(self: HTML5Translator, node: folded_code) -> None:
    shown = escape(node.get("summary", node["title"]))
    if node.get("untranslated"):
        shown = f'<span class="untranslated" lang="en">{shown}</span>'
    self.body.append(f'<details class="{CLASS}"><summary>{shown}</summary>\n')


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
            if block.get("language", "").lower() not in PYTHON:
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
        shown = summaries(self.document)
        for fold in self.document.findall(folded_code):
            if fold["title"] in shown:
                summary = shown[fold["title"]]
                fold["summary"] = summary.astext()
                fold["untranslated"] = "untranslated" in summary["classes"]
        for summary in shown.values():
            summary.parent.remove(summary)


def _skip(self: object, node: nodes.Element) -> None:
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, object]:
    app.add_node(folded_code, html=(_visit, _depart))
    app.add_node(folded_summary, html=(_skip, None), text=(_skip, None))
    app.add_transform(FoldedSummaries)
    app.add_post_transform(FoldCode)
    # Before code_links marks folded checks (480) and codeautolink reads code (490).
    app.connect("doctree-read", _split_folded_tails, priority=470)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
