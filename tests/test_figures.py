"""The figures' words: which are messages, how a translation replaces them, and what the
built editions show (``site_build.figure_messages``, the ``figure_text`` and
``figure_alt`` extensions).

The tests of the built site read the editions that ``nox -s docs`` wrote, as
``tests/test_chinese_rendering.py`` does: every Chinese figure has its words in
Chinese, and every English figure is the one the code drew.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import matplotlib
import pytest

from site_build import figure_messages, svg_figures, translation_check
from site_build.extensions import figure_alt, figure_text

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[1]
ENGLISH = ROOT / "build" / "html"
CHINESE = ENGLISH / "zh_CN"
_HAN = re.compile("[\u4e00-\u9fff]")


def _svg(draw) -> str:
    """What the site's scraper saves for the figure ``draw`` makes."""
    fig = plt.figure(figsize=(3, 2))
    draw(fig.add_axes((0, 0, 1, 1)))
    out = io.StringIO()
    with matplotlib.rc_context(svg_figures.SETTINGS):
        fig.savefig(out, format="svg", metadata=svg_figures.METADATA)
    plt.close(fig)
    return out.getvalue()


def _boxes(ax) -> None:
    ax.axis("off")
    ax.text(0.5, 0.8, "tensor (2, 3)\nstride (3, 1)", ha="center")
    ax.text(0.9, 0.5, "24 bytes", ha="right")
    ax.text(0.1, 0.2, "x.clone()", family="monospace")
    ax.text(0.1, 0.1, "y = x.view(3, 4)")
    ax.text(0.5, 0.1, "float32")


def test_words_are_messages_and_values_placeholders_but_code_stays() -> None:
    assert figure_messages.messages(_svg(_boxes)) == [
        "tensor ({0}, {1})\nstride ({2}, {3})",
        "{0} bytes",
    ]


def test_a_translation_replaces_the_words_keeps_the_values_and_the_alignment() -> None:
    svg = _svg(_boxes)
    translated, untranslated = figure_messages.translate(
        svg,
        {
            "tensor ({0}, {1})\nstride ({2}, {3})": "张量 ({0}, {1})\n步长 ({2}, {3})"
        }.get,
    )
    assert untranslated == ["{0} bytes"]
    texts = {line.text: line for line in figure_messages.lines(translated)}
    assert {"张量 (2, 3)", "步长 (3, 1)", "24 bytes", "x.clone()"} <= set(texts)
    # The two lines of the centred text, drawn centred at the same x: middle anchors.
    first, second = texts["张量 (2, 3)"], texts["步长 (3, 1)"]
    assert "text-anchor: middle" in first.style
    assert "text-anchor: middle" in second.style
    x = re.search(r' x="([\d.]+)"', first.attrs)[1]
    assert f' x="{x}"' in second.attrs
    assert abs(float(x) - 0.5 * 216) < 0.5
    # Chinese glyphs come from a local font: each text falls back to the CJK fonts.
    assert all(
        "WenQuanYi Micro Hei" in line.style
        for line in figure_messages.lines(translated)
    )
    assert figure_messages.messages(translated) == ["{0} bytes"]


def test_a_translation_with_more_lines_gets_them_all() -> None:
    svg = _svg(_boxes)
    translated, _ = figure_messages.translate(
        svg, {"tensor ({0}, {1})\nstride ({2}, {3})": "一\n二\n三"}.get
    )
    ys = [
        float(re.search(r' y="([\d.]+)"', line.attrs)[1])
        for line in figure_messages.lines(translated)
        if line.text in "一二三"
    ]
    assert len(ys) == 3
    assert ys[2] - ys[1] == pytest.approx(ys[1] - ys[0])


def test_the_check_reports_a_translation_that_drops_a_value(tmp_path: Path) -> None:
    catalogue = tmp_path / "LC_MESSAGES" / "figures.po"
    catalogue.parent.mkdir()
    catalogue.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "{0} bytes"\nmsgstr "字节"\n\n'
        'msgid "version {0}"\nmsgstr "版本 {0}"\n',
        encoding="utf-8",
    )
    problems = translation_check.problems(catalogue)
    assert len(problems) == 1
    assert "'{0} bytes': markup changed" in problems[0]


def test_a_description_is_the_alt_comment_and_its_indented_lines() -> None:
    code = (
        "# Drawing: the storage\n# Alt: Two rows of boxes,\n#   one per tensor.\n"
        "# A comment of the code.\nfig = plt.figure()\n"
    )
    assert figure_alt.descriptions(code) == ["Two rows of boxes, one per tensor."]


# -- The built editions ----------------------------------------------------------------


def _figures(folder: Path) -> list[Path]:
    images = sorted((folder / "_images").glob("*.svg"))
    if not images:
        pytest.fail(f"no figures in {folder}: build the site first (nox -s docs)")
    return images


def test_every_chinese_figure_has_its_words_in_chinese() -> None:
    translated = figure_text.translations("zh_CN")
    left = {}
    for path in _figures(CHINESE):
        svg = path.read_text(encoding="utf-8")
        if english := figure_messages.messages(svg):
            left[path.name] = english
        assert not any(
            translated.get(line.text, line.text) != line.text
            for line in figure_messages.lines(svg)
        )
        words = figure_messages.messages(
            (ENGLISH / "_images" / path.name).read_text(encoding="utf-8")
        )
        assert not words or _HAN.search(svg), f"{path.name}: no Chinese word"
    assert not left, f"figures with English words in the Chinese edition: {left}"


def test_every_english_figure_is_the_one_the_code_drew() -> None:
    drawn = {
        path.name: path
        for path in [
            *(ROOT / "docs" / "gallery" / "images").rglob("*.svg"),
            *(ROOT / "build" / "jupyter_execute").rglob("*.svg"),
        ]
    }
    for path in _figures(ENGLISH):
        assert path.read_bytes() == drawn[path.name].read_bytes(), path.name


_IMG = re.compile(r"<img\b[^>]*>")


def _attribute(tag: str, name: str) -> str | None:
    found = re.search(rf'\b{name}="([^"]*)"', tag)
    return found[1] if found else None


@pytest.mark.parametrize("folder", [ENGLISH, CHINESE], ids=["en", "zh_CN"])
def test_every_figure_has_its_description_as_alt(folder: Path) -> None:
    """Every figure a page shows (not a gallery thumbnail, whose alt is empty beside
    its title) has a description of some length as its alt, in Chinese there."""
    shown = 0
    for page in [*folder.glob("*.html"), *folder.glob("gallery/*.html")]:
        for tag in _IMG.findall(page.read_text(encoding="utf-8")):
            src = _attribute(tag, "src") or ""
            if not src.endswith(".svg") or "_images/" not in src or "_thumb" in src:
                continue
            shown += 1
            alt = _attribute(tag, "alt") or ""
            assert len(alt) > 40, f"{page.name}: {src} has the alt {alt!r}"
            if folder is CHINESE:
                assert _HAN.search(alt), f"{page.name}: an English alt {alt!r}"
    thumbnails = len(list((folder / "_images").glob("*_thumb.svg")))
    assert shown == len(_figures(folder)) - thumbnails
