"""codeautolink's work is kept between builds: the names in code are resolved once per set
of inventories and installed packages, and a page is linked again only when it changed."""

from __future__ import annotations

import contextlib
import importlib.metadata
import itertools
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx_codeautolink.extension import CouldNotResolve
from sphinx_codeautolink.parse import Name

from site_build.extensions import code_links

INVENTORY = {"torch.Tensor.clone": "torch.Tensor.clone.html"}


class Resolver:
    """Stands in for codeautolink's resolver and counts what it is asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []

    def __call__(self, chain: SimpleNamespace, inventory: dict) -> str:
        self.asked.append(tuple(chain.import_components))
        if chain.import_components[-1] == "missing":
            raise CouldNotResolve("torch.missing does not exist.")
        return ".".join(chain.import_components)


def chain(*components: str) -> SimpleNamespace:
    return SimpleNamespace(import_components=list(components))


def resolve_twice(folder: Path, *components: str, inventory: dict = INVENTORY):
    """Resolve a chain in one build, then in a second build that reads the cache."""
    resolver = Resolver()
    for _ in range(2):
        cache = code_links.ResolutionCache(folder)
        resolve = cache.wrap(resolver)
        answer = resolve(chain(*components), inventory)
        cache.save(None, None)  # type: ignore[arg-type]
    return answer, resolver.asked


def test_an_installed_name_is_resolved_once_across_builds(tmp_path: Path) -> None:
    answer, asked = resolve_twice(tmp_path, "torch", "Tensor", "clone")
    assert answer == "torch.Tensor.clone"
    assert asked == [("torch", "Tensor", "clone")], "the second build resolved again"


def test_a_name_that_cannot_be_resolved_stays_unresolved(tmp_path: Path) -> None:
    resolver = Resolver()
    for _ in range(2):
        cache = code_links.ResolutionCache(tmp_path)
        with pytest.raises(CouldNotResolve, match=r"torch\.missing does not exist"):
            cache.wrap(resolver)(chain("torch", "missing"), INVENTORY)
        cache.save(None, None)  # type: ignore[arg-type]
    assert len(resolver.asked) == 1


def test_other_inventories_resolve_again(tmp_path: Path) -> None:
    resolve_twice(tmp_path, "torch", "Tensor", "clone")
    _, asked = resolve_twice(
        tmp_path, "torch", "Tensor", "clone", inventory={**INVENTORY, "torch.t": ""}
    )
    assert asked == [("torch", "Tensor", "clone")]


def test_other_installed_packages_resolve_again(tmp_path: Path) -> None:
    resolve_twice(tmp_path, "torch", "Tensor", "clone")
    with other_packages():
        _, asked = resolve_twice(tmp_path, "torch", "Tensor", "clone")
    assert asked == [("torch", "Tensor", "clone")]


@contextlib.contextmanager
def other_packages():
    """As if another set of packages were installed."""
    original = code_links._installed_packages
    code_links._environment_digest.cache_clear()
    try:
        code_links._installed_packages = lambda: "torch-9.9.9.dist-info"  # type: ignore[assignment]
        yield
    finally:
        code_links._installed_packages = original
        code_links._environment_digest.cache_clear()


def test_the_installed_packages_are_named_with_their_versions() -> None:
    installed = code_links._installed_packages().splitlines()
    torch_version = importlib.metadata.version("torch")
    assert f"torch-{torch_version}.dist-info" in installed, installed[:20]


def test_names_from_this_project_are_never_cached(tmp_path: Path) -> None:
    # The semantics package is this project's code, not an installed package: the
    # key does not cover it.
    _, asked = resolve_twice(tmp_path, "semantics", "catalogue")
    assert asked == [("semantics", "catalogue")] * 2


def test_codeautolink_still_has_the_resolver_this_wraps() -> None:
    import sphinx_codeautolink.extension as codeautolink

    assert callable(codeautolink.resolve_location)
    assert callable(codeautolink.resolve.closest_module)
    assert callable(codeautolink.block.parse_names)


#: Code with every kind of name codeautolink's parser returns: imports, attributes,
#: calls, a walrus and a loop (the last three break chains with enumeration members).
PARSED_CODE = """\
import torch
from torch import nn
x = torch.zeros(2).clone()
if (y := nn.Linear(2, 2)) is not None:
    for p in y.parameters():
        p.detach()
"""


def parse_in_two_builds(folder: Path, *sources: str, warn: bool = False):
    """Parse ``sources`` as codeautolink would while reading one page, in two builds;
    return each build's names and how many sources the real parser saw."""
    from sphinx_codeautolink.parse import parse_names

    calls = []

    def parser(source: str, node: object) -> list[Name]:
        calls.append(source)
        if warn:
            logging.getLogger("sphinx.sphinx_codeautolink").warning("parse warning")
        return parse_names(source, node)

    builds = []
    for _ in range(2):
        cache = code_links.ParsedNameCache(folder)
        wrapped = cache.wrap(parser)
        app = SimpleNamespace(env=SimpleNamespace(docname="page"))
        cache.begin(app, None)  # type: ignore[arg-type]
        builds.append([wrapped(source, None) for source in sources])
        cache.end(app, None)  # type: ignore[arg-type]
    return builds, len(calls)


def test_a_block_is_parsed_once_across_builds_to_the_same_names(tmp_path: Path) -> None:
    (first, second), parsed = parse_in_two_builds(tmp_path, PARSED_CODE)
    assert parsed == 1
    assert first == second
    # The linked pages' cache keys on the names' text: it must not change either.
    assert repr(first) == repr(second)
    assert any(code_links.NameBreak.call in n.import_components for n in first[0])


