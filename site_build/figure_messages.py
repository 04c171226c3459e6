"""The words of a figure: messages read from an SVG that matplotlib drew with its text
kept as text (``svg.fonttype = "none"``), and the same SVG with those words translated.

Every figure of the site is such an SVG, so its words are ``<text>`` elements, one per
line. A line is a message when it holds a word: two letters or more that are not part
of code. What is data stays as drawn, in every edition:

- a line set in monospace is code (``x.clone()``, an operation's name);
- a token with a digit, ``.``, ``_``, ``=``, brackets or parentheses in it is code
  (``float32``, ``D[2].weight._version``, ``inplace=True``);
- a number standing alone is a value: the message has ``{0}``, ``{1}``... in its
  place, and a translation puts them where Chinese wants them. Values measured on the
  build's device (bytes, MiB) thus leave the message the same on the CPU and on CUDA;
- a unit (``MiB``) is written alike in every language;
- a line with Chinese in it is translated already.

Standard library only, but for matplotlib's font metrics where a line of several is
translated (:func:`_anchor_lines`). The build (``site_build.extensions.figures``) and
the tests use it.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: One line of text as matplotlib writes it: attributes, then the escaped text.
TEXT = re.compile(r"<text\b(?P<attrs>[^>]*)>(?P<body>[^<]*)</text>")
_STYLE = re.compile(r'style="(?P<style>[^"]*)"')
_HAN = re.compile("[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
#: A word: letters only, with an apostrophe or a hyphen inside (as english_text's).
_WORD = re.compile(r"^[A-Za-z][A-Za-z'\u2019-]*[A-Za-z]$")
#: A number standing alone: not part of a name (``float32``), an index (``s[0]``)
#: or a dotted path.
NUMBER = re.compile(r"(?<![\w.\[\]])[-\u2212]?\d+(?:\.\d+)?(?![\w\[(])")
_PLACEHOLDER = re.compile(r"\{(\d+)\}")
#: Units written the same in every language: not words.
UNITS = frozenset({"kB", "KB", "KiB", "MB", "MiB", "GB", "GiB"})
_CODE_CHARACTERS = frozenset("._=()[]{}<>/\\0123456789")
#: Fonts with Chinese glyphs, after the figure's own and before the generic family:
#: Debian's (what CI installs), then macOS's, Windows' and the common open ones.
CJK_FONTS = (
    "'WenQuanYi Micro Hei'",
    "'Noto Sans CJK SC'",
    "'Source Han Sans SC'",
    "'PingFang SC'",
    "'Hiragino Sans GB'",
    "'Microsoft YaHei'",
)


@dataclass(frozen=True)
class Line:
    """A ``<text>`` element of an SVG: where it is, its style and its text."""

    start: int
    end: int
    attrs: str
    text: str

    @property
    def style(self) -> str:
        found = _STYLE.search(self.attrs)
        return found["style"] if found else ""

    @property
    def is_code(self) -> bool:
        return "monospace" in self.style


def lines(svg: str) -> Iterator[Line]:
    """Every line of text in ``svg``, in order."""
    for match in TEXT.finditer(svg):
        yield Line(
            match.start(), match.end(), match["attrs"], html.unescape(match["body"])
        )


def _tokens(text: str) -> Iterator[tuple[int, int, str]]:
    """The tokens of ``text``, split at spaces but not inside brackets, so that
    ``x.view(3, 4)`` and ``(2, 3)`` are one token each: (start, end, token)."""
    start = depth = None
    for match in re.finditer(r"\S+", text):
        if start is None:
            start, depth = match.start(), 0
        token = match.group()
        depth += sum(token.count(c) for c in "([{") - sum(token.count(c) for c in ")]}")
        if depth <= 0:
            yield start, match.end(), text[start : match.end()]
            start = None
    if start is not None:
        yield start, len(text), text[start:]


def _is_code(token: str) -> bool:
    token = token.strip(",;:!?")
    return any(c.isalpha() for c in token) and bool(_CODE_CHARACTERS & set(token))


def _is_word(token: str) -> bool:
    token = token.strip(",;:!?\"'()")
    return bool(_WORD.match(token)) and token not in UNITS


def _message_of(text: str) -> tuple[str, list[str]] | None:
    """The message of a text and the values in it, or None when it has no words."""
    if _HAN.search(text):
        return None
    tokens = list(_tokens(text))
    if not any(_is_word(token) for _s, _e, token in tokens):
        return None
    values: list[str] = []
    parts, last = [], 0
    for start, _end, token in tokens:
        if _is_code(token):
            continue
        for number in NUMBER.finditer(token):
            parts += [text[last : start + number.start()], f"{{{len(values)}}}"]
            values.append(number.group())
            last = start + number.end()
    parts.append(text[last:])
    return "".join(parts), values


def messages(svg: str) -> list[str]:
    """The messages of a figure, each once, in the order drawn: one per text, its
    lines joined by newlines."""
    all_lines = list(lines(svg))
    found = []
    for block in _texts(svg, all_lines):
        if all_lines[block[0]].is_code:
            continue
        text = "\n".join(all_lines[i].text for i in block)
        if (m := _message_of(text.strip())) is not None:
            found.append(m[0])
    return list(dict.fromkeys(found))


def fill(translation: str, values: list[str]) -> str:
    """A translated message with the figure's values in its placeholders."""
    return _PLACEHOLDER.sub(lambda m: values[int(m[1])], translation)


