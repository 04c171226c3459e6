"""The copy of a page that Pagefind indexes, and when the index is rebuilt."""

from __future__ import annotations

import os
from pathlib import Path

from site_build import search_index

PAGE = (
    '<section id="views">\n<h1>Views<a class="headerlink" href="#views">#</a></h1>\n'
    '<section id="strides">\n<span id="label"></span>\n<h2>Strides</h2>\n'
    '<section id="kept">\n<h3 id="own">Own id</h3>'
)


def test_each_heading_gets_its_sections_id_for_pagefind_to_split_there() -> None:
    copy = search_index.with_heading_ids(PAGE)
    assert '<h1 id="views">Views' in copy
    assert '<h2 id="strides">Strides' in copy
    assert '<h3 id="own">' in copy, "a heading's own id is kept"
    assert '<section id="strides">' in copy, "the section keeps its id"


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
