"""Sphinx extension: the measured semantics, rendered by three directives.

The measurements come from ``semantics_measure`` (set up by this extension). Pages
that use the directives depend on the ``semantics`` package's files, so editing the
catalogue re-renders them.

``{semantics-matrix}``
    every operation, grouped, one row each, with badges and links;
``{semantics-table}``
    a few operations (``:ops:``) and facts (``:fields:``), e.g. on the home page;
``{semantics-list}``
    the expressions of one group (``:group:``), each linked to its row in the matrix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import reduce
from html import escape
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode
from sphinx_design.badges_buttons import create_bdg_classes, sd_badge

from semantics import catalogue, check
from semantics.catalogue import FIELDS, N_, Operation
from semantics.measurement import Measurement
from site_build.config.torch_releases import RECORDINGS
from site_build.extensions.semantics_measure import (
    JSON_NAME,
    PACKAGE_FILES,
    measured_by_op,
)
from site_build.site_words import _

logger = logging.getLogger(__name__)
#: Marks the matrix's filter box: the pages that have one get its script.
FILTER_CLASS = "semantics-filter-box"
#: This module: a page that uses its directives is rendered again when it changes.
RENDERING = Path(__file__).resolve()

#: Marks the links to the API documentation and the gallery beside an expression.
DOCS_CLASS = "semantics-docs"
#: Column headings on the site (shown translated: ``label``).
LABELS = {
    "shares_storage": N_("Shares memory"),
    "writes_propagate": N_("Writes reach source"),
    "returns_self": N_("Source itself"),
    "result_requires_grad": N_("Requires grad"),
    "result_is_leaf": N_("Leaf"),
    "grad_flows_to_source": N_("Grad reaches source"),
    "shares_version_counter": N_("Shared version counter"),
}
#: Badge colour (sphinx-design semantic colour, outlined or not) per value: no green
#: and red, since "no" is as often the answer a reader wants as "yes". The values are
#: the English words of ``check.show`` and the filter's keys; a badge shows them
#: translated.
BADGE_STYLE = {
    N_("yes"): ("primary", False),
    N_("no"): ("secondary", False),
    N_("n/a"): ("secondary", True),
    N_("raises"): ("warning", False),
    N_("not measured"): ("secondary", True),
}
#: A device type in words, where a row says which one it needs.
DEVICE_NAMES = {"cpu": N_("the CPU"), "cuda": N_("a CUDA device")}
#: A ``{name}`` in a translated sentence, where ``_sentence`` puts a node.
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class semantics_ref(nodes.Inline, nodes.Element):
    """A link to an operation's row in the matrix, resolved once every page is read."""


def _text_with_code(text: str) -> list[nodes.Node]:
    """Turn Markdown-style text with `backticked` code into text and literal nodes."""
    parts = text.split("`")
    return [
        nodes.literal(part, part) if index % 2 else nodes.Text(part)
        for index, part in enumerate(parts)
        if part
    ]


def _sentence(text: str, **parts: nodes.Node) -> list[nodes.Node]:
    """A translated sentence as nodes: each ``{name}`` in it becomes ``parts[name]``
    (a link, code), wherever the translation put it; the text between them may hold
    `backticked` code."""
    pieces = _PLACEHOLDER.split(text)
    found: list[nodes.Node] = []
    for index, piece in enumerate(pieces):
        found += [parts[piece]] if index % 2 else _text_with_code(piece)
    return found


def _site_words(node: nodes.TextElement) -> nodes.TextElement:
    """Mark ``node`` as translated already, from the ``site`` catalogue.

    Sphinx would otherwise take a paragraph or title that a directive returns for a
    message of the page's own catalogue: one whose English changes with the build
    (the PyTorch version, the devices), and which, already in Chinese, it would find
    untranslated.
    """
    node["translatable"] = False
    return node


def label(field: str) -> str:
    """A fact's column heading, in the page's language."""
    return _(LABELS[field])


def _devices_in_words(devices: tuple[str, ...]) -> str:
    """The device types an expression needs: "the CPU or a CUDA device"."""
    names = [_(DEVICE_NAMES[d]) if d in DEVICE_NAMES else d for d in devices]
    return reduce(
        lambda first, second: _("{first} or {second}").format(
            first=first, second=second
        ),
        names or [""],
    )


def _badge(value: str, tooltip: str, shown: str | None = None) -> nodes.Node:
    """A sphinx-design badge coloured by ``value`` and showing ``shown`` (default: it,
    translated)."""
    color, outline = BADGE_STYLE[value]
    shown = shown or _(value)
    badge = sd_badge(shown, shown, classes=create_bdg_classes(color, outline))
    badge["tooltip"] = tooltip
    return badge


def _value(measurement: Measurement, field: str) -> str:
    if measurement.error is not None:
        return "raises"
    return check.show(getattr(measurement, field))


