"""How large a figure's text is on a phone, measured on the live matplotlib figures.

Sphinx-Gallery saves each figure whole at the figure's own dpi and shows it at that
size in CSS pixels (the 2x copy only sharpens it); a narrower screen scales it down to
the content column. The smallest text must stay readable there.
"""

from __future__ import annotations

# The content column of a 390-px-wide phone, the narrowest screen the site is checked
# on, less the theme's page padding.
PHONE_COLUMN_PX = 358
SMALLEST_TEXT_PX = 11


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
    width_px = fig.get_figwidth() * fig.dpi
    scale = min(1.0, PHONE_COLUMN_PX / width_px)
    drawn = [t for t in texts if t.get_visible() and t.get_text().strip()]
    if not drawn:
        return float("inf"), ""
    t = min(drawn, key=lambda t: t.get_fontsize())
    return t.get_fontsize() * fig.dpi / 72 * scale, t.get_text()