def test_a_block_whose_parsing_warned_is_parsed_again(tmp_path: Path) -> None:
    _, parsed = parse_in_two_builds(tmp_path, PARSED_CODE, warn=True)
    assert parsed == 2


def test_other_installed_packages_parse_again(tmp_path: Path) -> None:
    parse_in_two_builds(tmp_path, PARSED_CODE)
    with other_packages():
        _, parsed = parse_in_two_builds(tmp_path, PARSED_CODE)
    assert parsed == 1


def test_a_page_keeps_only_the_blocks_it_still_has(tmp_path: Path) -> None:
    parse_in_two_builds(tmp_path, PARSED_CODE, "import numpy")
    parse_in_two_builds(tmp_path, "import numpy")
    (kept,) = tmp_path.glob("*.json")
    assert "torch" not in kept.read_text(encoding="utf-8")


class Linker:
    """Stands in for codeautolink's HTML pass: counts calls, may warn."""

    def __init__(self, *, warn: bool = False) -> None:
        self.calls = 0
        self.warn = warn

    def __call__(self, document: str, html: str, transforms: list, inventory: dict):
        self.calls += 1
        if self.warn:
            logging.getLogger("sphinx.sphinx_codeautolink").warning("no match")
        return html.replace(
            "clone", f'<a href="{inventory["torch.Tensor.clone"]}">clone</a>'
        )


def page_transforms(line: int = 1) -> list:
    name = Name(
        ["torch", "Tensor", "clone"], "x.clone", line, line, None, "torch.Tensor.clone"
    )
    return [SimpleNamespace(source="x.clone()", names=[name])]


def block(code: str) -> str:
    """A code block as Sphinx writes it."""
    return (
        '<div class="highlight-python notranslate"><div class="highlight">'
        f"<pre>{code}</pre></div>\n</div>"
    )


def page(prose: str, code: str = "x.clone()") -> str:
    return f"<p>{prose}</p>{block(code)}<p>clone, in prose</p>{block('y = 1')}"


def link(folder: Path, linker: Linker, html: str = "", **changes):
    inventory = changes.get("inventory", INVENTORY)
    transforms = changes.get("transforms", page_transforms())
    return code_links.LinkedPageCache(folder).wrap(linker)(
        "views", html or page("A view."), transforms, inventory
    )


LINKED = '<pre>x.<a href="torch.Tensor.clone.html">clone</a>()</pre>'


def test_an_unchanged_page_is_linked_once_across_builds(tmp_path: Path) -> None:
    linker = Linker()
    first, second = link(tmp_path, linker), link(tmp_path, linker)
    assert first == second
    assert first == page("A view.").replace("<pre>x.clone()</pre>", LINKED)
    assert linker.calls == 1


def test_only_code_is_linked_and_every_edition_of_a_page_shares_its_links(
    tmp_path: Path,
) -> None:
    linker = Linker()
    english = link(tmp_path, linker, html=page("A view."))
    chinese = link(tmp_path, linker, html=page("视图。"))
    assert linker.calls == 1
    assert english == page("A view.").replace("<pre>x.clone()</pre>", LINKED)
    assert chinese == page("视图。").replace("<pre>x.clone()</pre>", LINKED)
    assert "<p>clone, in prose</p>" in chinese  # prose is never linked


@pytest.mark.parametrize(
    "change",
    [
        {"html": page("A view.", code="y.clone()")},
        {"inventory": {"torch.Tensor.clone": "elsewhere.html"}},
        {"transforms": page_transforms(line=2)},
    ],
    ids=["page", "link target", "names"],
)
def test_a_changed_input_links_the_page_again(tmp_path: Path, change: dict) -> None:
    linker = Linker()
    link(tmp_path, linker)
    link(tmp_path, linker, **change)
    assert linker.calls == 2


def test_a_page_that_warned_is_linked_again_and_warns_again(tmp_path: Path) -> None:
    linker = Linker(warn=True)
    link(tmp_path, linker)
    link(tmp_path, linker)
    assert linker.calls == 2, "a kept page would hide the warning from the next build"


def test_a_gallery_page_keeps_its_metadata_first() -> None:
    # Sphinx reads :orphan: only at the very top; below anything it is shown as text.
    marked = code_links.marked_for_skipping(":orphan:\n\n.. _gallery:\n\nTitle\n")
    assert marked.startswith(":orphan:\n\n" + code_links.SKIP_FILE)
    assert code_links.marked_for_skipping("Title\n") == code_links.SKIP_FILE + "Title\n"


def test_folded_checks_and_drawing_code_are_skipped_and_the_rest_linked() -> None:
    from docutils import nodes
    from docutils.utils import new_document
    from sphinx_codeautolink.extension.directive import SkipMarker

    document = new_document("page")
    codes = [
        "# Setup: imports\nimport torch",
        "x = torch.zeros(2)",
        "# Checks: x is zero\nassert not x.any()",
        "# Drawing: the figure\nplt.show()",
    ]
    for code in codes:
        document += nodes.literal_block(code, code, language="ipython3")
    code_links._skip_folded_checks(None, document)  # type: ignore[arg-type]
    skipped = [
        child.astext()
        for marker, child in itertools.pairwise(document.children)
        if isinstance(marker, SkipMarker)
    ]
    assert skipped == codes[2:]
