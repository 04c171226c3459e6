"""Which code on a page is folded away: set-up, checks and drawing code.

A page shows its lesson as short code and the output it prints; the code that prepares
it, asserts every claim it makes, or draws its figures runs just the same, but is folded
under its first line. Such a block starts with a comment naming it::

    # Checks: the clone owns new memory
    assert not shares_memory(y, x)

The same rule holds for MyST pages and gallery scripts, so a reader meets one
convention, and the tests that keep visible code short and free of asserts read it from
here.
"""

from __future__ import annotations

import re

# The first line of a folded block: one of these words, then anything.
FOLDED_FIRST_LINE = re.compile(r"#\s*(Setup|Checks|Drawing)\b.*")

# Visible code is read without scrolling in the page column and in a terminal.
VISIBLE_LINE_LENGTH = 79


def folded_title(code: str) -> str | None:
    """The summary line of a folded block, or None when ``code`` is shown in full."""
    first = code.lstrip("\n").split("\n", 1)[0].strip()
    match = FOLDED_FIRST_LINE.fullmatch(first)
    return match.group(0).lstrip("#").strip() if match else None
