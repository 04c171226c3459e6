"""Sphinx extension: what each measured PyTorch release recorded, on the pages.

``nox -s releases`` records every supported release in ``semantics/releases/``. This
extension reads those files once per build and:

- checks that the recording of the build's own release agrees with what the build
  measured live (a warning, which ``-W`` makes fatal, where it does not);
- lists the releases and every change between them (``changes``) for the footer,
  the matrix's markers and ``semantics.json``;
- renders ``{release-fact} ID``: one release fact's outcome on each measured release,
  the build's own marked, with "changed in" where it moved.
"""

from __future__ import annotations

import re
from importlib import metadata

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from semantics import release_facts, releases
from semantics.catalogue import N_
from site_build.config.torch_releases import RECORDINGS, public, series
from site_build.site_words import _, space_between

logger = logging.getLogger(__name__)

#: An outcome's kind in words; its detail (a value, a message, a signal) follows.
KINDS = {
    "returns": N_("returns {detail}"),
    "warns": N_("warns: {detail}"),
    "raises": N_("raises {detail}"),
    "dies": N_("ends the process ({detail})"),
}


def _load(app: Sphinx) -> None:
    env = app.env
    recordings = releases.load_all()
    build = public(metadata.version("torch"))
    env.release_recordings = recordings  # type: ignore[attr-defined]
    env.release_build = build  # type: ignore[attr-defined]
    env.release_changes = releases.changes(recordings)  # type: ignore[attr-defined]
    # semantics.json: every measured release, and each fact that moved between them.
    env.semantics_document["releases"] = {  # type: ignore[attr-defined]
        "build": build,
        "measured": list(recordings),
        "changes": [change.to_json() for change in env.release_changes],  # type: ignore[attr-defined]
        "release_facts": {
            fact.id: {
                v: d["release_facts"][fact.id]
                for v, d in recordings.items()
                if fact.id in d["release_facts"]
            }
            for fact in release_facts.RELEASE_FACTS
        },
    }
    for version, document in recordings.items():
        missing = [f.id for f in release_facts.RELEASE_FACTS
                   if f.id not in document["release_facts"]]  # fmt: skip
        if missing:  # a fact added since the session recorded this release
            logger.warning(
                "releases: the recording of PyTorch %s lacks the release fact(s) %s: "
                "run `nox -s \"releases(torch='%s')\"`",
                version,
                ", ".join(missing),
                version,
                type="releases",
                subtype="missing",
            )
    own = recordings.get(build)
    if own is None:
        logger.warning(
            "releases: no recording of PyTorch %s, the release this build runs on: "
            "run `nox -s releases` (MAINTAINING.md, 'Measuring other PyTorch "
            "releases')",
            build,
            type="releases",
            subtype="missing",
        )
        return
    live = {"catalogue": env.semantics_document, "release_facts": {}}
    # The release facts are checked live by the pages that state them, and by
    # tests/test_releases.py: each costs a fresh interpreter.  # type: ignore[attr-defined]
    for problem in releases.disagreements(own, live):
        logger.warning(
            "releases: the recording of PyTorch %s differs from this build's "
            "measurement: %s. Run `nox -s releases`; never edit a recording by hand",
            build,
            problem,
            type="releases",
            subtype="mismatch",
        )


def measured_releases(env: object) -> list[str]:
    """Every release the site's facts were measured on, oldest first."""
    return list(env.release_recordings)  # type: ignore[attr-defined]


def changes_of(env: object, subject: str) -> list[releases.Change]:
    """The changes between releases of one operation or release fact."""
    return [c for c in env.release_changes if c.subject == subject]  # type: ignore[attr-defined]


