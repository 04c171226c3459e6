"""The site's own words: the gettext catalogue ``site``, and ``_``, which translates a
message into the edition being built.

The build writes some text itself: the matrix's headings and badges, the verdicts, the
folded code's summaries, the footer. The extensions that write it mark it with ``_``
(translated when it is written) or ``N_`` (``site_build.config.site_facts``: marked
only, translated later); ``site_build.extensions.editions`` registers the catalogue
and extracts its messages into ``locales/<language>/LC_MESSAGES/site.po``.
"""

from __future__ import annotations

from sphinx.locale import get_translation

from site_build.chinese_spacing import FULL_WIDTH

CATALOG = "site"
_ = get_translation(CATALOG)


def space_between(before: str, after: str) -> str:
    """The space to write between two runs of translated text: none next to
    full-width punctuation, as Chinese typography has it, one otherwise."""
    if before.endswith(tuple(FULL_WIDTH)) or after.startswith(tuple(FULL_WIDTH)):
        return ""
    return " "
