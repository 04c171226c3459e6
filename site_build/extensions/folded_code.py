"""Sphinx extension: fold set-up, checks and drawing code under their first line.

Which blocks fold is decided in ``site_build.folded_code``, for MyST pages and gallery
pages alike. A folded block becomes a closed ``<details>`` element whose summary is the
block's first comment line (the code keeps it: sphinx-codeautolink matches each block's
HTML to its source). A MyST-NB cell's output stays in view below its folded source.
"""

from __future__ import annotations

from html import escape

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator

from site_build.folded_code import folded_title

CLASS = "folded-code"


class folded_code(nodes.General, nodes.Element):
    """Code shown under a summary line, closed until the reader opens it."""


def _visit(self: HTML5Translator, node: folded_code) -> None:
    self.body.append(
        f'<details class="{CLASS}"><summary>{escape(node["title"])}</summary>\n'
    )


def _depart(self: HTML5Translator, node: folded_code) -> None:
    self.body.append("</details>\n")


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
            if title is None:
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
    return {"parallel_read_safe": True, "parallel_write_safe": True}
