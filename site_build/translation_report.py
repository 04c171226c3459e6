"""How much of each edition is translated: the report its build writes, and the check
that fails on anything shown in English.

An English change never waits on a translation. Where a page's message has no
translation yet (or only a fuzzy one, whose source changed), the edition's build shows
the English message with a "not yet translated" mark and lists it in
``build/translations/<language>.json``. This module reads those reports::

    python -m site_build.translation_report build

prints each edition's coverage and exits 1 while any message is left in English: the
check that ``.ci/run`` and the publishing job run (``nox -s translation_coverage``), so
that the project stays fully translated without blocking a contributor. Standard
library only: nox runs it with its own interpreter.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from site_build.config.edition_list import EDITIONS, translation_report

#: What a reader of a report or a build log is told to do next.
HOW_TO_TRANSLATE = (
    "`nox -s translations` adds them to the catalogues; locales/TRANSLATING.md says "
    "how to translate them"
)


@dataclass(frozen=True)
class Untranslated:
    """A message of a page that an edition shows in English."""

    page: str  # the source file, relative to docs/
    line: int | None
    text: str  # as the page shows it, whitespace collapsed


@dataclass
class Report:
    """One edition's coverage: every message of its pages, and those left in English."""

    language: str
    messages: int = 0
    untranslated: list[Untranslated] = field(default_factory=list)

    @property
    def translated(self) -> int:
        return self.messages - len(self.untranslated)

    def summary(self) -> str:
        """One line: ``zh_CN: 1234 of 1236 messages translated (99.8 %)``."""
        share = 100 * self.translated / self.messages if self.messages else 100.0
        # Rounded down, so that 100 % means every message.
        return (
            f"{self.language}: {self.translated} of {self.messages} messages "
            f"translated ({int(share * 10) / 10:g} %)"
        )

    def listing(self, limit: int | None = None) -> list[str]:
        """One line per message left in English: ``page.md:12: 'text'``."""
        shown = self.untranslated if limit is None else self.untranslated[:limit]
        lines = [
            f"{item.page}:{item.line or '?'}: {item.text[:100]!r}" for item in shown
        ]
        if len(shown) < len(self.untranslated):
            lines.append(f"... and {len(self.untranslated) - len(shown)} more")
        return lines


def write(path: Path, report: Report) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(asdict(report), ensure_ascii=False, indent=1)
    path.write_text(text + "\n", encoding="utf-8")


def read(path: Path) -> Report:
    data = json.loads(path.read_text(encoding="utf-8"))
    items = [Untranslated(**item) for item in data.pop("untranslated")]
    return Report(**data, untranslated=items)


def shown_in_english(build: Path) -> list[str]:
    """Every message an edition's build shows in English, on purpose, with its mark:
    the checks for English left on a page let these through."""
    texts = []
    for edition in EDITIONS:
        path = translation_report(build, edition)
        if edition.folder and path.is_file():
            texts += [item.text for item in read(path).untranslated]
    return texts


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m site_build.translation_report BUILD_FOLDER")
        return 2
    build = Path(argv[0])
    left = 0
    for edition in EDITIONS[1:]:
        path = translation_report(build, edition)
        if not path.is_file():
            print(f"{path}: no report: build the {edition.language} edition first")
            return 2
        report = read(path)
        print(report.summary())
        for line in report.listing():
            print(f"  not yet translated: {line}")
        left += len(report.untranslated)
    if left:
        print(f"{left} messages are shown in English: {HOW_TO_TRANSLATE}")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
