"""The copy of a page that Pagefind indexes, and when the index is rebuilt."""

from __future__ import annotations

import os
from pathlib import Path

from site_build import search_index

PAGE = """<html lang="en"><body><nav>menu</nav><article class="bd-article">
<section id="views"><h1>Views<a class="headerlink" href="#views">#</a></h1>
<p>Intro.</p>
<section id="strides"><span id="label"></span><h2>Strides</h2><p>Own prose.</p>
<section id="kept"><h3>Kept</h3><p>Nested prose.</p></section>
</section></section></article><footer>foot</footer></body></html>"""

QUESTIONS = """<html><body><article class="bd-article"><section id="q"><h1>Q</h1>
<p>Questions readers ask.</p><section id="group"><h2>Views</h2>
<ul><li><p><a class="reference internal" href="views.html#label">Why <code>strides</code>?</a></p></li>
<li><p><a class="reference internal" href="views.html">What is a view?</a></p></li>
<li><p><a class="reference external" href="https://example.com">Elsewhere</a></p></li>
</ul></section></section></article></body></html>"""


def test_each_section_is_a_document_without_its_subsections() -> None:
    documents = search_index.section_documents(PAGE, "views.html")
    assert sorted(documents) == [
        "views/kept.html",
        "views/strides.html",
        "views/views.html",
    ]
    strides = documents["views/strides.html"]
    assert "Own prose." in strides
    assert "Nested prose." not in strides, "a subsection is a document of its own"
    assert "Intro." not in strides
    assert "menu" not in strides
    assert "foot" not in strides
    assert 'data-section="views.html#strides"' in strides
    assert 'data-heading="Strides"' in strides
    assert 'data-title="Strides · Views"' in strides, "the page's title follows"
    title = documents["views/views.html"]
    assert 'data-section="views.html#views"' in title
    assert 'data-title="Views"' in title
    assert '<html lang="en">' in title


def test_a_question_is_indexed_in_the_section_it_links_to() -> None:
    questions = search_index.questions_by_target(QUESTIONS)
    assert questions == {
        "views.html#label": ["Why strides?"],
        "views.html": ["What is a view?"],
    }, "internal links only, keyed by their target; a label counts for its section"
    documents = search_index.section_documents(PAGE, "views.html", questions)
    assert "Why strides?" in documents["views/strides.html"]
    assert "What is a view?" in documents["views/views.html"]
    assert "Why strides?" not in documents["views/kept.html"]
    listed = search_index.section_documents(QUESTIONS, "questions.html", questions)
    assert list(listed) == ["questions/q.html"], (
        "the questions page's groups are indexed where their questions lead"
    )


def test_the_index_is_rebuilt_only_when_a_page_is_newer(tmp_path: Path) -> None:
    page = tmp_path / "views.html"
    page.write_text(PAGE, encoding="utf-8")
    bundle = tmp_path / "pagefind"
    assert not search_index.index_is_current([page], bundle), "no index yet"
    bundle.mkdir()
    entry = bundle / "pagefind-entry.json"
    entry.write_text("{}", encoding="utf-8")
    os.utime(page, (1, 1))
    assert search_index.index_is_current([page], bundle)
    os.utime(page, (entry.stat().st_mtime + 5,) * 2)
    assert not search_index.index_is_current([page], bundle), "a page was written"


def test_pagefind_leaves_out_code_output_and_folded_checks() -> None:
    command = search_index.pagefind_command(Path("pagefind"), Path("s"), Path("b"))
    excluded = command[command.index("--exclude-selectors") + 1]
    for selector in ("details.folded-code", "div.cell_output", "pre", ".headerlink"):
        assert selector in excluded.split(", "), selector
