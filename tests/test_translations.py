"""Every edition's catalogues are faithful to their sources' code and links; a build of
an edition shows a message not yet translated in English, marked, and reports it, and
fails where a page would show English any other way."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_build import translation_check
from site_build.config.edition_list import EDITIONS
from site_build.english_text import english_runs, raw_markup
from site_build.extensions import editions

ROOT = Path(__file__).resolve().parents[1]
TRANSLATED = [edition for edition in EDITIONS if edition.folder]


def _catalogues(language: str) -> list[Path]:
    return sorted((ROOT / "locales" / language / "LC_MESSAGES").rglob("*.po"))


@pytest.mark.parametrize("edition", TRANSLATED, ids=lambda e: e.language)
def test_every_translation_keeps_its_code_and_links(edition) -> None:
    # Completeness is the coverage check's (site_build.translation_report): an English
    # change, its catalogue updated or not, passes the tests before it is translated.
    problems = translation_check.check(
        _catalogues(edition.language), require_complete=False
    )
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"


def _po(tmp_path: Path, entries: str, header: str = "") -> Path:
    path = tmp_path / "page.po"
    path.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        + header
        + entries,
        encoding="utf-8",
    )
    return path


def test_a_translation_that_drops_or_changes_code_a_role_or_a_link_is_reported(
    tmp_path: Path,
) -> None:
    path = _po(
        tmp_path,
        'msgid "Use `x.clone()` here."\nmsgstr "在这里使用 `x.clone`。"\n\n'
        'msgid "See {meth}`~torch.Tensor.view`."\nmsgstr "见 {meth}`torch.Tensor.view`。"\n\n'
        'msgid "Read [views](views.md#strides)."\nmsgstr "阅读[视图](views.md)。"\n\n'
        'msgid "On {{ page_device }}."\nmsgstr "在某设备上。"\n\n'
        'msgid "Kept: ``a`` and :func:`b <torch.b>`."\nmsgstr "保留：:func:`乙 <torch.b>` 和 ``a``。"\n',
    )
    problems = translation_check.problems(path)
    assert [line.split(": ")[1] for line in problems] == [
        "'Use `x.clone()` here.'",
        "'See {meth}`~torch.Tensor.view`.'",
        "'Read [views](views.md#strides).'",
        "'On {{ page_device }}.'",
    ]
    assert all("markup changed" in line for line in problems)


def test_an_untranslated_fuzzy_or_obsolete_message_is_reported(tmp_path: Path) -> None:
    path = _po(
        tmp_path,
        'msgid "Empty."\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Changed."\nmsgstr "旧的译文。"\n\n'
        '#~ msgid "Gone."\n#~ msgstr "没了。"\n',
    )
    problems = translation_check.problems(path)
    assert len(problems) == 3
    assert "not translated" in problems[0]
    assert "fuzzy" in problems[1]
    assert "obsolete" in problems[2]
    incomplete_allowed = translation_check.problems(path, require_complete=False)
    assert incomplete_allowed == problems[2:]
    translation_check.drop_obsolete(path)
    assert len(translation_check.problems(path)) == 2
    untouched = path.read_bytes()
    translation_check.drop_obsolete(path)  # nothing left to drop
    assert path.read_bytes() == untouched


def test_english_runs_skip_code_names_and_text_marked_english() -> None:
    html = (
        "<h1>视图：同一块内存</h1><p>用 <code>x.view(2, 3) and more words</code> 查看，"
        '<span class="pre">also not prose here</span>，PyTorch 和 Jupyter notebook。'
        '<span class="lang-en">shallow copy, deep copy</span><span lang="en">English</span></p><pre>print("a b c")</pre>'
        '<div class="highlight">one two three</div>'
    )
    assert english_runs(html) == []
    assert english_runs("<p>这里 is a forgotten sentence，然后</p>") == [
        "is a forgotten sentence"
    ]
    assert english_runs('<img alt="a storage of six numbers">') == [
        "a storage of six numbers"
    ]


def test_markup_shown_as_text_is_found_outside_code() -> None:
    html = (
        "<p>使用``clone()``时，:meth:`~torch.Tensor.view` 和 **粗体**</p>"
        "<p><code>``a``</code> 与 <strong>粗体</strong></p>"
    )
    assert raw_markup(html) == ["``", "``", ":meth:`", "**", "**"]


def test_a_gallery_translation_that_breaks_inline_markup_is_reported(
    tmp_path: Path,
) -> None:
    path = tmp_path / "gallery" / "page.po"
    path.parent.mkdir()
    path.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Use ``share_memory_()`` (for a model) first."\n'
        'msgstr "先使用 ``share_memory_()``（对模型）。"\n',
        encoding="utf-8",
    )
    problems = translation_check.problems(path)
    assert len(problems) == 1
    assert "renders differently" in problems[0]


def test_the_glossary_gives_search_its_chinese_terms() -> None:
    terms = editions.glossary_terms()
    for term in ("视图", "深拷贝", "浅拷贝", "叶子张量", "原地操作", "版本计数器"):
        assert term in terms
    assert all(not term.isascii() for term in terms)


MINIMAL_CONF = """
extensions = ["myst_parser", "site_build.extensions.editions"]
locale_dirs = ["locales"]
gettext_compact = False
html_theme = "basic"
myst_substitutions = {}
html_baseurl = "http://127.0.0.1:8000/"
notfound_urls_prefix = "/"
notfound_context = {}
ogp_site_url = html_baseurl
"""


def _chinese_build(folder: Path, entries: str = "") -> subprocess.CompletedProcess:
    """Build a one-page site in Chinese, strict, its catalogue translating the first
    two of its three messages, and its other ``entries``."""
    (folder / "conf.py").write_text(MINIMAL_CONF, encoding="utf-8")
    (folder / "index.md").write_text(
        "# Title\n\nA first sentence.\n\nA second sentence left out.\n",
        encoding="utf-8",
    )
    catalogue = folder / "locales" / "zh_CN" / "LC_MESSAGES" / "index.po"
    catalogue.parent.mkdir(parents=True, exist_ok=True)
    catalogue.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Title"\nmsgstr "标题"\n\n'
        'msgid "A first sentence."\nmsgstr "第一句。"\n\n' + entries,
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "-D", "language=zh_CN",
         str(folder), str(folder / "out")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "entries",
    [
        "",
        # What ``sphinx-intl update`` writes when the message changed: the new source,
        # the old translation, marked fuzzy.
        '#, fuzzy\n#| msgid "A second sentence."\n'
        'msgid "A second sentence left out."\nmsgstr "旧的第二句。"\n',
    ],
    ids=["untranslated", "fuzzy"],
)
def test_a_chinese_build_shows_a_message_without_translation_in_english_marked(
    tmp_path: Path, entries: str
) -> None:
    build = _chinese_build(tmp_path, entries)
    output = build.stdout + build.stderr
    assert build.returncode == 0, output  # an English change does not wait
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "第一句。" in page
    assert "旧的第二句。" not in page  # a stale translation is never shown
    assert (
        '<p class="untranslated" lang="en">A second sentence left out.</p>' in page
    ), page
    assert "zh_CN: 2 of 3 messages translated (66.6 %)" in output, output
    assert "index.md:5: 'A second sentence left out.'" in output, output
    assert "nox -s translations" in output, output
    # The search page's stemmer is a class its script defines (editions._chinese_search,
    # sphinx-doc/sphinx#14229): else every Chinese search finds nothing.
    script = (tmp_path / "out" / "_static" / "language_data.js").read_text()
    stemmer = re.search(r"window\.Stemmer = (\w+);", script)
    assert stemmer, "the Chinese search names no stemmer"
    assert f"var {stemmer[1]}=" in script, f"{stemmer[1]} is named but not defined"


def _coverage_check(build: Path) -> subprocess.CompletedProcess:
    """Run the coverage check on the reports of the build in ``build``."""
    return subprocess.run(
        [sys.executable, "-m", "site_build.translation_report", str(build)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip


def test_the_coverage_check_fails_naming_each_message_left_in_english(
    tmp_path: Path,
) -> None:
    _chinese_build(tmp_path)
    check = _coverage_check(tmp_path / "out")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "index.md:5: 'A second sentence left out.'" in check.stdout, check.stdout
    translated = 'msgid "A second sentence left out."\nmsgstr "第二句。"\n'
    assert _chinese_build(tmp_path, translated).returncode == 0
    check = _coverage_check(tmp_path / "out")
    assert check.returncode == 0, check.stdout
    assert "zh_CN: 3 of 3 messages translated (100 %)" in check.stdout


def test_a_page_with_no_catalogue_yet_is_shown_in_english_marked(
    tmp_path: Path,
) -> None:
    _chinese_build(tmp_path)
    (tmp_path / "new.md").write_text(
        "---\norphan: true\n---\n# A new page\n\nIts only sentence.\n"
    )
    build = _chinese_build(tmp_path)
    output = build.stdout + build.stderr
    assert build.returncode == 0, output
    page = (tmp_path / "out" / "new.html").read_text(encoding="utf-8")
    assert '<p class="untranslated" lang="en">Its only sentence.</p>' in page, page
    assert "new.md:6: 'Its only sentence.'" in output, output


def test_a_translation_that_uses_another_rendering_of_a_term_is_reported(
    tmp_path: Path,
) -> None:
    avoided = translation_check.avoided_terms()
    assert avoided["经由"] == "通过"
    assert avoided["跟踪"] == "追踪"
    path = _po(
        tmp_path,
        'msgid "Written through a view."\nmsgstr "经由视图写入。"\n\n'
        'msgid "Autograd tracks it."\nmsgstr "自动求导会跟踪它。"\n\n'
        'msgid "Code `跟踪(x)` is kept."\nmsgstr "代码 `跟踪(x)` 原样保留。"\n\n'
        'msgid "Autograd tracks `y`."\nmsgstr "自动求导追踪 `y`。"\n',
    )
    problems = translation_check.problems(path)
    assert len(problems) == 2, problems
    assert "'经由', not the glossary's '通过'" in problems[0]
    assert "'跟踪', not the glossary's '追踪'" in problems[1]


def test_a_ruled_out_rendering_inside_the_term_itself_is_the_term(
    tmp_path: Path,
) -> None:
    # 传到源 is ruled out for 源张量; 传到源张量 holds it and is the term.
    assert translation_check.avoided_terms()["传到源"] == "源张量"
    path = _po(
        tmp_path,
        'msgid "Writes reach the source."\nmsgstr "写入传到源。"\n\n'
        'msgid "Writes reach the source tensor."\nmsgstr "写入传到源张量。"\n\n'
        'msgid "Both."\nmsgstr "写入传到源张量，梯度也传到源。"\n',
    )
    problems = translation_check.problems(path)
    assert len(problems) == 2, problems
    assert all("'传到源', not the glossary's '源张量'" in p for p in problems)
