"""Sphinx extension: fold set-up, checks and drawing code under their first line.

Which blocks fold is decided in ``site_build.folded_code``. Folded blocks become the
same ``<details>`` element MyST-NB draws for a ``hide-input`` cell, so both kinds of
page look and behave alike; a cell's output stays in view below its folded source.
"""

from __future__ import annotations

from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from site_build.folded_code import folded_title


class FoldCode(SphinxPostTransform):
    """Wrap each folded code block in a closed ``<details>`` titled by its comment."""

    default_priority = 200  # after MyST-NB's own hide-input transform (199)
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
            if isinstance(target.parent, HideCodeCellNode):
                continue
            fold = HideCodeCellNode(prompt_show=title, prompt_hide=title)
            fold["classes"] += ["above-input", "folded-code"]
            target.replace_self(fold)
            fold.append(target)


def setup(app: Sphinx) -> dict[str, object]:
    app.add_post_transform(FoldCode)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
