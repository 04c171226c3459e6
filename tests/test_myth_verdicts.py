"""The myths page's verdicts: a badge per section, and a summary table built from them.

One small Sphinx build (MyST, HTML, no theme) of a few pages in ``tmp_path``: a page
whose table must list its sections in order, each title linked to its section beside
its badge, and pages with each mistake the extension must report by file and line.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from site_build.extensions.myth_verdicts import VERDICTS

GOOD = """\
# Myths

```{verdict-summary}
```

## "`reshape` returns a view"

{verdict}`depends` It depends on the strides.

### A subsection without a verdict of its own

Text.

## "`clone` shares memory"

{verdict}`false` It does not.

## "Detached tensors cannot be resized"

Some text first. {verdict}`changed` They can, now.

## See it run

No verdict here, so no row.
"""

UNKNOWN_WORD = """\
# Unknown

## "A claim"

{verdict}`maybe` Not a verdict. {verdict}`False`: verdicts are lower case.
"""

TWO_IN_ONE = """\
# Two

## "A claim"

{verdict}`true` and then {verdict}`false`.
"""

NOTHING_TO_SUM = """\
# Empty

```{verdict-summary}
```

## Not a claim
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Build the pages once: the output folder and everything Sphinx warned."""
    root = tmp_path_factory.mktemp("verdicts")
    source = root / "docs"
    source.mkdir()
    pages = {
        "good": GOOD,
        "unknown": UNKNOWN_WORD,
        "two": TWO_IN_ONE,
        "empty": NOTHING_TO_SUM,
    }
    toctree = "\n".join(pages)
    (source / "index.md").write_text(
        f"# Index\n\n```{{toctree}}\n{toctree}\n```\n", encoding="utf-8"
    )
    for name, text in pages.items():
        (source / f"{name}.md").write_text(text, encoding="utf-8")
    (source / "conf.py").write_text(
        "extensions = ['myst_parser', 'site_build.extensions.myth_verdicts']\n"
        "myst_heading_anchors = 3\n",
        encoding="utf-8",
    )
    warnings = StringIO()
    # Sphinx registers its roles and nodes in docutils for the whole process: undone
    # afterwards, so that other tests' docutils parsing never meets them.
    with docutils_namespace():
        app = Sphinx(
            str(source),
            str(source),
            str(root / "html"),
            str(root / "doctrees"),
            "html",
            status=None,
            warning=warnings,
            freshenv=True,
        )
        app.build()
    return root / "html", warnings.getvalue()


def _rows(html: str) -> list[tuple[str, str, str]]:
    """(link target, link text, verdict class) of each row of the summary table."""
    table = re.search(r'<table class="[^"]*verdict-summary.*?</table>', html, re.S)
    assert table, "no verdict-summary table on the page"
    return [
        (target, re.sub(r"<[^>]+>", "", text), word)
        for target, text, word in re.findall(
            r'<a class="reference internal" href="#([^"]+)">(.*?)</a>.*?'
            r'class="[^"]*verdict-(\w+)"',
            table.group(0),
            re.S,
        )
    ]


def test_summary_lists_each_section_with_a_verdict_in_order(
    site: tuple[Path, str],
) -> None:
    html = (site[0] / "good.html").read_text(encoding="utf-8")
    rows = _rows(html)
    assert [(text, word) for _, text, word in rows] == [
        ("\u201creshape returns a view\u201d", "depends"),
        ("\u201cclone shares memory\u201d", "false"),
        ("\u201cDetached tensors cannot be resized\u201d", "changed"),
    ], "the table must list exactly the sections that hold a verdict, in page order"
    for target, _, _ in rows:
        assert f'id="{target}"' in html, f"the row's link #{target} leads nowhere"


def test_each_section_shows_its_badge_with_label_and_meaning(
    site: tuple[Path, str],
) -> None:
    html = (site[0] / "good.html").read_text(encoding="utf-8")
    for word in ("depends", "false", "changed"):
        label, meaning = VERDICTS[word]
        badges = re.findall(
            rf'<span class="[^"]*sd-badge[^"]*verdict-{word}[^"]*" '
            rf'title="{re.escape(meaning)}">{label}</span>',
            html,
        )
        # One in its section, one in the summary table.
        assert len(badges) == 2, f"{word}: {len(badges)} badges, expected 2"


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("unknown.md:5", "unknown verdict 'maybe'; use one of: true, false"),
        ("unknown.md:5", "unknown verdict 'False'"),
        ("two.md:5", "a section has 2 verdicts, not one: true, false"),
        ("empty.md:3", "verdict-summary found no section with a {verdict} role"),
    ],
)
def test_mistakes_are_errors_that_name_the_file(
    site: tuple[Path, str], page: str, message: str
) -> None:
    errors = [line for line in site[1].splitlines() if "ERROR" in line]
    assert any(page in line and message in line for line in errors), (
        f"no error at {page} saying {message!r}; Sphinx said:\n" + "\n".join(errors)
    )
