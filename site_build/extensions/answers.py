"""Sphinx extension: the answer that opens a section, set apart from the proof below it.

A section of a narrative page or gallery script opens with its answer: a paragraph
that is all bold, a rule of at most ``MAX_WORDS`` words. In MyST and in a gallery
script's reStructuredText alike::

    **`clone()` copies into new memory, and gradient still flows back to the source.**

A myth's verdict badge may stand before it. Plain bold reads as the answer in every form
a page takes: the site, a downloaded ``.py`` or ``.ipynb``, a source viewer. When a page
is read, each section's first paragraph that is all bold is wrapped in
``<div class="answer">``; ``tests/test_readability.py`` checks in the built HTML that
every section of a narrative page opens with one. An answer of more than ``MAX_WORDS``
words is an error naming the file and line (and fails a ``-W`` build). The words are
counted in English: the Chinese edition's answers are translations of counted ones.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from site_build.extensions.myth_verdicts import verdict

logger = logging.getLogger(__name__)

#: The most words an answer may have: short enough to read at a glance.
MAX_WORDS = 35
CLASS = "answer"


def word_count(text: str) -> int:
    """The words of ``text`` as a reader counts them: runs of non-space characters."""
    return len(re.findall(r"\S+", text))


def is_answer(paragraph: nodes.Node) -> bool:
    """Whether ``paragraph`` is all bold, after an optional verdict badge."""
    if not isinstance(paragraph, nodes.paragraph):
        return False
    parts = [
        child
        for child in paragraph.children
        if not (isinstance(child, nodes.Text) and not child.strip())
        and not isinstance(child, verdict)
    ]
    return len(parts) == 1 and isinstance(parts[0], nodes.strong)


def opening(section: nodes.section) -> nodes.Node | None:
    """The first element of a section's body: after its title and any targets."""
    for child in section.children:
        if isinstance(child, (nodes.title, nodes.target)):
            continue
        return child
    return None


class MarkAnswers(SphinxTransform):
    """Wrap each section's opening bold paragraph in an answer box; check its length."""

    default_priority = 810  # after the verdicts' summary table is built

    def apply(self, **kwargs: object) -> None:
        for section in list(self.document.findall(nodes.section)):
            first = opening(section)
            if first is None or not is_answer(first):
                continue
            words = word_count(first.astext())
            if self.config.language == "en" and words > MAX_WORDS:
                logger.error(
                    "an answer has %d words; state the rule in at most %d",
                    words,
                    MAX_WORDS,
                    location=first,
                )
            box = nodes.container(classes=[CLASS])
            box.source, box.line = first.source, first.line
            first.replace_self(box)
            box += first


def setup(app: Sphinx) -> dict[str, object]:
    app.add_transform(MarkAnswers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
