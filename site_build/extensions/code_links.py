"""Sphinx extension: exactly one tool links the names in each code block to API docs.

Sphinx-Gallery links the code of gallery pages itself, from the same intersphinx
inventories; sphinx-codeautolink links the code everywhere else. Letting both rewrite a
gallery block makes codeautolink fail to find its names again, so gallery pages are
marked for codeautolink to skip. A skipped page still has its whole HTML parsed and
rewritten by codeautolink's last pass (about a fifth of a second per gallery page), so
that pass is not run for gallery pages at all.

To find where a name in code is documented, codeautolink imports the module it comes
from and follows attributes and annotations; for torch that means importing torch and
running the parts of its modules written only for type checkers (dynamo and more), a few
seconds in the build process whenever any page is read again. The answers depend only on
the name, the inventories and the installed packages, so they are kept between builds
under a key of those, beside the execution caches; a name from anywhere else (a module
of this project, say) is resolved afresh every time. Likewise a page's linked code is
kept under a key of everything codeautolink's HTML pass reads (the page's code blocks
as HTML and as source, the names in them and where they link), unless the pass warned;
the pass is given the code blocks alone, which every edition of a page shares.

Parsing the code is the other slow part: codeautolink parses each block together with
all the code before it on the page, about a quarter of a full build. What it finds in a
block depends only on that text and the installed packages, so it is kept per page, under
a digest of the text, in a file keyed like the answers; a block whose parsing warned is
parsed again every time, so that the warning comes again.

Folded checks and drawing code are not linked at all: codeautolink parses each block
together with all the code before it on the page, a cost that grows with the square of
the code, and the checks are about half of it.

The caching replaces three functions of codeautolink's (``PATCHED``), which works only
while codeautolink looks them up in its modules at each call: ``setup`` refuses any
version of it but the pinned one. ``tests/test_small_sites.py`` is the integration
test: a rebuild answers every name and every block's parse from the caches (the lines
this logs say how many), and a page read again takes its links from the cache without
rewriting it.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import json
import logging
import os
import re
import sys
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path

import sphinx_codeautolink
import sphinx_codeautolink.extension as codeautolink
import sphinx_codeautolink.extension.block as codeautolink_block
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError
from sphinx.util import logging as sphinx_logging
from sphinx_codeautolink.extension.directive import SkipMarker
from sphinx_codeautolink.parse import LinkContext, Name, NameBreak

from site_build import tested_versions
from site_build.atomic_write import write_whole
from site_build.folding_rule import folded_title
from site_build.gallery import is_gallery_page

logger = sphinx_logging.getLogger(__name__)
#: What this extension replaces or re-registers in sphinx-codeautolink.
PATCHED = (
    "code_links (it replaces sphinx_codeautolink.extension.resolve_location, link_html "
    "and block.parse_names, and re-registers SphinxCodeAutoLink.apply_links)"
)

SKIP_FILE = ".. autolink-skip:: file\n\n"


#: File-wide metadata (``:orphan:``) at the top of a page: it must stay first.
_METADATA = re.compile(r"(?:[ \t]*:[\w-]+:.*\n)*")


def marked_for_skipping(text: str) -> str:
    """The page's source with codeautolink's skip directive after its metadata."""
    metadata = _METADATA.match(text).group(0)  # type: ignore[union-attr]
    return metadata + ("\n" if metadata else "") + SKIP_FILE + text[len(metadata) :]


def _mark_gallery_pages(app: Sphinx, docname: str, source: list[str]) -> None:
    if is_gallery_page(docname, app.config.sphinx_gallery_conf["gallery_dirs"]):
        source[0] = marked_for_skipping(source[0])


#: The handler of sphinx-codeautolink that writes the links into each page's HTML.
HTML_PASS = "SphinxCodeAutoLink.apply_links"


def _not_on_gallery_pages(
    app: Sphinx, handler: Callable[..., None]
) -> Callable[..., None]:
    def apply_links(app: Sphinx, pagename: str, *args: object) -> None:
        gallery_dirs = app.config.sphinx_gallery_conf["gallery_dirs"]
        if not is_gallery_page(pagename, gallery_dirs):
            handler(app, pagename, *args)

    return apply_links


def _skip_gallery_pages_in_html_pass(app: Sphinx) -> None:
    for listener in app.events.listeners.get("html-page-context", []):
        if getattr(listener.handler, "__qualname__", "") == HTML_PASS:
            app.disconnect(listener.id)
            app.connect(
                "html-page-context",
                _not_on_gallery_pages(app, listener.handler),
                priority=listener.priority,
            )
            return
    # Renamed in a new release: fail rather than silently slow every build down.
    raise ExtensionError(f"code_links: no {HTML_PASS} handler to restrict")


@functools.cache
def _installed_packages() -> str:
    """Every installed distribution, by its metadata folder's name.

    The folder's name holds the distribution's name and version (the packaging
    specification's ``{name}-{version}.dist-info``): listing the folders is a hundredth
    of the time that reading every distribution's metadata takes.
    """
    found = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # a zip file or a folder that is not there
            continue
        found.update(n for n in names if n.endswith((".dist-info", ".egg-info")))
    return "\n".join(sorted(found))


@functools.cache
def _environment_digest() -> str:
    """What codeautolink's answers depend on besides its input: Python and the packages
    installed."""
    digest = hashlib.sha256(f"{sys.version}\n{_installed_packages()}".encode())
    return digest.hexdigest()[:16]


@functools.cache
def _is_installed(module: str) -> bool:
    """Whether a top-level name is a builtin, the standard library's or an installed
    package's: what the cache key covers."""
    if module in sys.stdlib_module_names or hasattr(builtins, module):
        return True
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    origin = spec.origin or next(iter(spec.submodule_search_locations or []), "")
    installed = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    return any(Path(origin).is_relative_to(folder) for folder in installed)


class ResolutionCache:
    """codeautolink's answers for name chains: one JSON file per Python and set of
    installed packages, holding the answers for one set of inventories."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.inventory: str | None = None  # the digest of the inventories, once open
        self.answers: dict[str, list[str | None]] = {}
        self.unsaved = False
        #: This build's names answered from the cache, and resolved by codeautolink.
        self.answered = self.resolved = 0

    @functools.cached_property
    def path(self) -> Path:
        return self.folder / f"{_environment_digest()}.json"

    def open(self, inventory: dict[str, str]) -> None:
        """Load the answers kept for these inventories."""
        self.inventory = hashlib.sha256(
            "\n".join(sorted(inventory)).encode()
        ).hexdigest()
        try:
            kept = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or cut short: resolve again
            kept = {}
        same = kept.get("inventory") == self.inventory
        self.answers = kept.get("answers", {}) if same else {}

    def wrap(self, resolve: Callable[..., str | None]) -> Callable[..., str | None]:
        """Return ``resolve`` answering from, and adding to, this cache."""

        def resolve_location(chain: codeautolink.Name, inventory: dict) -> str | None:
            components = [str(c) for c in chain.import_components]
            if not components or not _is_installed(components[0]):
                return resolve(chain, inventory)
            if self.inventory is None:
                self.open(inventory)
            key = "\x1f".join(components)
            if key in self.answers:
                self.answered += 1
            else:
                self.resolved += 1
                try:
                    self.answers[key] = [resolve(chain, inventory), None]
                except codeautolink.CouldNotResolve as error:
                    self.answers[key] = [None, str(error)]
                self.unsaved = True
            location, error = self.answers[key]
            if error is not None:
                raise codeautolink.CouldNotResolve(error)
            return location

        resolve_location.__wrapped__ = resolve  # type: ignore[attr-defined]
        return resolve_location

    def save(self, app: Sphinx, env: BuildEnvironment) -> None:
        """Keep what this build resolved for the next one, and say how many names the
        cache answered (the integration test reads that line)."""
        if self.answered or self.resolved:
            logger.info(
                f"code_links: {self.answered} names answered from {self.folder}, "
                f"{self.resolved} resolved by codeautolink"
            )
        self.answered = self.resolved = 0
        if self.unsaved:
            document = {"inventory": self.inventory, "answers": self.answers}
            write_whole(self.path, json.dumps(document))
            self.unsaved = False
        self.inventory = None  # the next build in this process may have others


class _Warnings(logging.Handler):
    """Notes whether codeautolink warned while it was attached."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen = False

    def emit(self, record: logging.LogRecord) -> None:
        self.seen = True


@contextlib.contextmanager
def _codeautolink_warnings() -> Iterator[_Warnings]:
    """Note whether codeautolink warns inside the block: what it did then is not kept,
    so that the warning comes again in the next build."""
    warnings = _Warnings()
    codeautolink_logger = logging.getLogger("sphinx.sphinx_codeautolink")
    codeautolink_logger.addHandler(warnings)
    try:
        yield warnings
    finally:
        codeautolink_logger.removeHandler(warnings)


class ParsedNameCache:
    """The names codeautolink's parser found in each code block of a page, kept in one
    file per page under a digest of the text it parsed (the block and all the code
    before it on the page).

    A page is read in one process, from its ``doctree-read`` to the next page's, so each
    process keeps the page it reads; what each page took from the file is noted in the
    environment, which Sphinx brings back from the processes that read in parallel.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.document: str | None = None
        self.kept: dict[str, list[list]] = {}  # the page's file: digest -> names
        self.used: dict[str, list[list]] = {}  # what this reading asked for
        self.answered = self.parsed = 0
        self.reading: set[str] = set()

    def path(self, document: str) -> Path:
        return (
            self.folder / f"{hashlib.sha256(document.encode()).hexdigest()[:16]}.json"
        )

    def begin(self, app: Sphinx, doctree: nodes.document) -> None:
        """Before codeautolink reads a page's code: open the page's file."""
        self.document = app.env.docname
        try:
            kept = json.loads(self.path(self.document).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or cut short: parse again
            kept = {}
        same = kept.get("key") == _environment_digest()
        self.kept = kept.get("blocks", {}) if same else {}
        self.used = {}
        self.answered = self.parsed = 0

    def end(self, app: Sphinx, doctree: nodes.document) -> None:
        """After codeautolink read the page's code: keep what it parsed, and only the
        blocks the page still has."""
        if self.document is None:
            return
        if self.used != self.kept:
            document = {"key": _environment_digest(), "blocks": self.used}
            write_whole(self.path(self.document), json.dumps(document))
        counts = getattr(app.env, "code_links_parsed", {})
        counts[self.document] = (self.answered, self.parsed)
        app.env.code_links_parsed = counts  # type: ignore[attr-defined]
        self.document = None

    def wrap(self, parse_names: Callable[..., list[Name]]) -> Callable[..., list[Name]]:
        """Return ``parse_names`` answering from, and adding to, the page's file."""

        def cached_parse_names(source: str, doctree_node: object) -> list[Name]:
            if self.document is None:  # not while a page is read: nothing to key it by
                return parse_names(source, doctree_node)
            digest = hashlib.sha256(source.encode()).hexdigest()
            if digest in self.kept:
                self.answered += 1
                self.used[digest] = self.kept[digest]
                return [_name(fields) for fields in self.kept[digest]]
            with _codeautolink_warnings() as warnings:
                names = parse_names(source, doctree_node)
            self.parsed += 1
            if not warnings.seen:
                # Copied now: codeautolink moves the names' lines once they are back.
                self.used[digest] = [_fields(name) for name in names]
            return names

        cached_parse_names.__wrapped__ = parse_names  # type: ignore[attr-defined]
        return cached_parse_names

    def before_reading(
        self, app: Sphinx, env: BuildEnvironment, docnames: list[str]
    ) -> None:
        self.reading = set(docnames)

    def report(self, app: Sphinx, env: BuildEnvironment) -> None:
        """Say how many blocks the pages read in this build took from their files (the
        integration test reads that line)."""
        counts = getattr(env, "code_links_parsed", {})
        read = [counts[d] for d in self.reading if d in counts]
        if read:
            logger.info(
                f"code_links: {sum(a for a, _ in read)} code blocks' names answered "
                f"from {self.folder}, {sum(p for _, p in read)} parsed by codeautolink"
            )
        self.reading = set()


def _fields(name: Name) -> list:
    """A name as the cache keeps it: its fields in order, the context by its value.

    A page's blocks are each parsed with all the code before them, so a page holds
    the names of its first blocks many times over: the shortest form keeps the files
    small and quick to read. A mark that breaks a chain (a call, say) is a one-item
    list: codeautolink gives some as enumeration members and some as plain text.
    """
    fields = [getattr(name, field.name) for field in dataclasses.fields(name)]
    fields[0] = [[c.value] if isinstance(c, NameBreak) else c for c in fields[0]]
    return fields


def _name(fields: list) -> Name:
    """A name as codeautolink's parser returns it, from what the cache kept."""
    name = Name(*fields)
    if name.context is not None:
        name.context = LinkContext(name.context)
    name.import_components = [
        NameBreak(c[0]) if isinstance(c, list) else c for c in name.import_components
    ]
    return name


def _purge_parsed(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    getattr(env, "code_links_parsed", {}).pop(docname, None)


def _merge_parsed(
    app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment
) -> None:
    counts = getattr(env, "code_links_parsed", {})
    counts.update(
        (d, n)
        for d, n in getattr(other, "code_links_parsed", {}).items()
        if d in docnames
    )
    env.code_links_parsed = counts  # type: ignore[attr-defined]


#: A code block as Sphinx writes it, Pygments' ``<pre>`` in a ``highlight-LANGUAGE``
#: division: all of a page that codeautolink's HTML pass changes.
CODE_BLOCK = re.compile(
    r'<div class="highlight-[^"]*"><div class="highlight"><pre>.*?</pre></div>\s*</div>',
    re.DOTALL,
)
#: Between the code blocks of a page, given to codeautolink as one document.
BLOCK_SEPARATOR = "\n<!-- code-links: next block -->\n"


class LinkedPageCache:
    """The code blocks of each page as codeautolink's HTML pass linked them.

    The pass is given a page's code blocks only, not the prose around them: that is
    all it changes, parsing the rest costs most of its time, and the blocks are the
    same in every edition of the site, so that the other editions find them linked.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def key(
        document: str, html: str, transforms: list, inventory: dict, *args: object
    ) -> str:
        """A digest of everything codeautolink's HTML pass reads, but its own code."""
        blocks = [
            [
                transform.source,
                [
                    [
                        *map(str, dataclasses.astuple(name)),
                        inventory[name.resolved_location],
                    ]
                    for name in transform.names
                ],
            ]
            for transform in transforms
        ]
        settings = [
            sorted(arg) if isinstance(arg, dict | list) else repr(arg) for arg in args
        ]
        # codeautolink's version is in the cache's folder name.
        text = json.dumps([document, html, blocks, settings], default=repr)
        return hashlib.sha256(text.encode()).hexdigest()

    def wrap(self, link_html: Callable[..., str]) -> Callable[..., str]:
        """Return ``link_html`` linking only a page's code blocks, and answering from,
        and adding to, this cache."""

        def cached_link_html(
            document: str, html: str, transforms: list, inventory: dict, *args, **kwargs
        ) -> str:
            blocks = CODE_BLOCK.findall(html)
            if not blocks:  # nothing to link, or codeautolink warns what it missed
                if not transforms:
                    return html
                return link_html(document, html, transforms, inventory, *args, **kwargs)
            code = BLOCK_SEPARATOR.join(blocks)
            key = self.key(
                document, code, transforms, inventory, *args, *kwargs.items()
            )
            path = (
                self.folder
                / f"{hashlib.sha256(document.encode()).hexdigest()[:16]}.json"
            )
            try:
                kept = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                kept = {}
            linked = kept.get("html") if kept.get("key") == key else None
            if linked is None:
                with _codeautolink_warnings() as warnings:
                    linked = link_html(
                        document, code, transforms, inventory, *args, **kwargs
                    )
                if not warnings.seen:
                    write_whole(path, json.dumps({"key": key, "html": linked}))
            pieces = [
                piece.strip("\n") for piece in linked.split(BLOCK_SEPARATOR.strip())
            ]
            if len(pieces) != len(blocks):
                raise ExtensionError(
                    f"code_links: {document}: {len(blocks)} code blocks went to "
                    f"codeautolink, {len(pieces)} came back"
                )
            replacements = iter(pieces)
            return CODE_BLOCK.sub(lambda _: next(replacements), html)

        cached_link_html.__wrapped__ = link_html  # type: ignore[attr-defined]
        return cached_link_html


def resolve_ahead(app: Sphinx) -> None:
    """While the build would only wait (its pages run elsewhere), do the slow part of
    resolving the names in code now, unless the answers are kept from an earlier build:
    import torch and run the parts of its modules written for type checkers."""
    cache: ResolutionCache | None = getattr(app, "code_link_resolutions", None)
    if cache is not None and not cache.path.exists():
        codeautolink.resolve.closest_module(("torch",))


def _cache_codeautolink(app: Sphinx) -> None:
    resolve = getattr(codeautolink, "resolve_location", None)
    closest_module = getattr(codeautolink.resolve, "closest_module", None)
    link_html = getattr(codeautolink, "link_html", None)
    parse_names = getattr(codeautolink_block, "parse_names", None)
    if None in (resolve, closest_module, link_html, parse_names):
        # Renamed in a new release: fail rather than silently slow every build down.
        raise ExtensionError("code_links: sphinx_codeautolink's resolver has moved")
    folder = (
        Path(app.doctreedir).parent / "code-links" / sphinx_codeautolink.__version__
    )
    app.code_link_resolutions = cache = ResolutionCache(folder)  # type: ignore[attr-defined]
    # Another build in this process wrapped it already: wrap codeautolink's own.
    codeautolink.resolve_location = cache.wrap(getattr(resolve, "__wrapped__", resolve))
    app.connect("env-updated", cache.save, priority=900)  # after codeautolink's pass
    pages = LinkedPageCache(folder / "pages")
    codeautolink.link_html = pages.wrap(getattr(link_html, "__wrapped__", link_html))
    parsed = ParsedNameCache(folder / "parsed")
    codeautolink_block.parse_names = parsed.wrap(
        getattr(parse_names, "__wrapped__", parse_names)
    )
    # Around codeautolink's reading of a page's code (490).
    app.connect("doctree-read", parsed.begin, priority=485)
    app.connect("doctree-read", parsed.end, priority=495)
    app.connect("env-before-read-docs", parsed.before_reading)
    app.connect("env-purge-doc", _purge_parsed)
    app.connect("env-merge-info", _merge_parsed)
    app.connect("env-updated", parsed.report, priority=900)


#: Folded blocks codeautolink leaves alone (``site_build.folding_rule``): asserts and
#: drawing code are not what a reader follows links from.
UNLINKED_FOLDS = ("Checks", "Drawing")


def _skip_folded_checks(app: Sphinx, doctree: nodes.document) -> None:
    """Mark folded checks and drawing code for codeautolink to skip.

    codeautolink parses each block together with every block before it on the page, so
    its cost grows with the square of a page's code; the checks are half of that code.
    A skipped block also stays out of what later blocks are parsed with.
    """
    for block in list(doctree.findall(nodes.literal_block)):
        title = folded_title(block.astext())
        if title is not None and title.startswith(UNLINKED_FOLDS):
            block.parent.insert(block.parent.index(block), SkipMarker("next"))


def setup(app: Sphinx) -> dict[str, object]:
    tested_versions.require_tested("sphinx-codeautolink", PATCHED)
    app.setup_extension("sphinx_codeautolink")
    _skip_gallery_pages_in_html_pass(app)
    _cache_codeautolink(app)
    app.connect("source-read", _mark_gallery_pages)
    # Before codeautolink reads the page's code (490).
    app.connect("doctree-read", _skip_folded_checks, priority=480)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