def fact_badges(
    op: Operation, field: str, by_device: dict[str, Measurement]
) -> list[nodes.Node]:
    """One badge when every device agrees, else one badge per device."""
    values = {device: _value(m, field) for device, m in by_device.items()}
    if len(set(values.values())) == 1:
        value = next(iter(values.values()))
        return [_badge(value, _fact_tooltip(field, value, ", ".join(values)))]
    found: list[nodes.Node] = []
    for device, value in values.items():
        tooltip = _fact_tooltip(field, value, device)
        shown = _("{device}: {value}").format(device=device, value=_(value))
        found += [_badge(value, tooltip, shown=shown), nodes.Text(" ")]
    return found[:-1]


def _fact_tooltip(field: str, value: str, devices: str) -> str:
    """A badge's tooltip, "Shares memory: yes on cpu", in the page's language."""
    return _("{label}: {value} on {devices}").format(
        label=label(field), value=_(value), devices=devices
    )


def _entry(*paragraphs: list[nodes.Node], morecols: int = 0) -> nodes.entry:
    """A table cell holding one paragraph per list of inline nodes."""
    entry = nodes.entry()
    if morecols:
        entry["morecols"] = morecols
    entry += [nodes.paragraph("", "", *children) for children in paragraphs if children]
    return entry


def _row_link(op: Operation, content: nodes.Node) -> semantics_ref:
    link = semantics_ref(label=op.anchor)
    link += content
    return link


def _code(op: Operation) -> nodes.literal:
    """The expression as inline code, highlighted as Python."""
    return nodes.literal(op.code, op.code, language="python", classes=["code"])


def _docs_links(op: Operation, docname: str) -> list[nodes.Node]:
    """Links to the official API documentation and to the gallery page, if any."""
    links: list[nodes.Node] = []
    if op.api is not None:
        role, target = op.api
        # Tensor methods read as Tensor.clone(); functions keep their module.
        name = (
            target.removeprefix("torch.")
            if target.startswith("torch.Tensor.")
            else target
        )
        text = name + ("()" if role in ("meth", "func") else "")
        ref = addnodes.pending_xref(
            "",
            refdomain="py",
            reftype=role,
            reftarget=target,
            refexplicit=True,
            refwarn=True,
            refdoc=docname,
        )
        ref += nodes.literal(text, text, classes=["xref", "py", f"py-{role}"])
        links.append(ref)
    if op.gallery is not None:
        ref = addnodes.pending_xref(
            "",
            refdomain="std",
            reftype="doc",
            reftarget="/" + op.gallery,
            refexplicit=True,
            refwarn=True,
            refdoc=docname,
        )
        example = _("example")
        ref += nodes.inline(example, example)
        if links:
            # A line may break before the dot, never after it.
            links.append(nodes.Text(" ·\u00a0"))
        links.append(ref)
    return links


def expression_entry(
    op: Operation, docname: str, *, link_to_row: bool, docs: bool
) -> nodes.entry:
    """The first cell of a row: the expression, what it starts from, and its links."""
    code = _row_link(op, _code(op)) if link_to_row else _code(op)
    given = _given(op) if op.given else []
    links = _docs_links(op, docname) if docs else []
    # Beside the expression, not under it: a typical matrix row stays one line high
    # on a wide screen; on a narrow one the links wrap under it by themselves.
    first = [code, nodes.Text(" "), nodes.inline("", "", *links, classes=[DOCS_CLASS])]
    return _entry(first if links else [code], given)


def _given(op: Operation) -> list[nodes.Node]:
    """What the expression starts from, "with `y = x * 1`, not a leaf", as nodes."""
    return _text_with_code(_("with {given}").format(given=_(op.given)))


def fact_entries(
    op: Operation,
    fields: list[str],
    by_device: dict[str, Measurement],
    devices_measured: list[str],
) -> list[nodes.entry]:
    """The fact cells of a row: badges, or one cell saying why there are none."""
    span = len(fields) - 1
    if not by_device:
        text = _("needs {devices}; this build ran on {measured}.").format(
            devices=_devices_in_words(op.devices or ()),
            measured=", ".join(devices_measured),
        )
        badge = _badge("not measured", _("Not measured: {reason}").format(reason=text))
        return [_entry([badge, nodes.Text(" " + text)], morecols=span)]
    errors = {m.error for m in by_device.values()}
    if None in errors:
        return [_entry(fact_badges(op, f, by_device)) for f in fields]
    raises = _("raises on {devices}").format(devices=", ".join(by_device))
    parts: list[nodes.Node] = [_badge("raises", raises)]
    for error in sorted(e for e in errors if e is not None):
        where = ", ".join(d for d, m in by_device.items() if m.error == error)
        on = _("on {devices}:").format(devices=where)
        # No space after a full-width colon (Chinese "on cpu:"), as Chinese sets it.
        space = " " if on[-1:].isascii() else ""
        parts += [nodes.Text(f" {on}{space}"), nodes.literal(error, error)]
    return [_entry(parts, morecols=span)]


