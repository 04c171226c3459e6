"""Which code on a page is folded away: set-up, checks and drawing code.

A page shows its lesson as short code and the output it prints; the code that prepares
it, asserts every claim it makes, or draws its figures runs just the same, but is folded
under its first line. Such a block starts with a comment naming it::

    # Checks: the clone owns new memory
    assert not shares_memory(y, x)

A whole block (a gallery script's ``# %%`` block, a MyST code cell) is folded when its
first line names it. A MyST code cell may also end in a folded part: from its first
line, at the start of a line, that names one, the rest of the cell is shown folded
below the cell's output. The cell still runs as one, which spares the page's kernel a
round trip per claim.

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


def split_folded_tail(code: str) -> tuple[str, str | None]:
    """A cell's code as (the part shown, the folded part that ends it, or None)."""
    lines = code.split("\n")
    for number, line in enumerate(lines[1:], 1):
        if line.startswith("#") and FOLDED_FIRST_LINE.fullmatch(line.rstrip()):
            return "\n".join(lines[:number]).rstrip("\n"), "\n".join(lines[number:])
    return code, None
