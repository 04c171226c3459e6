"""Sphinx extension: in a translated page, each MyST link to a section of another page
goes to the section its own address names.

MyST writes ``[text](autograd.md#the-version-counter)`` as a cross-reference to the
page ``autograd`` whose section is a separate attribute, ``reftargetid``. When Sphinx
9.0 puts a translated message in place, it copies onto each of the translation's
cross-references every attribute of the source's reference to the same target, keyed
by page alone (``sphinx.transforms.i18n._NodeUpdater.update_pending_xrefs``): in a
message with two links into one page, both then go to the last one's section. The
Chinese errors page sent "版本计数器" to "Finding the culprit" that way. The translation
keeps each link's address (``site_build.translation_check`` compares them), so this
restores each reference's own section after Sphinx's copy. A Sphinx other than the
pinned one is refused; ``tests/test_translated_links.py`` shows the patch is needed and
that it takes effect.
"""

from __future__ import annotations

from sphinx import addnodes
from sphinx.application import Sphinx

from site_build import tested_versions

PATCH = "the translated links' sections (translated_links)"
#: The attribute of MyST's reference that names the section it links.
SECTION = "reftargetid"


def _keep_sections(update_pending_xrefs):
    def update(self) -> None:
        own = [
            (xref, xref[SECTION])
            for xref in self.patch.findall(addnodes.pending_xref)
            if xref.get("reftype") == "myst" and SECTION in xref
        ]
        update_pending_xrefs(self)
        for xref, section in own:
            xref[SECTION] = section

    update.__wrapped__ = update_pending_xrefs  # type: ignore[attr-defined]
    return update


def install() -> None:
    """Wrap Sphinx's copy of a translated message's references, once."""
    from sphinx.transforms.i18n import _NodeUpdater

    method = _NodeUpdater.update_pending_xrefs
    _NodeUpdater.update_pending_xrefs = _keep_sections(  # type: ignore[method-assign]
        getattr(method, "__wrapped__", method)
    )


def setup(app: Sphinx) -> dict[str, object]:
    tested_versions.require_tested("sphinx", PATCH)
    tested_versions.require_tested("myst-parser", PATCH)
    install()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