def _measured_on(env: BuildEnvironment) -> str:
    return ", ".join(env.semantics_device_names)  # type: ignore[attr-defined]


def caption(env: BuildEnvironment) -> str:
    """Which PyTorch and devices the measurements come from."""
    version = env.semantics_document["torch_version"]  # type: ignore[attr-defined]
    return _(
        "Measured with PyTorch {version} on {devices} when this site was built"
    ).format(version=version, devices=_measured_on(env))


class _SemanticsDirective(SphinxDirective):
    """Shared parts: dependencies on the package and table building."""

    def depend_on_package(self) -> None:
        """Re-read the page whenever the catalogue, the probe or this rendering changes."""
        recordings = sorted(RECORDINGS.glob("torch-*.json"))  # the release markers
        for path in (*PACKAGE_FILES, RENDERING, *recordings):
            self.env.note_dependency(str(path))

    def table(
        self,
        ops: list[Operation],
        fields: list[str],
        *,
        in_matrix: bool,
        title: str | None = None,
    ) -> nodes.table:
        """A row per operation and a column per fact; matrix rows are link targets."""
        measured = measured_by_op(self.env)
        devices_measured = self.env.semantics_document["devices"]  # type: ignore[attr-defined]
        headings = [_("Expression"), *(label(f) for f in fields)]
        table = nodes.table(
            classes=["semantics-table", *(["semantics-matrix"] if in_matrix else [])]
        )
        if title:
            table += _site_words(nodes.title(title, title))
        group = nodes.tgroup(cols=len(headings))
        table += group
        group += [
            nodes.colspec(colwidth=3 if i == 0 else 1) for i in range(len(headings))
        ]
        head = nodes.thead()
        group += head
        head += nodes.row("", *(_entry([nodes.Text(h)]) for h in headings))
        body = nodes.tbody()
        group += body
        for op in ops:
            row = nodes.row()
            first = expression_entry(
                op, self.env.docname, link_to_row=not in_matrix, docs=in_matrix
            )
            if in_matrix:
                first += _release_markers(self.env, op)
            row += first
            row += fact_entries(op, fields, measured.get(op.id, {}), devices_measured)
            if in_matrix:
                row["ids"] = [op.anchor]
                row["names"] = [op.anchor]
                self.state.document.note_explicit_target(row)
            body += row
        return table


def _release_markers(env: BuildEnvironment, op: Operation) -> list[nodes.Node]:
    """One paragraph per fact of ``op`` that moved between the measured releases."""
    from site_build.extensions import release_pages

    found: list[nodes.Node] = []
    for change in release_pages.changes_of(env, op.id):
        name = label(change.field) if change.field in LABELS else _("Error")
        marker = release_pages.marker_nodes(change, name)
        marker.append(nodes.Text(f" ({change.device})"))
        found.append(
            nodes.paragraph(
                "", "", nodes.strong("", "", *marker), classes=["release-change"]
            )
        )
    return found


def _field_list(argument: str) -> list[str]:
    names = [name.strip() for name in argument.split(",") if name.strip()]
    unknown = [name for name in names if name not in FIELDS]
    if unknown:
        raise ValueError(
            f"unknown field(s) {', '.join(unknown)}; fields: {', '.join(FIELDS)}"
        )
    return names


def _op_list(argument: str) -> list[str]:
    names = [name.strip() for name in argument.split(",") if name.strip()]
    catalogue.lookup(names)  # raises with the unknown ids named
    return names


def _filter_form() -> str:
    """The filter's form, hidden until its script runs: words to find, and a value
    to require of each fact."""
    # The options' values are the English words the script compares (those of
    # ``semantics.json``, as ``check.show`` writes them); their text is translated.
    anything = escape(_("any"))
    options = f'<option value="">{anything}</option>' + "".join(
        f'<option value="{value}">{escape(_(value))}</option>'
        for value in ("yes", "no", "n/a", "raises")
    )
    choices = "".join(
        f'<label>{escape(label(field))} <select name="{field}">'
        f"{options}</select></label>"
        for field in FIELDS
    )
    find = escape(_("Find"))
    placeholder = escape(_("an expression, e.g. split"))
    return (
        '<form class="semantics-filter" role="search" hidden>'
        f'<label>{find} <input type="search" name="text" '
        f'placeholder="{placeholder}"></label>'
        f"{choices}<output></output></form>"
    )


