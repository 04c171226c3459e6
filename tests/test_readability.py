"""The built pages read quickly: short sentences and paragraphs, and answers first.

It reads the English edition that ``nox -s docs`` wrote to ``build/html``, as a reader
sees it; what counts as prose and the limits are in ``site_build.readability``. Each
failure names the page and the section.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from lxml.html import HtmlElement

from site_build.readability import (
    NOT_NARRATIVE,
    long_prose,
    parse,
    sentences,
    unanswered,
)

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "build" / "html"

NARRATIVE = [
    *(
        f"{p.stem}.html"
        for p in sorted((ROOT / "docs").glob("*.md"))
        if p.stem not in NOT_NARRATIVE
    ),
    *(f"gallery/{p.stem}.html" for p in sorted((ROOT / "examples").glob("*.py"))),
]
PAGES = [*NARRATIVE, *(f"{name}.html" for name in sorted(NOT_NARRATIVE))]


@functools.cache  # three tests read each page; the parse is most of their time
def _built(page: str) -> HtmlElement:
    path = HTML / page
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the site first (nox -s docs)")
    return parse(path.read_bytes())


@pytest.mark.parametrize("page", PAGES)
def test_sentences_and_paragraphs_are_short(page: str) -> None:
    problems = long_prose(_built(page))
    assert not problems, f"{page}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", NARRATIVE)
def test_every_section_opens_with_its_answer(page: str) -> None:
    problems = unanswered(_built(page))
    assert not problems, f"{page}:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two words here.", ["One.", "Two words here."]),
        (
            "Call `x.t()` then `y.view(6)`. Done.",
            ["Call `x.t()` then `y.view(6)`.", "Done."],
        ),
        ("Use e.g. this one.", ["Use e.g. this one."]),
        ("It ends (really). Then 2 more.", ["It ends (really).", "Then 2 more."]),
    ],
)
def test_sentences_split_where_a_reader_would(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_a_section_without_an_answer_is_named() -> None:
    page = parse(
        '<article><section id="a"><h1>Page</h1><div class="answer"><p>Rule.</p></div>'
        '<section id="b"><h2>Part<a class="headerlink">#</a></h2><span id="t"></span>'
        "<p>Long intro.</p></section></section></article>"
    )
    assert unanswered(page) == ["[Part] opens with p, not an answer"]


def test_code_tables_and_folded_checks_are_not_prose() -> None:
    long = " ".join(["word"] * 120)
    page = parse(
        f"<article><section><h1>T</h1><table><tr><td><p>{long}</p></td></tr></table>"
        f"<details><summary>Checks</summary><p>{long}</p></details>"
        f'<div class="highlight-python"><p>{long}</p></div>'
        f"<p>{long}</p></section></article>"
    )
    problems = long_prose(page)
    assert len(problems) == 2  # the one paragraph outside: too long, and one sentence


@pytest.mark.parametrize("page", NARRATIVE)
def test_every_chinese_section_keeps_its_answer(page: str) -> None:
    """A translated answer must stay one bold paragraph, or the box is lost."""
    problems = unanswered(_built(f"zh_CN/{page}"))
    assert not problems, f"zh_CN/{page}:\n" + "\n".join(problems)


def test_every_english_page_has_its_chinese_twin() -> None:
    """A page the Chinese build failed to write is missing, not stale: Sphinx's
    parallel writers have been seen to drop the rest of a chunk after an error."""
    english = {
        p.relative_to(HTML).as_posix()
        for p in HTML.rglob("*.html")
        if p.relative_to(HTML).parts[0] not in {"zh_CN", "_static", "_images"}
    }
    chinese = {
        p.relative_to(HTML / "zh_CN").as_posix() for p in HTML.glob("zh_CN/**/*.html")
    }
    assert english, f"{HTML} holds no page: build the site first (nox -s docs)"
    assert english <= chinese, f"missing from zh_CN/: {sorted(english - chinese)}"
