"""How large a figure's text is on a phone, measured on the live matplotlib figures.

Sphinx-Gallery saves each figure whole as SVG (``site_build.svg_figures``), sized in
points: a browser shows it at 96 CSS pixels per inch of the figure, whatever its dpi,
and a narrower screen scales it down to the content column. The smallest text must
stay readable there.
"""

from __future__ import annotations

# The content column of a 390-px-wide phone, the narrowest screen the site is checked
# on, less the theme's page padding.
PHONE_COLUMN_PX = 358
SMALLEST_TEXT_PX = 11
#: CSS pixels per inch, as a browser sizes an SVG whose width is in points.
CSS_PX_PER_INCH = 96


def smallest_text(fig) -> tuple[float, str]:
    """The size in CSS pixels, on the phone, of the smallest drawn text, and that text."""
    texts = list(fig.texts)
    for ax in fig.axes:
        texts += [*ax.texts, ax.title, ax._left_title, ax._right_title]
        if ax.axison:
            texts += [ax.xaxis.label, ax.yaxis.label]
            texts += [*ax.get_xticklabels(), *ax.get_yticklabels()]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    fig.canvas.draw()  # tick labels exist only once drawn
    width_px = fig.get_figwidth() * CSS_PX_PER_INCH
    scale = min(1.0, PHONE_COLUMN_PX / width_px)
    drawn = [t for t in texts if t.get_visible() and t.get_text().strip()]
    if not drawn:
        return float("inf"), ""
    t = min(drawn, key=lambda t: t.get_fontsize())
    return t.get_fontsize() * CSS_PX_PER_INCH / 72 * scale, t.get_text()