def translate(svg: str, lookup: Callable[[str], str | None]) -> tuple[str, list[str]]:
    """``svg`` with each text translated by ``lookup`` (message -> translation, or
    None), its fonts falling back to Chinese ones; and the messages left in English.

    matplotlib places each line of a multi-line text from the width of its English
    words, and gives it no anchor; a translated text's lines get the anchor their
    alignment implies, so that a translation of another width stays centred, or
    right-aligned, as drawn, and as many lines as the translation has.
    """
    all_lines = list(lines(svg))
    untranslated: list[str] = []
    replaced: dict[int, str] = {}  # index of a line -> the markup that replaces it
    for block in _texts(svg, all_lines):
        if all_lines[block[0]].is_code:
            continue
        text = "\n".join(all_lines[i].text for i in block)
        found = _message_of(text.strip())
        if found is None:
            continue
        msgid, values = found
        translation = lookup(msgid)
        if not translation:
            untranslated.append(msgid)
            continue
        lead = text[: len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()) :]
        new_lines = (lead + fill(translation, values) + trail).split("\n")
        replaced.update(_placed(all_lines, block, new_lines))
    parts, last = [], 0
    for i, line in enumerate(all_lines):
        parts.append(svg[last : line.start])
        markup = replaced.get(
            i, f"<text{line.attrs}>{html.escape(line.text, quote=False)}</text>"
        )
        parts.append(_with_cjk_fonts(markup))
        last = line.end
    parts.append(svg[last:])
    return "".join(parts), list(dict.fromkeys(untranslated))


def _element(attrs: str, text: str) -> str:
    return f"<text{attrs}>{html.escape(text, quote=False)}</text>"


def _placed(
    all_lines: list[Line], block: list[int], new_lines: list[str]
) -> dict[int, str]:
    """The markup of a translated text, line by line, in place of ``block``'s lines."""
    if len(block) == 1 and len(new_lines) == 1:
        return {block[0]: _element(all_lines[block[0]].attrs, new_lines[0])}
    places = [_TRANSLATE.search(all_lines[i].attrs) for i in block]
    if not all(places):  # a rotated text: left as drawn, line by line
        return {
            i: _element(all_lines[i].attrs, t)
            for i, t in zip(block, new_lines, strict=False)
        }
    xs = [float(place["x"]) for place in places]
    ys = [float(place["y"]) for place in places]
    anchor, x = _alignment(xs, [_width(all_lines[i]) for i in block])
    step = ys[1] - ys[0] if len(ys) > 1 else 1.2 * _size(all_lines[block[0]])
    elements = []
    for k, text in enumerate(new_lines):
        line = all_lines[block[min(k, len(block) - 1)]]
        y = ys[0] + k * step
        attrs = _TRANSLATE.sub(f' x="{x:g}" y="{y:g}"\\g<rest>', line.attrs)
        attrs = attrs.replace('style="', f'style="text-anchor: {anchor}; ', 1)
        elements.append(_element(attrs, text))
    # The first of the text's lines holds all the translated ones; the others go.
    return {block[0]: "".join(elements), **{i: "" for i in block[1:]}}


def _with_cjk_fonts(attrs: str) -> str:
    def add(match: re.Match) -> str:
        families = match[1]
        generic = families.rsplit(",", 1)
        if len(generic) == 2:
            return f"font-family: {generic[0]}, {', '.join(CJK_FONTS)},{generic[1]}"
        return f"font-family: {families}, {', '.join(CJK_FONTS)}"

    return re.sub(r"font-family: ([^;\"]*)", add, attrs)


_TRANSLATE = re.compile(
    r'\s*transform="translate\((?P<x>[-\d.e]+) (?P<y>[-\d.e]+)\)"(?P<rest>[^>]*)$'
)


def _style(line: Line) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in line.style.split(";") if ":" in part)
    return {key.strip(): value.strip() for key, value in pairs}


def _texts(svg: str, all_lines: list[Line]) -> list[list[int]]:
    """The lines of each text, by index: matplotlib writes those of a multi-line text
    one after another, placed by ``translate`` and without an anchor (one line has
    one, or is rotated)."""
    texts: list[list[int]] = []
    for i, line in enumerate(all_lines):
        multi = "text-anchor" not in line.style and "translate(" in line.attrs
        previous = all_lines[i - 1] if i else None
        if (
            multi
            and texts
            and previous is not None
            and texts[-1][-1] == i - 1
            and "text-anchor" not in previous.style
            and previous.attrs.count("(") == line.attrs.count("(")
            and not svg[previous.end : line.start].strip()
        ):
            texts[-1].append(i)
        else:
            texts.append([i])
    return texts


def _size(line: Line) -> float:
    return float(_style(line).get("font-size", "10px").removesuffix("px"))


def _width(line: Line) -> float:
    """How wide matplotlib made ``line``, in the SVG's units."""
    from matplotlib.font_manager import FontProperties

    style = _style(line)
    prop = FontProperties(
        family=style.get("font-family", "").split(",")[0].strip().strip("'")
        or "DejaVu Sans",
        size=_size(line),
        weight=style.get("font-weight", "normal"),
        style=style.get("font-style", "normal"),
    )
    width, _height, _descent = _text_to_path().get_text_width_height_descent(
        line.text, prop, ismath=False
    )
    return width


@functools.cache
def _text_to_path():
    from matplotlib.textpath import TextToPath

    return TextToPath()


def _alignment(xs: list[float], widths: list[float]) -> tuple[str, float]:
    """The anchor (``start``, ``middle``, ``end``) and its x of lines starting at
    ``xs``, of ``widths``: the one where the lines agree best."""
    candidates = {
        "start": xs,
        "middle": [x + w / 2 for x, w in zip(xs, widths, strict=True)],
        "end": [x + w for x, w in zip(xs, widths, strict=True)],
    }
    anchor = min(candidates, key=lambda a: max(candidates[a]) - min(candidates[a]))
    points = candidates[anchor]
    return anchor, sum(points) / len(points)
