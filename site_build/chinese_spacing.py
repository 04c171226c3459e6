"""How Chinese text is set on a built page: no space where Chinese typography has none,
and no Chinese words in code type.

Chinese text takes a space between a Chinese character and a Latin word or inline code
(``用 clone() 复制``), never between two Chinese characters and never next to full-width
punctuation (，。：（） and the like). Markup gets this wrong where the words it marks are
Chinese: a space a translator put around a link, an emphasis or a cross-reference whose
text renders Chinese (``详见 推理张量。``), or one before ``（`` after inline code. This
module reads a page's HTML as a reader sees its text, inline code standing for a Latin
word, and reports each such space, each missing one between a Chinese character and
a Latin word or inline code (``并发出警告`Casting…```, a link whose text starts with code
written right after ``见``), and each inline code whose text is Chinese.
``tests/test_chinese_rendering.py`` applies it to the Chinese edition;
``locales/TRANSLATING.md`` says how to write a message that avoids them.
"""

from __future__ import annotations

import re

import lxml.html
from lxml.html import HtmlElement

#: Elements whose text is read as one run of prose (a paragraph, a cell, a heading).
BLOCKS = frozenset(
    {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "summary",
     "figcaption", "caption"}
)  # fmt: skip
#: Elements never read as prose.
SKIPPED = frozenset({"pre", "script", "style", "svg", "math", "textarea", "select"})
#: Classes of elements left out: the heading's permalink mark, and text an edition
#: shows in English, marked "not yet translated".
SKIPPED_CLASSES = frozenset({"headerlink", "untranslated", "lang-en", "highlight"})
#: Inline code: shown in a Latin font, and for the spacing rules a Latin word.
CODE = frozenset({"code", "kbd", "samp", "tt"})
#: Classes of inline elements set apart as a word of their own: a badge (a verdict, a
#: fact of the matrix) is a box, with a space after it in every edition.
WORDS = frozenset({"sd-badge"})
#: Classes of code elements that ``conf/_static/site.css`` sets in the text's font in
#: an edition other than English: Sphinx-Gallery's download links, written by a role
#: that renders code.
TEXT_FONT = frozenset({"download"})

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: Full-width punctuation: no space on either side of it.
FULL_WIDTH = "，。、；：！？（）「」『』“”‘’《》【】"
_PROBLEMS = (
    (re.compile(rf"[{_HAN}][ \t\n\u00a0]+[{_HAN}]"), "a space between Chinese words"),
    (re.compile(rf"[ \t\n\u00a0]+[{FULL_WIDTH}]"), "a space before full-width punctuation"),
    (re.compile(rf"[{FULL_WIDTH}][ \t\n\u00a0]+"), "a space after full-width punctuation"),
)  # fmt: skip
_CODE_WORD = "x"
#: A Latin letter or digit, inline code included (it reads as ``x``).
_LATIN = "A-Za-z0-9"
_MISSING = (
    (re.compile(rf"[{_HAN}][{_LATIN}]"), "no space between Chinese and a Latin word"),
    (re.compile(rf"[{_LATIN}][{_HAN}]"), "no space between a Latin word and Chinese"),
)


def _skipped(element: HtmlElement) -> bool:
    classes = set((element.get("class") or "").split())
    return (
        element.tag in SKIPPED
        or bool(classes & SKIPPED_CLASSES)
        or (element.get("lang") or "").startswith("en")
    )


def _text(element: HtmlElement, top: bool = True) -> str:
    """The prose of ``element`` as a reader sees it, each inline code as one Latin
    word, without the blocks inside it (read on their own)."""
    if not top and (element.tag in BLOCKS or _skipped(element)):
        return ""
    if element.tag in CODE or set((element.get("class") or "").split()) & WORDS:
        inner = _CODE_WORD
    else:
        inner = (element.text or "") + "".join(
            _text(child, top=False) + (child.tail or "") for child in element
        )
    return inner


def spacing_problems(html: bytes | str) -> list[str]:
    """Each misplaced or missing space in the Chinese prose of the page ``html``, in
    context."""
    found = []
    for element in lxml.html.fromstring(html).iter(*BLOCKS):
        if any(_skipped(e) for e in (element, *element.iterancestors())):
            continue
        text = _text(element).strip()
        if not re.search(f"[{_HAN}]", text):
            continue
        for pattern, what in (*_PROBLEMS, *_MISSING):
            for match in pattern.finditer(text):
                context = text[max(0, match.start() - 12) : match.end() + 12]
                found.append(f"{what}: {' '.join(context.split())!r}")
    return found


def chinese_in_code(html: bytes | str) -> list[str]:
    """Each inline code element of the page ``html`` whose text holds Chinese."""
    return [
        code.text_content()
        for code in lxml.html.fromstring(html).iter(*CODE)
        if not any(a.tag == "pre" for a in code.iterancestors())
        and not set((code.get("class") or "").split()) & TEXT_FONT
        and re.search(f"[{_HAN}]", code.text_content())
    ]
