"""How every figure of the site is saved: SVG with its text kept as text.

Sharp at any zoom, a third the size of a PNG and its 2x copy, and its words are text
that the Chinese edition translates (``site_build.figure_messages``). The gallery's
scraper (``site_build.gallery.SvgFigures``) and the pages' inline backend (their
hidden first figure cell) both use these settings.
"""

from __future__ import annotations

#: Text as ``<text>`` elements, not paths; ids that do not change from run to run.
SETTINGS = {"svg.fonttype": "none", "svg.hashsalt": "torch-copy-semantics"}
#: No date in the file: an unchanged figure is an unchanged file.
METADATA = {"Date": None}


def use_inline() -> None:
    """Make the inline backend of the running IPython kernel draw SVG, so set."""
    import matplotlib
    from IPython import get_ipython
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    get_ipython().run_line_magic("matplotlib", "inline")
    set_matplotlib_formats("svg", bbox_inches="tight", metadata=METADATA)
    matplotlib.rcParams.update(SETTINGS)
