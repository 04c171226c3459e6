"""The Chinese edition is set as Chinese is set, and says what the English one says.

It reads the editions that ``nox -s docs`` wrote (``build/html`` and
``build/html/zh_CN``): no space where Chinese typography has none, one where it has
one (between Chinese and a Latin word or inline code), and no Chinese words
in code type (``site_build.chinese_spacing``); every folded block's summary says in
Chinese what the block does, as the English one does; a link that quotes its target's
heading in English quotes it in Chinese too; the downloads are named one way.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections import Counter
from pathlib import Path

import lxml.html
import pytest
from lxml.html import HtmlElement

from site_build.chinese_spacing import chinese_in_code, spacing_problems

ROOT = Path(__file__).resolve().parents[1]
ENGLISH = ROOT / "build" / "html"
CHINESE = ENGLISH / "zh_CN"
PAGES = [
    *(f"{p.stem}.html" for p in sorted((ROOT / "docs").glob("*.md"))),
    *(f"gallery/{p.stem}.html" for p in sorted((ROOT / "examples").glob("*.py"))),
    "gallery/index.html",
]
#: What every folded block said in the Chinese edition before its summary became a
#: message of its page: the kind of code, and nothing about what it checks.
GENERIC_SUMMARIES = frozenset({"检查", "准备代码", "绘图代码", "准备", "绘图"})
_HAN = re.compile("[\u4e00-\u9fff]")


def _read(folder: Path, page: str) -> bytes:
    path = folder / page
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the site first (nox -s docs)")
    return path.read_bytes()


@functools.cache
def _tree(folder: Path, page: str) -> HtmlElement:
    return lxml.html.fromstring(_read(folder, page))


def _words(element: HtmlElement) -> str:
    """An element's text as shown, without a heading's permalink mark."""
    parts = [
        t
        for t in element.xpath(
            ".//text()[not(ancestor::a[contains(@class, 'headerlink')])]"
        )
    ]
    return " ".join("".join(parts).split())


@pytest.mark.parametrize("page", PAGES)
def test_no_space_where_chinese_has_none(page: str) -> None:
    problems = spacing_problems(_read(CHINESE, page))
    assert not problems, (
        f"zh_CN/{page}: write the message as locales/TRANSLATING.md says "
        '("Spacing"):\n' + "\n".join(problems)
    )


@pytest.mark.parametrize("page", PAGES)
def test_no_chinese_words_in_code_type(page: str) -> None:
    found = chinese_in_code(_read(CHINESE, page))
    assert not found, (
        f"zh_CN/{page}: Chinese words set as code; give the role an API name as its "
        f"title and put the words outside it: {found}"
    )


@pytest.mark.parametrize("page", PAGES)
def test_every_folded_block_says_what_it_does(page: str) -> None:
    summaries = [
        _words(s)
        for s in _tree(CHINESE, page).xpath("//details[@class='folded-code']/summary")
    ]
    english = _tree(ENGLISH, page).xpath("//details[@class='folded-code']/summary")
    assert len(summaries) == len(english), f"zh_CN/{page}: other folded blocks"
    bare = [s for s in summaries if s in GENERIC_SUMMARIES or not _HAN.search(s)]
    assert not bare, (
        f"zh_CN/{page}: folded blocks whose summary does not say in Chinese what they "
        f"do (translate the block's first line in the page's .po file): {bare}"
    )


def _headings(folder: Path, page: str) -> dict[str, str]:
    """The heading of each section of ``page`` by its id; ``""`` for the page's title."""
    tree = _tree(folder, page)
    found = {}
    for section in tree.xpath("//section[@id]"):
        heading = section.xpath("./*[self::h1 or self::h2 or self::h3 or self::h4]")
        if heading:
            found[section.get("id")] = _words(heading[0])
    titles = tree.xpath("//article//h1")
    if titles:
        found[""] = _words(titles[0])
    return found


def _quoting_links(page: str) -> Counter[tuple[str, str]]:
    """(target page, section id) of each link on the English ``page`` to a section
    whose text is that section's heading, word for word."""
    found: Counter[tuple[str, str]] = Counter()
    for link in _tree(ENGLISH, page).xpath(
        "//article//a[contains(@class, 'internal')][@href]"
    ):
        href = link.get("href")
        target, _, anchor = href.partition("#")
        if not target.endswith(".html") or not anchor:
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
        if not (ENGLISH / target).is_file() or target.startswith(("_", "genindex")):
            continue
        if _headings(ENGLISH, target).get(anchor) == _words(link):
            found[target, anchor] += 1
    return found


