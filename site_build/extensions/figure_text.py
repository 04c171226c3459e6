"""Sphinx extension: the words inside the figures, in the edition's language.

Every figure is an SVG whose words are text (``site_build.svg_figures``). So an
edition translates them without running any code again:

- the gettext build (``nox -s translations``) writes every figure's words
  (``site_build.figure_messages``) and its description (``figure_alt``) into one
  catalogue, ``figures.pot``, which ``sphinx-intl`` turns into each edition's
  ``figures.po``;
- the build of an edition other than English, once it has copied the English
  figures, writes its own copy of each with its words translated from that
  catalogue. A word without a translation (or with a fuzzy one) stays English and
  is counted in the edition's coverage (``editions``), as a page's message is.
"""

from __future__ import annotations

import functools
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from site_build import figure_messages, translation_report
from site_build.config.edition_list import ENGLISH

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "locales"
CATALOGUE = "figures"


def catalogue_path(language: str, locales: Path = LOCALES) -> Path:
    return locales / language / "LC_MESSAGES" / f"{CATALOGUE}.po"


@functools.cache
def _read(path: Path, changed: int) -> dict[str, str]:
    from babel.messages.pofile import read_po

    with path.open("rb") as file:
        catalog = read_po(file)
    return {
        str(m.id): str(m.string)
        for m in catalog
        if m.id and isinstance(m.string, str) and m.string.strip() and not m.fuzzy
    }


def translations(language: str, locales: Path = LOCALES) -> dict[str, str]:
    """English message -> its translation, for every message ``language`` has
    translated and not marked fuzzy; empty for English."""
    path = catalogue_path(language, locales)
    if language == ENGLISH.language or not path.is_file():
        return {}
    return _read(path, path.stat().st_mtime_ns)


def _svg(app: Sphinx, node: nodes.Element) -> Path | None:
    """The English SVG file a figure's node shows, if it is one."""
    from site_build.extensions.figure_alt import sphinx_gallery_image

    uri = (
        node["uri"]
        if sphinx_gallery_image(node)
        else node.get("candidates", {}).get("*", node["uri"])
    )
    path = Path(app.srcdir, uri.lstrip("/"))
    return path if path.suffix == ".svg" and path.is_file() else None


def extract(app: Sphinx, docname: str, node: nodes.Element, description: str) -> None:
    """In a gettext build: a figure's description and words into ``figures.pot``.

    ``figure_alt`` calls it for each figure it describes, while the page's figures are
    all still there: MyST-NB later keeps one of an output's forms, and for a
    catalogue that is its text.
    """
    from sphinx.builders.gettext import MsgOrigin

    catalog = app.builder.catalogs[CATALOGUE]  # type: ignore[attr-defined]
    origin = MsgOrigin(str(app.env.doc2path(docname, base=False)), node.line or 0)
    catalog.add(description, origin)
    svg = _svg(app, node)
    for message in figure_messages.messages(svg.read_text("utf-8")) if svg else []:
        catalog.add(message, origin)


def figures(app: Sphinx) -> list[tuple[Path, str, bool]]:
    """Every figure SVG the build copied: its English file, its page, and whether it
    is a figure of its own (not a gallery thumbnail, which repeats one)."""
    found = [
        (Path(app.srcdir, path), sorted(docnames)[0], "/thumb/" not in path)
        for path, (docnames, _name) in app.env.images.items()
        if path.endswith(".svg")
    ]
    for gallery in app.config.sphinx_gallery_conf.get("gallery_dirs", []):
        for svg in sorted(Path(app.srcdir, gallery, "images").glob("sphx_glr_*.svg")):
            stem = svg.stem.removeprefix("sphx_glr_").rsplit("_", 1)[0]
            found.append((svg, f"{gallery}/{stem}", True))
    return found


def _translate_figures(app: Sphinx, exception: Exception | None) -> None:
    """In an edition other than English: its copies of the figures, translated."""
    from site_build.extensions.editions import _coverage

    if (
        exception
        or app.config.language == ENGLISH.language
        or app.builder.format != "html"
    ):
        return
    lookup = translations(app.config.language)
    images = Path(app.outdir, app.builder.imagedir)
    coverage = _coverage(app.env)
    for key in [key for key in coverage if key.startswith(f"{CATALOGUE}:")]:
        del coverage[key]
    for english, docname, counted in figures(app):
        target = images / english.name
        if not target.is_file():
            continue  # not on any page of this build
        svg = english.read_text(encoding="utf-8")
        translated, untranslated = figure_messages.translate(svg, lookup.get)
        target.write_text(translated, encoding="utf-8")
        if counted:
            page = f"{app.env.doc2path(docname, base=False)} (figure {english.name})"
            coverage[f"{CATALOGUE}:{english.name}"] = (
                len(figure_messages.messages(svg)),
                [translation_report.Untranslated(page, None, m) for m in untranslated],
            )


def setup(app: Sphinx) -> dict[str, object]:
    # Before editions reports the coverage (at the default priority, 500).
    app.connect("build-finished", _translate_figures, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
