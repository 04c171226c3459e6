"""Sphinx extension: the site's editions, English at the root and Simplified Chinese in
``zh_CN/``, each a build of the same sources (``site_build.config.edition_list``).

An edition's prose comes from Sphinx's gettext catalogues under ``locales/`` (one per
page, updated by ``nox -s translations``); its code and outputs are the English build's,
found in the same execution caches, and its figures are the English SVGs with their
words translated (``figure_text``). This extension:

- publishes an edition under its folder: base URL, the 404 page's links and text, the
  devices named in the footer and on the home page;
- gives every page a language switch to the same page in the other edition, and
  ``<link rel="alternate" hreflang>`` tags for every edition;
- shows a message of a page that has no translation yet in English, marked "not yet
  translated" (a fuzzy translation, whose source changed, counts as none: a stale
  translation is never shown as current), and reports the edition's coverage in the
  log and in ``build/translations/`` (``site_build.translation_report``): an English
  change never waits on its translation;
- fails the build where a page shows any other run of English words outside code, or
  markup as raw text (``site_build.english_text``);
- translates the site's own words (the matrix's headings and badges, the verdicts, the
  footer) from a catalogue of their own, ``site``, which ``-b gettext`` writes beside
  the pages' catalogues: ``SITE_MESSAGES`` lists where those words are;
- translates the gallery thumbnails' raw HTML from the example pages;
- gives Chinese search the glossary's terms as words (``jieba`` splits the text), with
  its stemmer named as Sphinx 9.0.4 defines it.
"""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.errors import ConfigError
from sphinx.util import logging
from sphinx.util.console import bold
from sphinx.util.nodes import extract_messages

from site_build import tested_versions, translation_report
from site_build.config import site_facts, site_url
from site_build.config.edition_list import BY_LANGUAGE, EDITIONS, ENGLISH, Edition
from site_build.config.edition_list import translation_report as translation_report_path
from site_build.english_text import english_runs, raw_markup
from site_build.site_words import CATALOG, _

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "locales"
#: Python files whose ``_()`` and ``N_()`` strings are the ``site`` catalogue.
SITE_MESSAGES = (
    ROOT / "semantics" / "catalogue.py",
    ROOT / "semantics" / "release_facts.py",
    ROOT / "site_build" / "config" / "site_facts.py",
    *sorted((ROOT / "site_build" / "extensions").glob("*.py")),
)
#: English runs reported per page; the rest are counted.
ENGLISH_RUNS_SHOWN = 5
#: Words of the theme's templates that its own catalogues leave untranslated in an
#: edition of this site: translated in ``sphinx.po`` with the site's templates.
THEME_MESSAGES = (
    "Color mode",
    "More",  # the navbar's dropdown of the links that do not fit
    "System Settings",
    "Breadcrumb",
    "© Copyright %(copyright)s.",
    # Translated by Sphinx's and the theme's own catalogues, but without the space
    # Chinese sets before a Latin word and with an ASCII full stop (…9.0.4创建。).
    'Created using <a href="https://www.sphinx-doc.org/">Sphinx</a> %(sphinx_version)s.',
    'Built with the <a href="%(PST_url)s">PyData Sphinx Theme</a> %(theme_version)s.',
)
#: The glossary page: its Chinese terms are words for the search index.
GLOSSARY = ROOT / "docs" / "glossary.md"


def edition_of(config: Config) -> Edition:
    try:
        return BY_LANGUAGE[config.language]
    except KeyError:
        allowed = ", ".join(sorted(BY_LANGUAGE))
        raise ConfigError(
            f"language={config.language!r}: this site has editions in {allowed}"
        ) from None


