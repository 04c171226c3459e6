"""The site's editions: one per language, each a Sphinx build of the same sources.

The English edition is the site's root; every other edition is built into a folder of
its own below it, named by its language code. Standard library only: nox reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edition:
    language: str  # Sphinx's ``language``
    hreflang: str  # the BCP 47 tag of ``<link rel="alternate" hreflang=...>``
    name: str  # in its own language, for the language switch
    folder: str  # below the site's root, "" for the root itself


ENGLISH = Edition("en", "en", "English", "")
CHINESE = Edition("zh_CN", "zh-Hans", "简体中文", "zh_CN")
#: In build order: the English build runs the code; the others reuse its results.
EDITIONS = (ENGLISH, CHINESE)
BY_LANGUAGE = {edition.language: edition for edition in EDITIONS}


def html_dir(build: Path, edition: Edition) -> Path:
    """Where ``edition``'s pages are written."""
    return build / "html" / edition.folder if edition.folder else build / "html"


def doctree_dir(build: Path, edition: Edition) -> Path:
    """Where ``edition``'s doctrees go: beside the English ones, so that the caches
    kept next to those (code links, measurements) serve every edition."""
    return build / (
        "doctrees" if edition is ENGLISH else f"doctrees-{edition.language}"
    )


def translation_report(build: Path, edition: Edition) -> Path:
    """Where ``edition``'s build lists the messages it shows untranslated, in English
    (``site_build.translation_report``)."""
    return build / "translations" / f"{edition.language}.json"
