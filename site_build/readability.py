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

import lxml.html
from lxml.html import HtmlElement

from site_build.extensions.answers import CLASS as ANSWER
from site_build.extensions.answers import word_count

MAX_SENTENCE_WORDS = 40
MAX_PARAGRAPH_WORDS = 100
#: Pages of docs/ that route the reader rather than teach: prose limits only, no answers.
NOT_NARRATIVE = frozenset(
    {"index", "reference", "glossary", "explanations", "questions"}
)

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
HEADINGS = {f"h{level}" for level in range(1, 7)}
#: Where a sentence ends: . ! or ? then a space, before what can start a sentence.
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"”)]))\s+(?=[A-Z0-9\"“(`])")


def parse(html: str | bytes) -> HtmlElement:
    """A page's element tree. lxml builds one about ten times faster than Beautiful
    Soup, and the tests read every page of both editions."""
    return lxml.html.document_fromstring(html)


def _classes(element: HtmlElement) -> list[str]:
    return (element.get("class") or "").split()


def _is_prose(element: HtmlElement) -> bool:
    for node in (element, *element.iterancestors()):
        if node.tag in NOT_PROSE_TAGS:
            return False
        if NOT_PROSE_CLASSES & {
            part for cls in _classes(node) for part in (cls, cls.split("-")[0])
        }:
            return False
    return True


def _text(element: HtmlElement) -> str:
    """The text of ``element`` as read, with code in backticks (a sentence may start
    so); text from different elements is joined by a space, as a reader sees it."""
    element = copy.deepcopy(element)
    for code in list(element.iter("code")):
        code.text = f"`{' '.join(' '.join(code.itertext()).split())}`"
        for child in list(code):
            code.remove(child)  # its text is in code.text now, tails included
    return re.sub(r"\s+", " ", " ".join(element.itertext())).strip()


def _heading(section: HtmlElement) -> HtmlElement | None:
    """The first heading inside ``section``, in document order."""
    return next((e for e in section.iterdescendants() if e.tag in HEADINGS), None)


def _title(section: HtmlElement | None) -> str:
    heading = _heading(section) if section is not None else None
    return _text(heading).rstrip("#¶ ") if heading is not None else "(no section)"


def _section_title(element: HtmlElement) -> str:
    """The title of the innermost section around ``element``."""
    return _title(next(element.iterancestors("section"), None))


def _article(page: HtmlElement) -> HtmlElement:
    return next(page.iter("article"), page)


def paragraphs(page: HtmlElement) -> Iterator[HtmlElement]:
    """Every prose block of the page's article: paragraphs, and list items without."""
    for element in _article(page).iter("p", "li"):
        if element.tag == "li" and next(element.iter("p"), None) is not None:
            continue  # its paragraphs count one by one
        if _is_prose(element) and _text(element):
            yield element


def sentences(text: str) -> list[str]:
    """The sentences of a prose block."""
    return [part for part in SENTENCE_END.split(text) if part.strip()]


def long_prose(page: HtmlElement) -> list[str]:
    """Each sentence and paragraph over its limit, with its section."""
    problems = []
    for element in paragraphs(page):
        text, where = _text(element), _section_title(element)
        if (words := word_count(text)) > MAX_PARAGRAPH_WORDS:
            problems.append(f"[{where}] paragraph of {words} words: {text[:90]}...")
        for sentence in sentences(text):
            if (words := word_count(sentence)) > MAX_SENTENCE_WORDS:
                problems.append(f"[{where}] sentence of {words} words: {sentence}")
    return problems


def _opening(section: HtmlElement) -> HtmlElement | None:
    """The first element of a section after its heading, anchors left out."""
    heading = next((c for c in section if c.tag in HEADINGS), None)
    for child in heading.itersiblings() if heading is not None else section:
        if not isinstance(child.tag, str):
            continue  # a comment
        if child.tag == "span" and not _text(child):
            continue  # an anchor
        return child
    return None


def unanswered(page: HtmlElement) -> list[str]:
    """Each section of the article that does not open with its answer."""
    problems = []
    for section in _article(page).iter("section"):
        first = _opening(section)
        if first is None or ANSWER not in _classes(first):
            what = first.tag if first is not None else "nothing"
            problems.append(f"[{_title(section)}] opens with {what}, not an answer")
    return problems
