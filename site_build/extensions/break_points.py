"""Sphinx extension: code in tables and gallery captions wraps only between its parts.

A narrow cell or card has to wrap ``x.detach().clone()``. With no break opportunity in
it, the browser either lets it overflow or, told to break anywhere, cuts a name in two
(``x.detach().clon`` / ``e()``). Each page's HTML gets a ``<wbr>`` after every ``.``,
``(`` and ``,`` that a line may end at, in the code of its tables and in the gallery's
card captions, and in captions also after the ``=`` of a keyword argument
(``index_put_(accumulate=`` / ``True)``: a card is narrower than a cell); tables.css
then forbids breaks anywhere else. ``<wbr>`` is markup, not
a character: copied text, the search index (built from the doctree) and the text of
the page stay as they were.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

_TAG = re.compile(r"(<[^>]*>)")
_TABLE = re.compile(r"<table\b.*?</table>", re.S)
_CODE = re.compile(r"(<code\b[^>]*>)(.*?)(</code>)", re.S)
_CAPTION = re.compile(r'(<div class="sphx-glr-thumbnail-title">)(.*?)(</div>)', re.S)
#: After which characters a line may end: in tables' code, and in captions.
IN_CODE, IN_CAPTIONS = ".(,", ".(,="


def _may_end_a_line(previous: str, char: str, following: str, after: str) -> bool:
    """Whether a line may end right after ``char`` (one of ``after``), between
    ``previous`` and ``following``: not at either end, not before a space (which breaks
    already), not inside a number (``6.0``), not inside an operator (``==``) and not
    between the brackets of an empty call."""
    if char not in after or not previous or not following or following.isspace():
        return False
    if char == "." and previous.isdigit() and following.isdigit():
        return False
    if char == "=" and not (previous.isalnum() or previous == "_"):
        return False
    if char == "=" and following == "=":
        return False
    return not (char == "(" and following == ")")


def with_break_points(html: str, after: str = IN_CODE) -> str:
    """Inline HTML with a ``<wbr>`` after each of ``after`` that a line may end at.

    The characters are judged in the text as read, across the tags of highlighted code
    (``<span class="p">(</span><span class="n">x</span>``); tags are left unchanged.
    """
    parts = _TAG.split(html)
    text = "".join(parts[0::2])
    out, seen = [], 0
    for index, part in enumerate(parts):
        if index % 2:
            out.append(part)
            continue
        for char in part:
            out.append(char)
            previous = text[seen - 1] if seen else ""
            following = text[seen + 1] if seen + 1 < len(text) else ""
            if _may_end_a_line(previous, char, following, after):
                out.append("<wbr>")
            seen += 1
    return "".join(out)


def _mark(match: re.Match[str], after: str = IN_CODE) -> str:
    start, inner, end = match.groups()
    return start + with_break_points(inner, after) + end


def break_points_in_body(body: str) -> str:
    """A page body with break points in its tables' code and its gallery captions."""
    body = _TABLE.sub(lambda table: _CODE.sub(_mark, table.group()), body)
    return _CAPTION.sub(lambda caption: _mark(caption, IN_CAPTIONS), body)


def _add_break_points(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    if "body" in context:
        context["body"] = break_points_in_body(context["body"])


def setup(app: Sphinx) -> dict[str, object]:
    # After the handlers that rewrite the body (the code links' pass, the Chinese
    # edition's translated captions), before the check of its English text (900).
    app.connect("html-page-context", _add_break_points, priority=800)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