def _configure(app: Sphinx, config: Config) -> None:
    edition = edition_of(config)
    facts = site_facts.verified_with()
    names = [str(name) for name in facts["verified_devices"]]
    in_words = {
        "page_device": site_facts.in_words(names[-1:], _),
        "devices_in_words": site_facts.in_words(names, _),
    }
    config.html_context = {**config.html_context, **in_words}
    config.myst_substitutions = {
        **config.myst_substitutions,
        "page_device": in_words["page_device"],
        "verified_devices": in_words["devices_in_words"],
    }
    config.html_context["editions"] = EDITIONS
    if edition is ENGLISH:
        return
    config.html_title = config.project = str(_("PyTorch copy semantics"))
    if config.html_theme == "pydata_sphinx_theme":  # the option is that theme's
        config.html_theme_options = {
            **config.html_theme_options,
            "search_bar_text": str(_("Search the docs ...")),
        }
    english_author = config.author
    config.author = str(_("The torch-copy-semantics authors"))
    year, comma, owner = config.copyright.partition(", ")
    if comma and owner == english_author:
        # "2026, authors": the comma is the English one; an edition sets its own.
        config.copyright = str(_("{year}, {author}")).format(
            year=year, author=config.author
        )
    else:
        config.copyright = config.copyright.replace(english_author, config.author)
    source = config.myst_substitutions.get("source_repository", "")
    words = str(_("source repository"))
    config.myst_substitutions["source_repository"] = source.replace(
        "source repository", words
    )
    config.html_baseurl = config.ogp_site_url = (
        f"{config.html_baseurl}{edition.folder}/"
    )
    prefix = config.notfound_urls_prefix = site_url.path_prefix(config.html_baseurl)
    home_page = _("home page")
    home = f'<a href="{prefix}index.html">{home_page}</a>'
    config.notfound_context = {
        "title": _("Page not found"),
        "body": f"<h1>{_('Page not found')}</h1>\n<p>"
        + _("There is no page at this address. Start again from the {home}, or use "
            "the search box above.").format(home=home)
        + "</p>",
    }  # fmt: skip
    if config.language.startswith("zh"):
        import jieba  # Sphinx's Chinese search splits words with it

        jieba.setLogLevel("WARNING")  # not its four lines of loading the dictionary
        dictionary = Path(app.doctreedir) / "search-words.txt"
        dictionary.parent.mkdir(parents=True, exist_ok=True)
        dictionary.write_text(
            "".join(f"{word} 100000 n\n" for word in glossary_terms()), encoding="utf-8"
        )
        config.html_search_options = {"dict": str(dictionary)}


def glossary_terms(path: Path = GLOSSARY) -> list[str]:
    """The Chinese terms of the glossary's table (its second column), one per word."""
    terms = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and not set(cells[1]) <= {"-"}:
            terms += [term.strip() for term in cells[1].split("、")]
    return [term for term in terms if term and not term.isascii()]


def page_url(edition: Edition, pagename: str) -> str:
    """The path of ``pagename`` of ``edition`` from the site's root."""
    return f"{edition.folder}/{pagename}.html" if edition.folder else f"{pagename}.html"


