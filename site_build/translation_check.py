"""What a translation must keep of its source message, and the catalogues that do not.

A translated message may reorder words, but every inline code span, role target, link
address and substitution of its source must come through unchanged: they are code, or
where the reader is sent, and a translator's slip there would break a page silently.
Standard library and Babel (a Sphinx dependency) only: the tests and
``python -m site_build.translation_check FILE.po ...`` use it, and ``nox -s
translations`` drops obsolete messages with ``--drop-obsolete FILE.po ...``.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

#: A backtick-delimited span, MyST or reStructuredText: an optional role before it
#: (``{meth}`` or ``:meth:``), and an optional ``_`` or ``__`` after it (a link).
_SPAN = re.compile(
    r"(?P<role>\{[\w:.+-]+\}|:[\w:.+-]+:)?(?P<ticks>`+)(?P<body>.+?)(?P=ticks)(?P<link>_{1,2})?",
    re.DOTALL,
)
#: ``title <target>`` inside a role or a reStructuredText link.
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
_MARKDOWN_LINK = re.compile(r"\]\((?P<url>[^)\s]+)\)")
_AUTOLINK = re.compile(r"<(?P<url>https?://[^>\s]+)>")
_SUBSTITUTION = re.compile(r"\{\{\s*(?P<name>\w+)\s*\}\}|\|(?P<rst>\w+)\|")
#: Where a figure's message has a value drawn from data (``site_build.figure_messages``).
_PLACEHOLDER = re.compile(r"(?<!\{)\{(?P<index>\d+)\}(?!\})")


#: A Chinese translation of a long message is rarely under this share of its English
#: length (0.28 at least, on the site's catalogues): shorter, a sentence may be missing.
SHORTEST, LONG = 0.25, 100

#: The translator's guide: its glossary table names, for each term, the renderings a
#: translation must not use (column 不用).
GUIDE = Path(__file__).resolve().parents[1] / "locales" / "TRANSLATING.md"


def avoided_terms(guide: Path = GUIDE) -> dict[str, str]:
    """Each rendering the guide's glossary rules out, and the term to use instead."""
    avoided: dict[str, str] = {}
    header: list[str] | None = None
    for line in guide.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif "不用" in header and not set("".join(cells)) <= set("-: "):
            row = dict(zip(header, cells, strict=False))
            for word in filter(None, (w.strip() for w in row["不用"].split("、"))):
                avoided[word] = row["中文"]
    return avoided


def prose(message: str) -> str:
    """``message`` without its code spans, role targets and link addresses: the words
    a reader sees as text (a role's or a link's title stays)."""

    def title(span: re.Match) -> str:
        titled = _TITLED.match(span["body"]) if (span["role"] or span["link"]) else None
        return titled["title"] if titled else " "

    text = _SPAN.sub(title, message)
    return _AUTOLINK.sub(" ", _MARKDOWN_LINK.sub("]", text))


def _terms(cell: str) -> list[str]:
    """The words of a glossary cell of column 中文: ``源张量``, or ``步长、存储偏移``,
    without the notes in full-width brackets."""
    return [
        w.strip()
        for w in re.split("[、\uff1b]", re.sub("\uff08[^\uff09]*\uff09", "", cell))
        if w.strip()
    ]


def _spans(text: str, word: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(re.escape(word), text)]


def other_renderings(message: str, avoided: dict[str, str]) -> list[tuple[str, str]]:
    """(rendering, the glossary's term) for each ruled-out rendering ``message`` uses.

    A rendering that overlaps the term itself is the term, not another rendering: with
    ``传到源`` ruled out for ``源张量``, ``写入传到源张量`` is fine.
    """
    text = prose(message)
    found = []
    for word, term in avoided.items():
        allowed = [s for t in _terms(term) for s in _spans(text, t)]
        if any(
            not any(a < end and start < b for a, b in allowed)
            for start, end in _spans(text, word)
        ):
            found.append((word, term))
    return found


def markup(message: str) -> Counter[tuple[str, str]]:
    """The parts of ``message`` a translation must keep: (kind, text) with counts.

    Kinds: ``code`` (a code span, or reStructuredText's default role), a role's name
    (its target, without the title a translation may change), ``link`` (an address),
    ``substitution``, ``value`` (a figure's ``{0}``).
    """
    found: Counter[tuple[str, str]] = Counter()
    rest = []
    end = 0
    for span in _SPAN.finditer(message):
        rest.append(message[end : span.start()])
        end = span.end()
        role, body, link = span["role"], span["body"], span["link"]
        titled = _TITLED.match(body) if (role or link) else None
        if link:
            found["link", titled["target"] if titled else body] += 1
        elif role:
            found[role.strip("{}:"), titled["target"] if titled else body] += 1
        else:
            found["code", body] += 1
    rest.append(message[end:])
    text = "".join(rest)
    for pattern in (_MARKDOWN_LINK, _AUTOLINK):
        found.update(("link", m["url"]) for m in pattern.finditer(text))
    for m in _SUBSTITUTION.finditer(text):
        found["substitution", m["name"] or m["rst"]] += 1
    for m in _PLACEHOLDER.finditer(text):
        found["value", m["index"]] += 1
    return found


