"""What the site's Pagefind index holds: one document per section of each page.

Pagefind ranks whole documents. A page of this site holds a dozen lessons, and a
reader's query is answered by one of them: so Pagefind indexes each section as a
document of its own (:func:`section_documents`), holding the section's heading and
prose but not its subsections. A result then *is* a section, and the ranking compares
sections, never a long page against a short one. Each document names the section's
address in its metadata (``section``): the search page links there.

Each section also holds, as text of its own, the questions that the questions page
links to it (:func:`questions_by_target`): the words readers ask in are indexed where
the answer is. The questions page's groups of questions are left out, so as not to
stand in front of the sections they lead to.

Code, printed output, folded setup and checks, and navigation are left out of the
index by Pagefind's own ``--exclude-selectors`` (:data:`EXCLUDE_SELECTORS`). The
served pages are not changed: Pagefind reads the documents in a folder of their own.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from lxml import html as lxml_html

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
#: The page whose links lend their words to the sections they lead to.
QUESTIONS_PAGE = "questions.html"
#: How much a question's words weigh in the section it leads to: as much as a
#: third-level heading's (Pagefind weighs ``h1`` 7, ``h2`` 6, ``h3`` 5, prose 1). The
#: questions page names, in readers' words, the question the section answers.
ASKED_WEIGHT = "5"
#: Between a section's heading and its page's title, in a result's title.
TITLE_JOIN = " · "

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _class(tag: str, name: str, axis: str = ".//") -> str:
    """XPath for the ``tag`` elements with class ``name`` (CSS's ``tag.name``)."""
    return (
        f"{axis}{tag}[contains(concat(' ', normalize-space(@class), ' '), ' {name} ')]"
    )


# ROOT_SELECTOR, for lxml (which needs the cssselect package for CSS).
_ARTICLE = _class("article", "bd-article", "//")


def _article(page: str) -> lxml_html.HtmlElement | None:
    found = lxml_html.document_fromstring(page).xpath(_ARTICLE)
    return found[0] if found else None


def _text(element: lxml_html.HtmlElement) -> str:
    """An element's text as a reader sees it: the heading's "#" link left out."""
    text = element.text_content()
    for link in element.xpath(_class("a", "headerlink")):
        text = text.replace(link.text_content(), "", 1)
    return " ".join(text.split())


def _own_html(element: lxml_html.HtmlElement) -> str:
    """``element`` as HTML, without the text that follows it (its ``tail``)."""
    return lxml_html.tostring(element, encoding="unicode", with_tail=False)


def _section_ids(section: lxml_html.HtmlElement) -> list[str]:
    """The section's id, then its labels' (``<span id>`` before its heading)."""
    ids = [section.get("id")]
    for child in section:
        if child.tag in _HEADINGS:
            break
        if child.tag == "span" and child.get("id"):
            ids.append(child.get("id"))
    return ids


def questions_by_target(
    page: str, page_name: str = QUESTIONS_PAGE
) -> dict[str, list[str]]:
    """Each ``page#anchor`` the questions page links to -> the questions leading there.

    Links are resolved against the questions page's own address; a link to a page's
    top is keyed by the page alone (``views.html``).
    """
    article = _article(page)
    found: dict[str, list[str]] = {}
    if article is None:
        return found
    for item in article.iter("li"):
        for link in item.xpath(_class("a", "internal") + "[@href]"):
            target = urlsplit(urljoin(page_name, link.get("href")))
            key = target.path + (f"#{target.fragment}" if target.fragment else "")
            found.setdefault(key, []).append(_text(link))
    return found


def section_documents(
    page: str, name: str, questions: Mapping[str, list[str]] | None = None
) -> dict[str, str]:
    """The documents Pagefind indexes for the built page ``page``, at ``name``.

    Returns each document's path (below the index's site folder) -> its HTML. Each
    holds one section: its heading (``heading``; the result's ``title`` adds the
    page's title after it), its address (``section``) and its own content, without its subsections; then the questions that lead
    to it. The questions page is only its title section.
    """
    questions = questions or {}
    article = _article(page)
    if article is None:
        return {}
    root = article.getroottree().getroot()
    lang = root.get("lang", "en")
    sections = article.xpath(".//section[@id]")
    if not sections:
        return {}
    page_title = _text(next(c for c in sections[0] if c.tag in _HEADINGS))
    stem = name.removesuffix(".html")
    documents: dict[str, str] = {}
    for place, section in enumerate(sections):
        ids = _section_ids(section)
        # The section's own children: its subsections are documents of their own.
        own = [c for c in section if c.tag != "section"]
        if name == QUESTIONS_PAGE and place:
            continue  # its groups of questions: indexed where each question leads
        heading = next((c for c in own if c.tag in _HEADINGS), None)
        if heading is None:
            continue
        title = heading_text = _text(heading)
        if place:
            title += TITLE_JOIN + page_title
        asked = [q for i in ids for q in questions.get(f"{name}#{i}", ())]
        if place == 0:
            asked += questions.get(name, [])
        meta = lxml_html.Element(
            "span",
            {
                "data-pagefind-meta": (
                    "title[data-title], heading[data-heading], section[data-section]"
                ),
                "data-title": title,
                "data-heading": heading_text,
                "data-section": f"{name}#{ids[0]}",
            },
        )
        parts = [lxml_html.tostring(meta, encoding="unicode")]
        parts += [_own_html(child) for child in own]
        for question in asked:
            asked_element = lxml_html.Element(
                "p", {"class": "asked", "data-pagefind-weight": ASKED_WEIGHT}
            )
            asked_element.text = question
            parts.append(lxml_html.tostring(asked_element, encoding="unicode"))
        document = (
            f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
            f'<title></title></head><body><article class="bd-article">{"".join(parts)}'
            "</article></body></html>"
        )
        documents[f"{stem}/{ids[0]}.html"] = document
    return documents


def index_is_current(pages: Iterable[Path], bundle: Path) -> bool:
    """Whether the index in ``bundle`` was written after every page in ``pages``.

    An unchanged rebuild writes no page, so it indexes nothing (nor reads a page).
    """
    entry = bundle / "pagefind-entry.json"
    if not entry.is_file():
        return False
    written = entry.stat().st_mtime
    return all(page.stat().st_mtime < written for page in pages)


def copy_for_index(pages: dict[str, Path], site: Path) -> int:
    """Write every section document of ``pages`` (``url path -> built file``) under
    ``site``; return how many were written."""
    texts = {name: path.read_text(encoding="utf-8") for name, path in pages.items()}
    questions = (
        questions_by_target(texts[QUESTIONS_PAGE]) if QUESTIONS_PAGE in texts else {}
    )
    written = 0
    for name, text in texts.items():
        for path, document in section_documents(text, name, questions).items():
            target = site / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(document, encoding="utf-8")
            written += 1
    return written


def pagefind_command(executable: Path, site: Path, bundle: Path) -> list[str]:
    """The Pagefind run that indexes the documents under ``site`` into ``bundle``."""
    return [
        str(executable),
        "--site", str(site),
        "--output-path", str(bundle),
        "--root-selector", ROOT_SELECTOR,
        "--exclude-selectors", ", ".join(EXCLUDE_SELECTORS),
        "--silent",
    ]  # fmt: skip


def build_index(executable: Path, pages: dict[str, Path], bundle: Path) -> int:
    """Index ``pages`` into ``bundle``, replacing the index that was there; return
    how many sections it holds.

    The documents live beside the bundle, in a folder removed afterwards: the index is
    written whole into a fresh folder, then moved into place, so a failed run leaves
    the last index.
    """
    work = bundle.parent / f".{bundle.name}-work"
    shutil.rmtree(work, ignore_errors=True)
    site, fresh = work / "site", work / "bundle"
    try:
        sections = copy_for_index(pages, site)
        subprocess.run(pagefind_command(executable, site, fresh), check=True)
        shutil.rmtree(bundle, ignore_errors=True)
        fresh.rename(bundle)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return sections
