"""English left in a translated page: runs of three or more English words in its text,
or in the attributes a reader sees (tooltips, image descriptions, labels), outside code
and outside elements marked as English (the glossary's English terms); and markup a
translation broke, shown as raw text (a role, double backticks, asterisks).

Code, printed output and API names stay English in every edition; a sentence does not.
A run of three words catches a forgotten sentence or heading and lets names through
(``PyTorch``, ``Jupyter notebook``, ``NVIDIA H200``). Standard library only.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Elements whose content is code, output or machinery, never prose.
CODE_TAGS = frozenset({"pre", "code", "kbd", "samp", "script", "style", "svg", "math"})
#: Classes that mark code or output where the element itself is a ``span`` or ``div``.
CODE_CLASSES = frozenset({"highlight", "pre", "sig", "math", "output", "cell_output"})
#: Marks text that is English on purpose in every edition (the glossary's terms; MyST
#: renders ``[term]{.lang-en}`` with the class, and drops a ``lang`` attribute).
ENGLISH_CLASS = "lang-en"
#: Attributes shown to readers.
SHOWN_ATTRIBUTES = ("title", "alt", "aria-label", "placeholder")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr"}
)  # fmt: skip
# A word of two letters or more (an apostrophe straight or curly), or "a" or "I": a
# lone letter is otherwise more often a variable's name than a word.
_WORD = r"(?:[A-Za-z][A-Za-z'\u2019-]*[A-Za-z]|[Aa]|I)"
ENGLISH_RUN = re.compile(rf"{_WORD}(?:[ ,;:]+{_WORD}){{2,}}")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: is it code?
        self.parts: list[str] = []

    def _in_code(self) -> bool:
        return any(self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        english = (dict(attrs).get("lang") or "").startswith("en") or (
            ENGLISH_CLASS in classes
        )
        code = tag in CODE_TAGS or bool(classes & CODE_CLASSES) or english
        if not self._in_code() and not code:
            values = dict(attrs)
            self.parts += [values[a] or "" for a in SHOWN_ATTRIBUTES if a in values]
        if tag not in _VOID:
            self.stack.append(code)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag not in _VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self._in_code():
            self.parts.append(data)


#: Markup that reached the page as text: reStructuredText needs inline markup set off
#: by spaces or punctuation, which Chinese text between words does not give it.
RAW_MARKUP = re.compile(r"``|\*\*|:[a-z]+:`|\{[a-z]+\}`|`[^`\s][^`]*`_?")


def _prose(html: str) -> list[str]:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return parser.parts


def english_runs(html: str) -> list[str]:
    """Each run of three or more English words in ``html``'s prose and shown attributes."""
    return [m.group() for part in _prose(html) for m in ENGLISH_RUN.finditer(part)]


def raw_markup(html: str) -> list[str]:
    """Each piece of source markup shown as text in ``html``'s prose."""
    return [m.group() for part in _prose(html) for m in RAW_MARKUP.finditer(part)]
