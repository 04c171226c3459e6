"""The code a reader sees is the lesson: short lines, no asserts; the checks are folded.

Every page and gallery script still asserts each claim it makes, in blocks folded under
a ``# Checks`` line (``site_build.folding_rule``); what stays in view demonstrates and
prints.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from sphinx_gallery.py_source_parser import split_code_and_text_blocks

from site_build.folding_rule import VISIBLE_LINE_LENGTH, folded_title, split_folded_tail

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md"))
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))

# A MyST-NB code cell: its option lines (":tags: [...]") and its source.
_CODE_CELL = re.compile(
    r"^```\{code-cell\}[^\n]*\n((?::[^\n]*\n)*)(.*?)^```\s*$", re.M | re.S
)
_HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-input", "hide-cell"}


def _page_cells(page: Path) -> list[tuple[int, str]]:
    """The visible code cells of a MyST page: (line number, source)."""
    text = page.read_text(encoding="utf-8")
    cells = []
    for match in _CODE_CELL.finditer(text):
        options, source = match.groups()
        if any(tag in options for tag in _HIDDEN_TAGS):
            continue
        cells.append((text.count("\n", 0, match.start(2)) + 1, source))
    return cells


def _example_blocks(script: Path) -> list[tuple[int, str]]:
    """The code blocks of a gallery script: (line number, source)."""
    _, blocks = split_code_and_text_blocks(str(script))
    return [(line, content) for label, content, line in blocks if label == "code"]


def _cells(path: Path) -> list[tuple[int, str]]:
    return _example_blocks(path) if path.suffix == ".py" else _page_cells(path)


SOURCES = [*PAGES, *EXAMPLES]


def _shown_and_folded(source: str) -> tuple[str, list[str]]:
    """The code of a block that is shown, and the folded parts of it."""
    if folded_title(source) is not None:
        return "", [source]
    shown, folded = split_folded_tail(source)
    return shown, [folded] if folded is not None else []


def _problems(path: Path) -> list[str]:
    problems = []
    for start, block in _cells(path):
        source = _shown_and_folded(block)[0] if path.suffix == ".md" else block
        if folded_title(source) is not None or not source:
            continue
        code = "\n".join(
            line for line in source.splitlines() if not line.startswith("%")
        )
        for offset, line in enumerate(source.splitlines()):
            if len(line) > VISIBLE_LINE_LENGTH:
                problems.append(
                    f"line {start + offset}: {len(line)} characters, more than "
                    f"{VISIBLE_LINE_LENGTH}"
                )
        asserts = [
            node.lineno
            for node in ast.walk(ast.parse(code))
            if isinstance(node, ast.Assert)
        ]
        problems += [
            f"line {start + lineno - 1}: an assert in visible code; move it to a "
            "block that starts with '# Checks'"
            for lineno in asserts
        ]
    return problems


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_visible_code_is_short_and_asserts_nothing(path: Path) -> None:
    problems = _problems(path)
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_page_with_code_still_checks_its_claims(path: Path) -> None:
    cells = _cells(path)
    if not cells:
        pytest.skip(f"{path.name} has no code")
    checks = [
        folded
        for _, source in cells
        for folded in (
            _shown_and_folded(source)[1] if path.suffix == ".md" else [source]
        )
        if folded_title(folded)
    ]
    asserted = [
        source
        for source in checks
        if source.lstrip().startswith(("# Checks", "#Checks"))
        and any(isinstance(n, ast.Assert) for n in ast.walk(ast.parse(source)))
    ]
    assert asserted, f"{path.relative_to(ROOT)} has no '# Checks' block with asserts"


@pytest.mark.parametrize(
    ("code", "shown", "folded"),
    [
        (
            "x = 1\nprint(x)\n# Checks: one\nassert x == 1",
            "x = 1\nprint(x)",
            "# Checks: one\nassert x == 1",
        ),
        (
            "x = 1\n    # Checks: indented\nassert x",
            "x = 1\n    # Checks: indented\nassert x",
            None,
        ),
        ("x = 1  # Checks\n", "x = 1  # Checks\n", None),
        ("# Checks: whole\nassert 1", "# Checks: whole\nassert 1", None),
    ],
)
def test_a_cell_splits_at_its_first_line_that_names_a_fold(
    code: str, shown: str, folded: str | None
) -> None:
    assert split_folded_tail(code) == (shown, folded)


@pytest.mark.parametrize(
    ("code", "title"),
    [
        (
            "# Checks: the clone owns new memory\nassert x",
            "Checks: the clone owns new memory",
        ),
        ("\n# Setup\nimport torch", "Setup"),
        ("# Drawing the figure\nplt.show()", "Drawing the figure"),
        ("x = 1  # Checks\n", None),
        ("# Checksum of the file\n", None),
        ("print(1)\n# Checks: late\nassert 1", None),
    ],
)
def test_a_block_folds_only_when_its_first_line_names_it(
    code: str, title: str | None
) -> None:
    assert folded_title(code) == title