def marker_nodes(change: releases.Change, label: str) -> list[nodes.Node]:
    """A matrix row's marker, "changed in 2.14: Shares memory was yes, now no", in
    the page's language (``label`` is the fact's heading). A value that is not a
    yes or no, such as an error, is PyTorch's own text: it is set as code."""
    template = _("changed in {release}: {fact} was {before}, now {after}")
    text = template.replace("{release}", series(change.release)).replace(
        "{fact}", label
    )
    found: list[nodes.Node] = []
    for piece in re.split(r"(\{before\}|\{after\})", text):
        if piece in ("{before}", "{after}"):
            value = change.before if piece == "{before}" else change.after
            shown = releases._shown(value)
            if isinstance(value, bool) or value is None:
                found.append(nodes.Text(_(shown)))
            else:
                found.append(nodes.literal(shown, shown))
        elif piece:
            found.append(nodes.Text(piece))
    return found


def outcome_text(outcome: dict[str, str]) -> list[nodes.Node]:
    """An outcome in the page's language, its detail as code."""
    before, _sep, after = _(KINDS[outcome["kind"]]).partition("{detail}")
    detail = outcome["detail"]
    return [
        nodes.Text(before),
        nodes.literal(detail, detail),
        *([nodes.Text(after)] if after else []),
    ]


class ReleaseFact(SphinxDirective):
    """``{release-fact} ID``: a table of the fact's outcome on each measured release."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        fact_id = self.arguments[0].strip()
        if fact_id not in release_facts.BY_ID:
            raise self.error(
                f"release-fact: unknown id {fact_id!r}; ids: "
                + ", ".join(release_facts.BY_ID)
            )
        for path in RECORDINGS.glob("torch-*.json"):
            self.env.note_dependency(str(path))
        fact = release_facts.BY_ID[fact_id]
        recordings = self.env.release_recordings  # type: ignore[attr-defined]
        build = self.env.release_build  # type: ignore[attr-defined]
        moved = {c.release: c for c in changes_of(self.env, fact_id)}
        table = nodes.table(classes=["release-fact"])
        title = nodes.title("", "", *_text_with_code(_(fact.question)))
        title["translatable"] = False
        table += title
        group = nodes.tgroup(cols=2)
        table += group
        group += [nodes.colspec(colwidth=1), nodes.colspec(colwidth=4)]
        head = nodes.thead()
        group += head
        head += nodes.row(
            "", _cell([nodes.Text(_("PyTorch"))]), _cell([nodes.Text(_("Outcome"))])
        )
        body = nodes.tbody()
        group += body
        for version, document in recordings.items():
            shown: list[nodes.Node] = [nodes.Text(version)]
            if version == build:
                label = str(_("(this build)"))
                gap = space_between(version, label)
                shown += [nodes.Text(gap), nodes.emphasis("", label)]
            kept = document["release_facts"].get(fact_id)
            outcome = (
                outcome_text(kept) if kept else [nodes.Text(_("not measured yet"))]
            )
            if version in moved:
                marker = _("changed in {release}:").format(release=series(version))
                gap = space_between(marker, outcome[0].astext() if outcome else "")
                outcome = [nodes.strong("", marker), nodes.Text(gap), *outcome]
            body += nodes.row("", _cell(shown), _cell(outcome))
        return [table]


def _text_with_code(text: str) -> list[nodes.Node]:
    parts = text.split("`")
    return [
        nodes.literal(part, part) if index % 2 else nodes.Text(part)
        for index, part in enumerate(parts)
        if part
    ]


def _cell(children: list[nodes.Node]) -> nodes.entry:
    entry = nodes.entry()
    entry += nodes.paragraph("", "", *children)
    return entry


def _footer_context(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    # A list's separator is the language's: "2.13.0, 2.14.1", "2.13.0、2.14.1".
    context["measured_releases"] = _(", ").join(measured_releases(app.env))
    context["build_release"] = app.env.release_build  # type: ignore[attr-defined]


def setup(app: Sphinx) -> dict[str, object]:
    app.setup_extension("site_build.extensions.semantics_measure")
    # After the measurement (priority 500): the build's own release is compared.
    app.connect("builder-inited", _load, priority=600)
    app.connect("html-page-context", _footer_context)
    app.add_directive("release-fact", ReleaseFact)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