def rendered(message: str, syntax: str) -> Counter[str]:
    """How many of each inline element ``message`` renders to: code, emphasis, strong,
    links, roles. ``syntax`` is ``"rst"`` (gallery pages) or ``"md"`` (MyST pages).

    Text can keep every code span and still lose one when rendered: reStructuredText
    needs inline markup set off by spaces or punctuation, CommonMark needs emphasis
    to start and end next to the right characters, and Chinese gives neither.
    """
    if syntax == "md":
        from markdown_it import MarkdownIt

        tokens = MarkdownIt("commonmark").parseInline(message)[0].children or []
        return Counter(t.type for t in tokens if t.type.endswith(("_open", "_inline")))
    from docutils.core import publish_doctree
    from docutils.nodes import Inline, system_message

    tree = publish_doctree(
        message,
        settings_overrides={
            "report_level": 5,
            "halt_level": 5,
            "warning_stream": False,
        },
    )
    kinds = Counter(type(node).__name__ for node in tree.findall(Inline))
    kinds["problem"] = sum(1 for _ in tree.findall(system_message))
    return kinds


def syntax_of(path: Path) -> str | None:
    """The markup of a catalogue's messages: its page's, or None for template words."""
    if path.stem in ("site", "sphinx", "figures") and path.parent.name == "LC_MESSAGES":
        return None
    return "rst" if path.parent.name == "gallery" else "md"


def problems(path: Path, require_complete: bool = True) -> list[str]:
    """What is wrong with the catalogue at ``path``: one line per message.

    With ``require_complete`` false, a message not translated yet, or whose source
    changed since (fuzzy), is not a problem: the edition's build shows it in English,
    marked, and its coverage check (``site_build.translation_report``) reports it.
    What a translation keeps of its source is checked either way.
    """
    from babel.messages.pofile import read_po

    syntax = syntax_of(path)
    avoided = avoided_terms()

    with path.open("rb") as file:
        catalog = read_po(file)
    found = []
    for message in catalog:
        if not message.id:
            continue  # the header
        source = message.id if isinstance(message.id, str) else message.id[0]
        where = f"{path}: {source[:60]!r}"
        translation = message.string if isinstance(message.string, str) else ""
        if not require_complete and (message.fuzzy or not translation.strip()):
            continue
        if message.fuzzy:
            found.append(
                f"{where}: fuzzy (its source changed): check it, drop the flag"
            )
        elif not translation.strip():
            found.append(f"{where}: not translated")
        elif markup(source) != markup(translation):
            lost = markup(source) - markup(translation)
            added = markup(translation) - markup(source)
            found.append(
                f"{where}: markup changed: lost {sorted(lost)}, added {sorted(added)}"
            )
        elif len(source) > LONG and len(translation) < SHORTEST * len(source):
            found.append(
                f"{where}: a quarter of its source's length: is a sentence missing?"
            )
        elif syntax and rendered(source, syntax) != rendered(translation, syntax):
            found.append(
                f"{where}: renders differently ({dict(rendered(source, syntax))} in "
                f"English, {dict(rendered(translation, syntax))} translated): set "
                "inline markup off with spaces"
            )
        if translation.strip() and not message.fuzzy:
            found += [
                f"{where}: uses {word!r}, not the glossary's {term!r} "
                "(locales/TRANSLATING.md)"
                for word, term in other_renderings(translation, avoided)
            ]
    for message in catalog.obsolete.values():
        found.append(f"{path}: {str(message.id)[:60]!r}: obsolete: delete it")
    return found


def check(paths: Iterable[Path], require_complete: bool = True) -> list[str]:
    """Every problem of the catalogues at ``paths``."""
    return [line for path in paths for line in problems(path, require_complete)]


def drop_obsolete(path: Path) -> None:
    """Remove the messages no page has any more from the catalogue at ``path``.

    ``sphinx-intl update`` keeps them, commented out, after offering each one's
    translation to a changed message (marked fuzzy): nothing reads them afterwards.
    """
    lines = path.read_text(encoding="utf-8").split("\n\n")
    kept = [block for block in lines if not block.lstrip().startswith("#~")]
    if len(kept) < len(lines):  # a catalogue with nothing to drop stays as it is
        path.write_text("\n\n".join(kept).rstrip("\n") + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--drop-obsolete"]:
        for arg in sys.argv[2:]:
            drop_obsolete(Path(arg))
        sys.exit(0)
    lines = check(Path(arg) for arg in sys.argv[1:])
    print("\n".join(lines) or "no problems")
    sys.exit(1 if lines else 0)
