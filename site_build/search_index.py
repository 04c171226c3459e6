"""What the site's Pagefind index holds: each page's prose, split at its sections.

Pagefind splits a page into section results only at headings that carry an ``id``
(``h1``-``h6``); Sphinx puts a section's ``id`` on its ``<section>`` and none on the
heading. So Pagefind reads a copy of each page in which the heading carries its
section's ``id`` (:func:`with_heading_ids`): a result then links to the section's
anchor, which the served page has on the ``<section>``. The served pages are not
changed. Code, printed output, folded setup and checks, and navigation are left out of
the index by Pagefind's own ``--exclude-selectors`` (:data:`EXCLUDE_SELECTORS`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

#: The part of a page that is indexed: the article, without the header, the page menu
#: and the footer.
ROOT_SELECTOR = "article.bd-article"
#: What a result must never quote: code (visible or folded), printed output, figures'
#: download chrome, the heading's "#" link and in-page tables of contents.
EXCLUDE_SELECTORS = (
    ".headerlink",
    "details.folded-code",
    "div.cell_input",
    "div.cell_output",
    "div.highlight",
    "pre",
    ".sphx-glr-script-out",
    ".sphx-glr-footer",
    ".sphx-glr-download-link-note",
    ".sphx-glr-signature",
    ".sphx-glr-thumbnails",
    "nav.contents",
    "div.contents",
    ".toctree-wrapper",
)
#: Where each edition's index is written, below the edition's own folder.
BUNDLE = "pagefind"

# A section and its heading, as Sphinx 9 writes them: ``<section id="x">`` then, after
# optional labels (``<span id=...>``) and whitespace, the heading's opening tag.
_SECTION_HEADING = re.compile(
    r'(<section\b[^>]*?\bid="(?P<id>[^"]+)"[^>]*>\s*(?:<span id="[^"]*"></span>\s*)*'
    r"<h[1-6])(?P<attrs>[^>]*)>"
)


def with_heading_ids(page: str) -> str:
    """``page`` with each section's ``id`` copied onto its heading, for Pagefind to
    split it there. Only the indexed copy has them: two elements with one ``id``."""

    def give_id(match: re.Match[str]) -> str:
        if " id=" in match["attrs"]:
            return match[0]
        return f'{match[1]} id="{match["id"]}"{match["attrs"]}>'

    return _SECTION_HEADING.sub(give_id, page)


def index_is_current(pages: Iterable[Path], bundle: Path) -> bool:
    """Whether the index in ``bundle`` was written after every page in ``pages``.

    An unchanged rebuild writes no page, so it indexes nothing (nor reads a page).
    """
    entry = bundle / "pagefind-entry.json"
    if not entry.is_file():
        return False
    written = entry.stat().st_mtime
    return all(page.stat().st_mtime < written for page in pages)


def copy_for_index(pages: dict[str, Path], site: Path) -> None:
    """Write the indexed copy of each page (``url path -> built file``) under ``site``."""
    for name, path in pages.items():
        target = site / name
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text(encoding="utf-8")
        target.write_text(with_heading_ids(text), encoding="utf-8")


def pagefind_command(executable: Path, site: Path, bundle: Path) -> list[str]:
    """The Pagefind run that indexes the copies under ``site`` into ``bundle``."""
    return [
        str(executable),
        "--site", str(site),
        "--output-path", str(bundle),
        "--root-selector", ROOT_SELECTOR,
        "--exclude-selectors", ", ".join(EXCLUDE_SELECTORS),
        "--silent",
    ]  # fmt: skip


def build_index(executable: Path, pages: dict[str, Path], bundle: Path) -> None:
    """Index ``pages`` into ``bundle``, replacing the index that was there.

    The copies live beside the bundle, in a folder removed afterwards: the index is
    written whole into a fresh folder, then moved into place, so a failed run leaves
    the last index.
    """
    work = bundle.parent / f".{bundle.name}-work"
    shutil.rmtree(work, ignore_errors=True)
    site, fresh = work / "site", work / "bundle"
    try:
        copy_for_index(pages, site)
        subprocess.run(pagefind_command(executable, site, fresh), check=True)
        shutil.rmtree(bundle, ignore_errors=True)
        fresh.rename(bundle)
    finally:
        shutil.rmtree(work, ignore_errors=True)
