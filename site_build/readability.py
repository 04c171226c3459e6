"""What makes a built page quick to read, measured in its HTML.

Prose is what the reader reads as text: paragraphs and list items, not tables, code,
printed output, folded blocks or the gallery's download chrome. A sentence may have at
most ``MAX_SENTENCE_WORDS`` words, a paragraph ``MAX_PARAGRAPH_WORDS``, and every
section of a narrative page (its title section included) opens with its answer, the
bold paragraph that ``site_build.extensions.answers`` sets apart. ``tests/test_readability.py``
applies this to the built site; ``python -m site_build.commands.readability`` to a few
sources, before a full build.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator

from bs4 import BeautifulSoup, Tag

from site_build.extensions.answers import CLASS as ANSWER
from site_build.extensions.answers import word_count

MAX_SENTENCE_WORDS = 40
MAX_PARAGRAPH_WORDS = 100

#: Elements whose text is not prose, by tag or class.
NOT_PROSE_TAGS = {"table", "pre", "details", "script", "style", "nav", "figure"}
NOT_PROSE_CLASSES = {
    "highlight",
    "cell_output",
    "sphx-glr-script-out",
    "sphx-glr-footer",
    "sphx-glr-download-link-note",
    "sphx-glr-signature",
    "sphx-glr-thumbnails",
    "sphx-glr-timing",
}
#: Where a sentence ends: . ! or ? then a space, before what can start a sentence.
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"”)]))\s+(?=[A-Z0-9\"“(`])")


def _is_prose(tag: Tag) -> bool:
    for node in (tag, *tag.parents):
        if not isinstance(node, Tag):
            continue
        if node.name in NOT_PROSE_TAGS:
            return False
        if NOT_PROSE_CLASSES & {
            part for cls in node.get("class", []) for part in (cls, cls.split("-")[0])
        }:
            return False
    return True


def _text(tag: Tag) -> str:
    """The text of ``tag`` as read, with code in backticks (a sentence may start so)."""
    tag = copy.copy(tag)
    for code in tag.find_all("code"):
        code.replace_with(f"`{' '.join(code.get_text(' ').split())}`")
    return re.sub(r"\s+", " ", tag.get_text(" ")).strip()


def _section_title(tag: Tag) -> str:
    """The title of the innermost section around ``tag``."""
    section = tag.find_parent("section")
    heading = section.find(re.compile(r"^h[1-6]$")) if section else None
    return _text(heading).rstrip("#¶ ") if heading else "(no section)"


def paragraphs(soup: BeautifulSoup) -> Iterator[Tag]:
    """Every prose block of the page's article: paragraphs, and list items without."""
    article = soup.find("article") or soup
    for tag in article.find_all(["p", "li"]):
        if tag.name == "li" and tag.find("p"):
            continue  # its paragraphs count one by one
        if _is_prose(tag) and _text(tag):
            yield tag


def sentences(text: str) -> list[str]:
    """The sentences of a prose block."""
    return [part for part in SENTENCE_END.split(text) if part.strip()]


def long_prose(soup: BeautifulSoup) -> list[str]:
    """Each sentence and paragraph over its limit, with its section."""
    problems = []
    for tag in paragraphs(soup):
        text, where = _text(tag), _section_title(tag)
        if (words := word_count(text)) > MAX_PARAGRAPH_WORDS:
            problems.append(f"[{where}] paragraph of {words} words: {text[:90]}...")
        for sentence in sentences(text):
            if (words := word_count(sentence)) > MAX_SENTENCE_WORDS:
                problems.append(f"[{where}] sentence of {words} words: {sentence}")
    return problems


def _opening(section: Tag) -> Tag | None:
    """The first element of a section after its heading, anchors left out."""
    heading = section.find(re.compile(r"^h[1-6]$"), recursive=False)
    for child in heading.find_next_siblings() if heading else section.children:
        if not isinstance(child, Tag):
            continue
        if child.name == "span" and not _text(child):
            continue  # an anchor
        return child
    return None


def unanswered(soup: BeautifulSoup) -> list[str]:
    """Each section of the article that does not open with its answer."""
    article = soup.find("article") or soup
    problems = []
    for section in article.find_all("section"):
        first = _opening(section)
        if first is None or ANSWER not in first.get("class", []):
            problems.append(
                f"[{_section_title(first or section)}] opens with "
                f"{(first.name if first else 'nothing')}, not an answer"
            )
    return problems