@pytest.mark.parametrize("page", PAGES)
def test_a_link_that_quotes_a_heading_quotes_it_in_chinese_too(page: str) -> None:
    # Per target, as many Chinese links quote its heading as English ones do: a page
    # may link one section twice, once by its heading and once by other words.
    quoting: Counter[tuple[str, str]] = Counter()
    texts: dict[tuple[str, str], list[str]] = {}
    for link in _tree(CHINESE, page).xpath(
        "//article//a[contains(@class, 'internal')][@href]"
    ):
        target, _, anchor = link.get("href").partition("#")
        if not target.endswith(".html") or not anchor:
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
        if not (CHINESE / target).is_file():
            continue
        heading = _headings(CHINESE, target).get(anchor)
        texts.setdefault((target, anchor), []).append(_words(link))
        quoting[target, anchor] += _words(link) == heading
    wrong = [
        f"{texts.get(key, [])} link {key[0]}#{key[1]}, titled "
        f"{_headings(CHINESE, key[0]).get(key[1])!r}"
        for key, count in _quoting_links(page).items()
        if quoting[key] < count
    ]
    assert not wrong, (
        f"zh_CN/{page}: a link that quotes its target's heading in English must quote "
        "it in Chinese (or use {ref}/{doc}, which render it):\n" + "\n".join(wrong)
    )


def test_the_downloads_are_named_one_way() -> None:
    names = set()
    for page in PAGES:
        tree = _tree(CHINESE, page)
        for link in tree.xpath(
            "//a[@href][contains(@href, '.ipynb') or contains(@href, '_jupyter.zip')]"
        ):
            names.update(
                re.findall(r"Jupyter\s*(?:笔记本|[Nn]otebooks?)", _words(link))
            )
    assert names == {"Jupyter 笔记本"}, f"the notebooks are named {sorted(names)}"


@pytest.mark.parametrize("page", PAGES)
def test_links_go_where_the_english_ones_go(page: str) -> None:
    def sections(folder: Path) -> Counter[str]:
        return Counter(
            link.get("href")
            for link in _tree(folder, page).xpath(
                "//article//a[contains(@class, 'internal')][@href]"
            )
            if "#" in link.get("href")
        )

    english, chinese = sections(ENGLISH), sections(CHINESE)
    assert chinese == english, (
        f"zh_CN/{page}: links to sections that the English page does not have, or "
        f"not as often: {sorted((chinese - english).elements())}; missing "
        f"{sorted((english - chinese).elements())}"
    )


def test_misplaced_and_missing_spaces_are_found_and_spaces_by_code_are_not() -> None:
    def found(html: str) -> int:
        return len(spacing_problems(html))

    assert found("<p>详见 <a href='#x'><span>推理张量</span></a>。</p>") == 1
    assert found("<p>私有副本，<strong>并且</strong> 希望</p>") == 1
    assert found("<p><code>clone()</code> （在计算图中）</p>") == 1
    assert (
        found("<p>用 <code>clone()</code>（在计算图中）复制，<em>不</em>共享。</p>")
        == 0
    )
    assert found("<p><span class='sd-badge'>不成立</span> 这三个函数</p>") == 0
    assert found("<p>English words only, here</p>") == 0
    # A missing space: before inline code, after a link whose text starts with code,
    # next to a Latin word. None beside full-width punctuation or a Latin word in
    # full-width brackets.
    assert found("<p>并发出警告<code>Casting</code>。</p>") == 1
    assert (
        found("<p>见<a href='#x'><code>Tensor.copy_(src)</code>：新的值</a></p>") == 1
    )
    assert found("<p>由 Sphinx 9.0.4创建。</p>") == 1
    assert found("<p>在PyTorch 中</p>") == 1
    assert (
        found("<p>见 <a href='#x'><code>clone()</code></a>，打包钩子（pack hook）</p>")
        == 0
    )
    assert found("<pre>中文 中文</pre><p class='untranslated'>中 文</p>") == 0
    assert chinese_in_code("<p><code>锁页</code> 和 <code>x</code></p>") == ["锁页"]
    assert chinese_in_code("<a><code class='xref download'>下载</code></a>") == []