def _add_links(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """The language switch's links, relative, and hreflang tags, absolute."""
    this = edition_of(app.config)
    depth = pagename.count("/") + (1 if this.folder else 0)
    up = "../" * depth
    root = site_url.base_url()
    context["edition_links"] = [
        (edition, up + page_url(edition, pagename), edition is this)
        for edition in EDITIONS
    ]
    tags = "".join(
        f'<link rel="alternate" hreflang="{edition.hreflang}" '
        f'href="{root}{page_url(edition, pagename)}" />\n'
        for edition in EDITIONS
    )
    tags += f'<link rel="alternate" hreflang="x-default" href="{root}{page_url(ENGLISH, pagename)}" />\n'
    context["metatags"] = context.get("metatags", "") + tags


#: A thumbnail of Sphinx-Gallery's index: raw HTML holding the example's first
#: paragraph (the tooltip) and title, in English, around a link to the example.
THUMBNAIL = re.compile(
    r'(<div class="sphx-glr-thumbcontainer" tooltip=")[^"]*(">.*?'
    r'<a class="reference internal" href="(?P<href>[^"#]+)\.html".*?'
    r'<div class="sphx-glr-thumbnail-title">).*?(</div>)',
    re.DOTALL,
)


def _first_paragraph(section: nodes.section) -> nodes.paragraph:
    """A section's first paragraph: its answer's, when it opens with one (the
    paragraph Sphinx-Gallery made the thumbnail's text)."""
    # Imported here: the answers extension imports the verdicts, which import this.
    from site_build.extensions.answers import CLASS as ANSWER

    for child in section.children:
        if isinstance(child, nodes.container) and ANSWER in child["classes"]:
            child = child.children[0]
        if isinstance(child, nodes.paragraph):
            return child
    raise ValueError(f"{section.source}: a gallery page without a paragraph")


def _translate_thumbnails(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """In an edition other than English, the gallery's thumbnails show each example's
    title and first paragraph as its own page shows them, translated."""
    if edition_of(
        app.config
    ) is ENGLISH or "sphx-glr-thumbcontainer" not in context.get("body", ""):
        return

    def translated(match: re.Match) -> str:
        docname = posixpath.normpath(
            posixpath.join(posixpath.dirname(pagename), match["href"])
        )
        example = app.env.get_doctree(docname)
        section = next(example.findall(nodes.section))  # the note before it links
        first = _first_paragraph(section)
        title = app.env.titles[docname].astext()
        return f"{match[1]}{html.escape(first.astext())}{match[2]}{html.escape(title)}{match[4]}"

    context["body"] = THUMBNAIL.sub(translated, context["body"])


def _check_english(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """In an edition other than English, no English sentence is left on a page.

    The catalogues cover the pages' own text; this finds what reaches a page another
    way (text an extension writes, a message missing from every catalogue).
    """
    if edition_of(app.config) is ENGLISH or doctree is None:
        return
    text = context.get("title", "") + " " + context.get("body", "")
    # Messages not yet translated are English on purpose, wherever their text goes:
    # a heading reaches the page's table of contents and its neighbours' links.
    marked = [
        item.text
        for _messages, untranslated in _coverage(app.env).values()
        for item in untranslated
    ]
    for markup in raw_markup(text)[:ENGLISH_RUNS_SHOWN]:
        logger.warning(
            "markup shown as text on a %s page: %r (in reStructuredText, set inline "
            "markup off with spaces)",
            app.config.language,
            markup,
            location=pagename,
            type="editions",
            subtype="markup",
        )
    runs = [run for run in english_runs(text) if not any(run in m for m in marked)]
    for run in runs[:ENGLISH_RUNS_SHOWN]:
        logger.warning(
            "English text on a %s page: %r (a message missing from every catalogue: "
            "run nox -s translations, then see locales/TRANSLATING.md)",
            app.config.language,
            run,
            location=pagename,
            type="editions",
            subtype="english",
        )
    if len(runs) > ENGLISH_RUNS_SHOWN:
        logger.warning(
            "%d more English runs on this page",
            len(runs) - ENGLISH_RUNS_SHOWN,
            location=pagename,
            type="editions",
            subtype="english",
        )


#: The classes of a message an edition shows in English: ``language-en`` becomes
#: ``lang="en"`` in the HTML (docutils' convention), ``untranslated`` draws the mark
#: (``conf/_static/site.css``).
UNTRANSLATED_CLASSES = ("untranslated", "language-en")
#: Messages left in English listed in the build's log; the report lists them all.
UNTRANSLATED_SHOWN = 10


def _mark_untranslated(app: Sphinx, doctree: nodes.document) -> None:
    """In an edition other than English, a message of a page that has no translation
    (or a fuzzy one) is shown in English, marked, and counted for the coverage report.

    Run once the page is read, when its front matter (metadata, never shown) is gone.
    Sphinx's Locale transform marks each message ``translated`` or not.
    """
    from sphinx.builders.gettext import MessageCatalogBuilder

    if edition_of(app.config) is ENGLISH or isinstance(
        app.builder, MessageCatalogBuilder
    ):
        return
    page = app.env.doc2path(app.env.docname, base=False).as_posix()
    if not any("translated" in node for node in doctree.findall(nodes.Element)):
        # A page with no catalogue yet, such as a new one: Sphinx marks nothing.
        for node, _message in extract_messages(doctree):
            node["translated"] = False
    messages, untranslated = 0, []
    for node in doctree.findall(nodes.Element):
        if "translated" not in node or not node.astext().strip():
            continue
        messages += 1
        if not node["translated"]:
            node["classes"] += [
                c for c in UNTRANSLATED_CLASSES if c not in node["classes"]
            ]
            text = " ".join(node.astext().split())
            untranslated.append(translation_report.Untranslated(page, node.line, text))
    _coverage(app.env)[app.env.docname] = (messages, untranslated)


def _coverage(env: BuildEnvironment) -> dict[str, tuple[int, list]]:
    """Per page: how many messages it has, and those left in English."""
    if not hasattr(env, "translation_coverage"):
        env.translation_coverage = {}  # type: ignore[attr-defined]
    return env.translation_coverage  # type: ignore[attr-defined]


def _purge_coverage(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _coverage(env).pop(docname, None)


def _merge_coverage(
    app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment
) -> None:
    """Parallel reading: each process counted its own pages."""
    theirs = _coverage(other)
    _coverage(env).update({name: theirs[name] for name in docnames if name in theirs})


def _report_coverage(app: Sphinx, exception: Exception | None) -> None:
    """Every build of an edition reports its coverage, in its log and in the report
    ``nox -s translation_coverage`` reads; the pages left unread count as before."""
    if exception or edition_of(app.config) is ENGLISH or app.builder.name != "html":
        return
    report = translation_report.Report(app.config.language)
    for docname in sorted(_coverage(app.env)):
        messages, untranslated = _coverage(app.env)[docname]
        report.messages += messages
        report.untranslated += untranslated
    translation_report.write(
        translation_report_path(Path(app.doctreedir).parent, edition_of(app.config)),
        report,
    )
    logger.info(bold(report.summary()))
    if report.untranslated:
        for line in report.listing(UNTRANSLATED_SHOWN):
            logger.info("  shown in English, marked: %s", line)
        logger.info(
            "  %d messages not yet translated: %s",
            len(report.untranslated),
            translation_report.HOW_TO_TRANSLATE,
        )


def _extract_site_messages(app: Sphinx) -> None:
    """In a gettext build: the site's own words into ``site.pot``, and its templates'
    into ``sphinx.pot``.

    Sphinx's gettext builder looks for templates under the source folder only; this
    site's are in the configuration folder (``sphinx-build -c conf``).
    """
    from babel.messages.extract import extract_from_file
    from sphinx.builders.gettext import MsgOrigin

    if app.builder.name != "gettext":
        return
    catalogs = app.builder.catalogs  # type: ignore[attr-defined]
    for path in SITE_MESSAGES:
        for line, text, _comments, _context in extract_from_file(
            "python", str(path), keywords={"_": None, "N_": None}
        ):
            catalogs[CATALOG].add(text, MsgOrigin(str(path.relative_to(ROOT)), line))
    for message in THEME_MESSAGES:
        catalogs["sphinx"].add(message, MsgOrigin("pydata_sphinx_theme", 0))
    extract = app.builder.templates.environment.extract_translations  # type: ignore[attr-defined]
    for folder in app.config.templates_path:
        for template in sorted(Path(app.confdir, folder).glob("*.html")):
            text = template.read_text(encoding="utf-8")
            for line, _function, message in extract(text):
                origin = MsgOrigin(str(template.relative_to(ROOT)), line)
                catalogs["sphinx"].add(message, origin)


def _site_catalogue(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{CATALOG}.po"


def _compile_site_catalogue(language: str) -> None:
    """Compile ``site.po`` of ``language`` now, if it changed: Sphinx compiles the
    catalogues when the build starts, after the extensions have loaded theirs."""
    from sphinx.util.i18n import CatalogInfo

    info = CatalogInfo(_site_catalogue(language).parent, CATALOG, "utf-8")
    if Path(info.po_path).is_file() and info.is_outdated():
        info.write_mo(language)


def _depend_on_site_catalogue(app: Sphinx, doctree: nodes.document) -> None:
    """A page of an edition other than English is read again when ``site.po``
    changes: the matrix, the verdicts and the folded code's summaries use it."""
    if edition_of(app.config) is not ENGLISH:
        app.env.note_dependency(str(_site_catalogue(app.config.language)))


#: What the Chinese search's fix relies on in Sphinx, and when to remove it.
CHINESE_SEARCH = "the Chinese search's stemmer name (editions._chinese_search)"
CHINESE_SEARCH_FIXED = (
    "if this release has sphinx-doc/sphinx#14416, which fixes sphinx-doc/sphinx#14229, "
    "remove editions._chinese_search"
)


def _chinese_search() -> type:
    """Sphinx's Chinese search, with its page's stemmer named as it is defined.

    Sphinx 9.0.4 ships the English stemmer for Chinese text but calls it by the
    language's name, ``ChineseStemmer``: the search page throws and finds nothing
    (sphinx-doc/sphinx#14229; fixed upstream by #14416, which names the class after
    its file, in no release up to the pinned one). The language's name is what Sphinx
    9.0.4 builds that class name from. Another Sphinx is refused, saying when to remove
    this; ``tests/test_translations.py`` checks that a Chinese build's search defines
    the stemmer class it names, and that the pinned Sphinx still needs this.
    """
    tested_versions.require_tested("sphinx", CHINESE_SEARCH, CHINESE_SEARCH_FIXED)
    from sphinx.search.zh import SearchChinese

    class SearchChineseStemmedInEnglish(SearchChinese):
        language_name = "English"

    return SearchChineseStemmedInEnglish


def setup(app: Sphinx) -> dict[str, object]:
    chinese = _chinese_search()  # first: its version guard
    app.add_search_language(chinese)
    if app.config.language != ENGLISH.language:
        _compile_site_catalogue(app.config.language)
    app.add_message_catalog(CATALOG, str(LOCALES))
    app.connect("doctree-read", _depend_on_site_catalogue)
    app.connect("config-inited", _configure, priority=300)
    app.connect("html-page-context", _add_links)
    app.connect("html-page-context", _translate_thumbnails)
    app.connect("html-page-context", _check_english, priority=900)
    app.connect("builder-inited", _extract_site_messages)
    # After Sphinx's collectors (500), which remove the front matter.
    app.connect("doctree-read", _mark_untranslated, priority=600)
    app.connect("env-purge-doc", _purge_coverage)
    app.connect("env-merge-info", _merge_coverage)
    app.connect("build-finished", _report_coverage)
    # A new env_version makes Sphinx read every page again: the coverage is kept there.
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
