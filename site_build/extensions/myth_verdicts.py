"""Sphinx extension: a verdict badge on each myth, and a summary table built from them.

Each verdict is typed once, in its own section, as a role::

    ## "`reshape` returns a view"

    {verdict}`depends` ``reshape`` returns a view when ...

and the ``verdict-summary`` directive, placed once at the top of the page, becomes a
table of every section that holds a verdict: the section's title, linked to it, and its
badge. The table is built from the sections when the page is read, so it cannot
disagree with them. A word that is not a verdict, a section with two verdicts and a
summary that finds none are errors that name the file and line (and fail a ``-W``
build).

The badges reuse sphinx-design's badge shape (``sd-badge``); their colours are the
site's own (``verdict-*`` classes in ``site.css``).
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole
from sphinx.writers.html5 import HTML5Translator

from site_build.config.site_facts import N_
from site_build.site_words import _

logger = logging.getLogger(__name__)

#: Each verdict: its label on the badge, and what it means (the badge's tooltip),
#: both shown in the page's language. The words typed in the role stay English.
VERDICTS: dict[str, tuple[str, str]] = {
    "true": (N_("True"), N_("the claim holds on the PyTorch this site was built with")),
    "false": (
        N_("False"),
        N_("the claim is wrong on the PyTorch this site was built with"),
    ),
    "depends": (
        N_("Depends"),
        N_("the claim holds only in some of the cases it covers"),
    ),
    "changed": (
        N_("Changed"),
        N_(
            "the claim held on older PyTorch releases, not on the one this site was "
            "built with"
        ),
    ),
}

SUMMARY_HEADERS = (N_("Claim"), N_("Verdict"))


class verdict(nodes.inline):
    """A verdict badge; ``node["verdict"]`` is one of ``VERDICTS``.

    Builders other than HTML render it as the inline it derives from (Sphinx's
    translators fall back along the class's ancestors).
    """


class verdict_summary(nodes.General, nodes.Element):
    """Where the summary table goes; replaced when the page has been read."""


def badge(word: str) -> verdict:
    """A badge node for the verdict ``word`` (already validated)."""
    label = _(VERDICTS[word][0])
    return verdict(
        label,
        label,
        verdict=word,
        classes=["sd-sphinx-override", "sd-badge", "verdict", f"verdict-{word}"],
    )


class VerdictRole(SphinxRole):
    """``{verdict}`word```: the badge of one of ``VERDICTS``."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        word = self.text.strip()
        if word not in VERDICTS:
            message = self.inliner.reporter.error(
                f"unknown verdict {word!r}; use one of: {', '.join(VERDICTS)}",
                line=self.lineno,
            )
            problem = self.inliner.problematic(self.rawtext, self.rawtext, message)
            return [problem], [message]
        node = badge(word)
        self.set_source_info(node)
        return [node], []


class VerdictSummaryDirective(Directive):
    """``{verdict-summary}``: a table of the page's claims and their verdicts."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        node = verdict_summary()
        node.source, node.line = self.state_machine.get_source_and_line(self.lineno)
        return [node]


def _title_copy(section: nodes.section) -> list[nodes.Node]:
    """The children of a section's title, copied (they may hold code or emphasis)."""
    title = next(iter(section.findall(nodes.title)))
    return [child.deepcopy() for child in title.children]


def _summary_table(rows: list[tuple[nodes.section, verdict]]) -> nodes.table:
    """A two-column table: each section's title linked to it, and its badge."""
    table = nodes.table(classes=["verdict-summary"])
    group = nodes.tgroup(cols=len(SUMMARY_HEADERS))
    table += group
    for width in (5, 1):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += nodes.row(
        "",
        *(nodes.entry("", nodes.paragraph(text=_(text))) for text in SUMMARY_HEADERS),
    )
    body = nodes.tbody()
    group += body
    for section, found in rows:
        link = nodes.reference(
            "", "", *_title_copy(section), internal=True, refid=section["ids"][0]
        )
        body += nodes.row(
            "",
            nodes.entry("", nodes.paragraph("", "", link)),
            nodes.entry("", nodes.paragraph("", "", badge(found["verdict"]))),
        )
    return table


def _location(node: nodes.Node, docname: str) -> str | tuple[str, int | None]:
    return (docname, node.line) if node.line else docname


class BuildVerdictSummary(SphinxTransform):
    """Replace each ``verdict_summary`` by the table of the page's verdicts."""

    default_priority = 800  # after the page is fully parsed and its ids are set

    def apply(self, **kwargs: object) -> None:
        rows: list[tuple[nodes.section, verdict]] = []
        docname = self.env.docname
        for section in self.document.findall(nodes.section):
            own = [
                node
                for node in section.findall(verdict)
                if next(_ancestor_sections(node)) is section
            ]
            if len(own) > 1:
                logger.error(
                    "a section has %d verdicts, not one: %s",
                    len(own),
                    ", ".join(node["verdict"] for node in own),
                    location=_location(own[1], docname),
                )
            if own:
                rows.append((section, own[0]))
        for placeholder in list(self.document.findall(verdict_summary)):
            if not rows:
                logger.error(
                    "verdict-summary found no section with a {verdict} role",
                    location=_location(placeholder, docname),
                )
                placeholder.replace_self([])
                continue
            placeholder.replace_self(_summary_table(rows))


def _ancestor_sections(node: nodes.Node):
    """The sections around ``node``, innermost first."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.section):
            yield parent
        parent = parent.parent
    yield None


def _visit_verdict(self: HTML5Translator, node: verdict) -> None:
    meaning = _(VERDICTS[node["verdict"]][1])
    self.body.append(self.starttag(node, "span", "", title=meaning))


def _depart_verdict(self: HTML5Translator, node: verdict) -> None:
    self.body.append("</span>")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_node(verdict, html=(_visit_verdict, _depart_verdict))
    app.add_node(verdict_summary)
    app.add_role("verdict", VerdictRole())
    app.add_directive("verdict-summary", VerdictSummaryDirective)
    app.add_transform(BuildVerdictSummary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