class SemanticsMatrix(_SemanticsDirective):
    """Every catalogue operation, grouped, with its measured facts and links."""

    def run(self) -> list[nodes.Node]:
        self.depend_on_package()
        env = self.env
        depth = env.docname.count("/")
        json_link = nodes.reference(
            "",
            "",
            nodes.literal(JSON_NAME, JSON_NAME),
            refuri="../" * depth + JSON_NAME,
        )
        text = _(
            "{caption}. The same measurements, as data: {json}. Unless a row says "
            "otherwise, `x` is {x_code} on the device measured."
        )
        words = _sentence(
            text,
            caption=nodes.Text(caption(env)),
            json=json_link,
            x_code=nodes.literal(catalogue.X_CODE, catalogue.X_CODE),
        )
        intro = _site_words(nodes.paragraph("", "", *words))
        found: list[nodes.Node] = [intro, self.filter_box()]
        for group in catalogue.GROUPS:
            section_id = f"semantics-group-{group.id}"
            section = nodes.section(ids=[section_id], names=[section_id])
            self.state.document.note_explicit_target(section)
            title = _(group.title)
            section += _site_words(nodes.title(title, title))
            section += nodes.paragraph("", "", *_text_with_code(_(group.summary)))
            section += self.table(
                list(catalogue.group(group.id)), list(FIELDS), in_matrix=True
            )
            found.append(section)
        return found

    def filter_box(self) -> nodes.raw:
        """A form that narrows the matrix to matching rows, in the browser
        (``_static/matrix-filter.js``), with the measurements it needs: the document
        published as ``semantics.json``, and which row shows which operation."""
        data = {
            "document": self.env.semantics_document,  # type: ignore[attr-defined]
            "rows": {op.anchor: op.id for op in catalogue.CATALOGUE},
            "shown": {json.dumps(v): check.show(v) for v in (True, False, None)},
            # The words the script writes, in the page's language: it has none.
            "count": _("{count} of {total} rows"),
        }
        # "</" cannot end the script early once escaped.
        text = json.dumps(data).replace("</", "<\\/")
        html = (
            _filter_form()
            + f'<script type="application/json" class="semantics-filter-data">{text}</script>'
        )
        return nodes.raw("", html, format="html", classes=[FILTER_CLASS])


class SemanticsTable(_SemanticsDirective):
    """A small table: the operations of ``:ops:`` against the facts of ``:fields:``."""

    option_spec: ClassVar[dict[str, Callable[[str], object]]] = {
        "ops": _op_list,
        "fields": _field_list,
    }

    def run(self) -> list[nodes.Node]:
        self.depend_on_package()
        if "ops" not in self.options:
            raise self.error(
                "semantics-table needs an :ops: option (comma-separated ids)"
            )
        ops = catalogue.lookup(self.options["ops"])
        fields = self.options.get("fields") or list(FIELDS)
        return [self.table(ops, fields, in_matrix=False, title=caption(self.env))]


class SemanticsList(_SemanticsDirective):
    """The expressions of one group, each linked to its row in the matrix."""

    option_spec: ClassVar[dict[str, Callable[[str], object]]] = {
        "group": directives.unchanged_required
    }

    def run(self) -> list[nodes.Node]:
        self.depend_on_package()
        group_id = self.options.get("group", "").strip()
        if group_id not in catalogue.GROUP_IDS:
            raise self.error(
                f"semantics-list needs :group: one of {', '.join(catalogue.GROUP_IDS)}"
            )
        items = nodes.bullet_list()
        for op in catalogue.group(group_id):
            item = nodes.paragraph("", "", _row_link(op, _code(op)))
            if op.given:
                item += [nodes.Text(" "), *_given(op)]
            items += nodes.list_item("", item)
        return [items]


def _resolve_row_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    labels = app.env.domains.standard_domain.anonlabels
    for node in list(doctree.findall(semantics_ref)):
        target_doc, target_id = labels.get(node["label"], ("", ""))
        if not target_doc:
            logger.warning(
                "semantics: no matrix row for %s: add a {semantics-matrix} page",
                node["label"],
                location=node,
                type="semantics",
                subtype="ref",
            )
            node.replace_self(node.children)
            continue
        node.replace_self(
            make_refnode(app.builder, docname, target_doc, target_id, node.children)
        )


def _add_filter_script(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: nodes.Node
) -> None:
    if doctree is not None and any(
        FILTER_CLASS in node["classes"] for node in doctree.findall(nodes.raw)
    ):
        app.add_js_file("matrix-filter.js", loading_method="defer")


def setup(app: Sphinx) -> dict[str, object]:
    app.setup_extension("site_build.extensions.semantics_measure")
    app.connect("html-page-context", _add_filter_script)
    app.add_node(semantics_ref)
    app.add_directive("semantics-matrix", SemanticsMatrix)
    app.add_directive("semantics-table", SemanticsTable)
    app.add_directive("semantics-list", SemanticsList)
    app.connect("doctree-resolved", _resolve_row_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
