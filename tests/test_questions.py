"""The questions index routes real questions to sections that exist.

``docs/questions.md`` lists questions readers asked in forum and issue threads, each a
list item that is one link, each followed by comment lines citing its threads. These
tests read that source, and the English edition that ``nox -s docs`` wrote to
``build/html``: every link must land on an ``id`` of the page it names, and no cited
address may show on the rendered page. Each failure names the question.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from docutils.nodes import make_id

from site_build.readability import parse

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "docs" / "questions.md"
HTML = ROOT / "build" / "html"
MIN_QUESTIONS = 50

#: A question: a list item that is one Markdown link and nothing else.
QUESTION = re.compile(r"^- \[(?P<text>.+)\]\((?P<target>[^)\s]+)\)$")
#: A citation: an indented MyST comment line holding one thread's address.
CITATION = re.compile(r"^\s+% (?P<url>https?://\S+)$")
#: A link to another page's section: ``page.md#anchor``.
PAGE_LINK = re.compile(r"^(?P<page>[a-z0-9-]+)\.md#(?P<anchor>[^#]+)$")
#: A link to a gallery page's label: ``#sphx_glr_gallery_<script>.py``.
GALLERY_LINK = re.compile(r"^#(?P<label>sphx_glr_gallery_(?P<script>\w+)\.py)$")


@dataclass
class Question:
    line: int
    text: str
    target: str
    sources: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"questions.md:{self.line}: {self.text!r}"


def _questions() -> list[Question]:
    """The questions of the page, in order, each with the addresses cited under it."""
    found: list[Question] = []
    for number, line in enumerate(SOURCE.read_text().splitlines(), start=1):
        if line.startswith("- "):
            match = QUESTION.match(line)
            if match is None:
                pytest.fail(
                    f"questions.md:{number}: a list item must be one link and "
                    f"nothing else, `- [question](page.md#anchor)`: {line!r}"
                )
            found.append(Question(number, match["text"], match["target"]))
        elif (citation := CITATION.match(line)) and found:
            found[-1].sources.append(citation["url"])
    return found


QUESTIONS = _questions()


def _where(question: Question) -> tuple[str, str]:
    """The built page a question links to, relative to build/html, and the anchor."""
    if match := PAGE_LINK.match(question.target):
        return f"{match['page']}.html", match["anchor"]
    if match := GALLERY_LINK.match(question.target):
        return f"gallery/{match['script']}.html", make_id(match["label"])
    pytest.fail(
        f"{question}: links to {question.target!r}, which is neither a page's "
        "section (page.md#anchor) nor a gallery page (#sphx_glr_gallery_<name>.py)"
    )


@functools.cache
def _ids(page: str) -> frozenset[str]:
    """Every id in a built page."""
    path = HTML / page
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the site first (nox -s docs)")
    return frozenset(parse(path.read_bytes()).xpath("//@id"))


def test_the_page_holds_enough_questions() -> None:
    assert len(QUESTIONS) >= MIN_QUESTIONS, (
        f"questions.md holds {len(QUESTIONS)} questions; the index promises at "
        f"least {MIN_QUESTIONS}"
    )


def test_no_question_is_listed_twice() -> None:
    seen: dict[str, Question] = {}
    for question in QUESTIONS:
        first = seen.setdefault(question.text, question)
        assert first is question, f"{question}: listed already at line {first.line}"


@pytest.mark.parametrize("question", QUESTIONS, ids=str)
def test_each_question_cites_a_thread(question: Question) -> None:
    assert question.sources, (
        f"{question}: no thread cited; put `  % https://...` under it, one line "
        "for each forum or issue thread it was asked in"
    )


@pytest.mark.parametrize("question", QUESTIONS, ids=str)
def test_each_question_links_to_an_existing_source(question: Question) -> None:
    if match := PAGE_LINK.match(question.target):
        source = ROOT / "docs" / f"{match['page']}.md"
    elif match := GALLERY_LINK.match(question.target):
        source = ROOT / "examples" / f"{match['script']}.py"
    else:
        _where(question)  # fails, naming the question and its link
        return
    assert source.is_file(), (
        f"{question}: links to {question.target!r}, but "
        f"{source.relative_to(ROOT)} does not exist"
    )


@pytest.mark.parametrize("question", QUESTIONS, ids=str)
def test_each_link_reaches_an_anchor_of_the_built_page(question: Question) -> None:
    page, anchor = _where(question)
    assert anchor in _ids(page), (
        f"{question}: build/html/{page} has no id {anchor!r}; the section it "
        "linked to was renamed or removed"
    )


def test_the_rendered_page_shows_no_cited_address() -> None:
    path = HTML / "questions.html"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the site first (nox -s docs)")
    html = path.read_text()
    shown = sorted(
        {url for question in QUESTIONS for url in question.sources if url in html}
    )
    assert not shown, (
        "build/html/questions.html shows cited addresses, which belong in "
        "comments only:\n" + "\n".join(shown)
    )
