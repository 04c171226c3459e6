"""Every page of both editions passes every check of each view a reader sees it in.

A page is loaded once per view, and every check of that view runs on that one load:
on a laptop (1400 px, light theme), on a phone (390 px) and on a laptop in the dark
theme. Loading a page is most of a check's time, and these checks run on every page.
A test lists every check that failed on its page and what each found; the checks are
the functions named in its ``CHECKS``, each named for what it guards.

On a laptop, the page is loaded until the network falls silent, so that a late request,
a failed one or a console error is caught on every page (conftest.py judges the
traffic of every test). That wide a window is in the theme's widest layout (its last
breakpoint is 1200 px), so a check of the page itself gives the same answer at any
laptop width.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass

import built_site
import pytest
from PIL import Image, ImageStat
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from site_build.config.edition_list import CHINESE, EDITIONS, ENGLISH, Edition
from site_build.english_text import english_runs
from site_build.translation_report import shown_in_english

PAGES = built_site.pages()
ZH = CHINESE.folder + "/"


@dataclass(frozen=True)
class View:
    """How a reader sees a page: the window's size and the theme their system asks for."""

    name: str
    width: int
    height: int
    scheme: str

    def take(self, page: Page) -> None:
        """Size the window and set the system's theme, before a page is opened."""
        page.emulate_media(color_scheme=self.scheme)
        page.set_viewport_size({"width": self.width, "height": self.height})


LAPTOP = View("at 1400 px", 1400, 900, "light")
PHONE = View("at 390 px", 390, 844, "light")
DARK = View("at 1400 px in the dark theme", 1400, 900, "dark")

#: A check of a loaded page: what it found wrong, each as a sentence; nothing if none.
Check = Callable[[Page, str], list[str]]


def run_checks(page: Page, path: str, view: View, checks: list[Check]) -> None:
    """Run each check on the page in turn; fail once, naming every check that found
    something and what it found."""
    failures = [
        f"{check.__name__.replace('_', ' ')}: {problem}"
        for check in checks
        for problem in check(page, path)
    ]
    if failures:
        pytest.fail(f"{path} {view.name}:\n" + "\n".join(f"- {f}" for f in failures))


# --- On a laptop -------------------------------------------------------------------

_META = """() => Object.fromEntries([...document.querySelectorAll(
    'meta[name=description], meta[property^="og:"], link[rel=canonical]')].map(
    e => [e.getAttribute('name') || e.getAttribute('property') || 'canonical',
          e.getAttribute('content') || e.getAttribute('href')]))"""


def the_page_describes_itself(page: Page, path: str) -> list[str]:
    """A description and OpenGraph metadata of its own, for search engines and links
    shared elsewhere."""
    meta = page.evaluate(_META)
    description = meta.get("description", "")
    title = meta.get("og:title", "")
    url = meta.get("og:url", "")
    problems = []
    if len(description) < 40:
        problems.append(f"description too short: {description!r}")
    if description.startswith("orphan"):
        problems.append(f"the description is Sphinx's metadata: {description!r}")
    if meta.get("og:description") != description:
        problems.append(f"og:description {meta.get('og:description')!r} is not it")
    if not title:
        problems.append("no og:title")
    if url != meta.get("canonical"):
        problems.append(f"og:url {url!r} is not the canonical URL")
    if not url.endswith("/" + path):
        problems.append(f"og:url {url} is not {path}")
    # It says something the title has not: it does not open by naming the title's
    # subject again (``Tensor.clone()``: ... then "torch.Tensor.clone() copies ...").
    subject = re.sub(r"\W", "", title.split(":")[0].lower())
    opening = re.sub(r"\W", "", description.lower())[: len(subject) + len("torch")]
    if subject and subject in opening:
        problems.append(f"the description repeats the title: {description!r}")
    return problems


def no_build_noise_is_shown(page: Page, path: str) -> list[str]:
    """Sphinx's page metadata, a Python object's default repr, or the build's time and
    memory figures, shown as if content."""
    text = page.locator("main").inner_text()
    noise = ("orphan:", " object at 0x", "Estimated memory usage", "Total running time")
    return [f"shows {item!r}" for item in noise if item in text]


def no_english_sentence_outside_code(page: Page, path: str) -> list[str]:
    """A Chinese page, its header and footer included, as the browser has it; the
    messages not yet translated, shown in English on purpose, let through."""
    names = ("PyData Sphinx Theme",)  # product names a page may show in any language
    allowed = [*names, *shown_in_english(built_site.HTML.parent)]
    runs = [
        run
        for run in english_runs(page.content())
        if not any(run in text for text in allowed)
    ]
    return [f"shows English: {runs[:10]}"] if runs else []


# The first line of each visible code or output block that scrolls sideways.
_SCROLLING_BLOCKS = """() => [...document.querySelectorAll('main pre')]
    .filter(pre => pre.checkVisibility() && pre.scrollWidth > pre.clientWidth + 1)
    .map(pre => pre.innerText.split('\\n').reduce(
        (a, line) => line.length > a.length ? line : a, '').slice(0, 90))"""


def code_and_output_fit_the_column(page: Page, path: str) -> list[str]:
    scrolling = page.evaluate(_SCROLLING_BLOCKS)
    if scrolling:
        return [f"blocks wider than the column, longest lines: {scrolling}"]
    return []


# Lines of visible Python code (not printed output) that assert or run past 79 columns.
_LESSON_PROBLEMS = """() => [...document.querySelectorAll(
        'main .cell_input pre, main div.highlight-Python pre, main div.highlight-python pre')]
    .filter(pre => pre.checkVisibility())
    .flatMap(pre => pre.innerText.split('\\n'))
    .filter(line => /^\\s*assert\\b/.test(line) || line.length > 79)"""


def the_visible_code_is_short_and_asserts_nothing(page: Page, path: str) -> list[str]:
    """The lesson in view, its checks folded away (site_build.folding_rule)."""
    problems = page.evaluate(_LESSON_PROBLEMS)
    return [f"visible code that asserts or is too long: {problems}"] if problems else []


# Jump to each in-page link of the page in turn (as a click does, through the URL's
# fragment) and report the targets whose top is hidden under the header or off screen.
_HIDDEN_TARGETS = """async (hrefs) => {
    const header = document.querySelector('header.bd-header');
    const hidden = [];
    for (const href of hrefs) {
        const id = decodeURIComponent(href.slice(1));
        const target = document.getElementById(id);
        if (!target || !target.checkVisibility()) continue;
        location.hash = href;
        await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
        const top = target.getBoundingClientRect().top;
        const below = header.getBoundingClientRect().bottom;
        if (top < below - 1 || top > window.innerHeight) {
            hidden.push(`${href}: top ${Math.round(top)} px, header ends at ${below} px`);
        }
    }
    return hidden;
}"""

_IN_PAGE_LINKS = """() => [...new Set([...document.querySelectorAll('a[href^="#"]')]
    .map(a => a.getAttribute('href')).filter(h => h.length > 1))]"""


def every_in_page_link_lands_below_the_header(page: Page, path: str) -> list[str]:
    """Scrolls the page: run it after the checks that read the page as loaded."""
    hidden = page.evaluate(_HIDDEN_TARGETS, page.evaluate(_IN_PAGE_LINKS))
    return [f"targets hidden after the jump: {hidden}"] if hidden else []


def html_lang(edition: Edition) -> str:
    """The ``lang`` of an edition's pages: Sphinx writes ``zh_CN`` as ``zh-CN``."""
    return edition.language.replace("_", "-")


def the_language_switch_leads_to_the_same_page_in_the_other_edition(
    page: Page, path: str
) -> list[str]:
    """The switch is plain links: one a click reaches (the actionability checks of a
    click, without the navigation) whose address is the page's twin. That the twin
    loads, in its own language, is its own test's business."""
    own = built_site.in_edition(path)
    root = page.url.split("#")[0].removesuffix(path)
    problems = []
    for edition in EDITIONS:
        twin = root + (f"{edition.folder}/" if edition.folder else "") + own
        if twin == root + path:
            continue  # the edition shown: the switch names it, without a link
        # The first copy of the switch a reader sees: the header's, or the sidebar's.
        links = page.locator(f".language-switch a[hreflang={edition.hreflang}]")
        link = links.filter(visible=True).first
        if not link.count():
            problems.append(f"no visible link to the {edition.name} edition")
            continue
        href = link.evaluate("a => a.href")
        if href.split("#")[0] != twin:
            problems.append(f"{edition.name} leads to {href}, not {twin}")
        try:
            link.click(trial=True, timeout=5_000)
        except PlaywrightTimeoutError as error:
            problems.append(f"a click cannot reach the {edition.name} link: {error}")
    return problems


LAPTOP_CHECKS: list[Check] = [
    the_page_describes_itself,
    no_build_noise_is_shown,
    code_and_output_fit_the_column,
    the_visible_code_is_short_and_asserts_nothing,
    the_language_switch_leads_to_the_same_page_in_the_other_edition,
    every_in_page_link_lands_below_the_header,
]
CHINESE_LAPTOP_CHECKS: list[Check] = [no_english_sentence_outside_code, *LAPTOP_CHECKS]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_loads_cleanly_and_reads_well_on_a_laptop(
    page: Page, open_page, path: str
) -> None:
    """Console errors, failed and outside requests are checked for every test."""
    LAPTOP.take(page)
    open_page(path, idle=True)
    expect(page.locator("main")).to_be_visible()
    edition = CHINESE if path.startswith(ZH) else ENGLISH
    expect(page.locator("html")).to_have_attribute("lang", html_lang(edition))
    checks = CHINESE_LAPTOP_CHECKS if path.startswith(ZH) else LAPTOP_CHECKS
    run_checks(page, path, LAPTOP, checks)


# --- On a phone --------------------------------------------------------------------

# How far the page itself reaches past the right edge of the window.
_PAGE_OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"


def the_page_does_not_scroll_sideways(page: Page, path: str) -> list[str]:
    overflow = page.evaluate(_PAGE_OVERFLOW)
    return [f"reaches {overflow} px past the screen"] if overflow > 0 else []


# The previous/next links at the foot of the page whose text is cut: by the link's own
# edge (it hides what overflows it) or by the screen's.
_CUT_PREV_NEXT = """() => [...document.querySelectorAll('.prev-next-area a')].flatMap(a => {
    const text = a.innerText.replace(/\\s+/g, ' ').trim();
    const box = a.getBoundingClientRect();
    return [
        ...(a.scrollWidth > a.clientWidth + 1 ? [`${text}: cut at its edge`] : []),
        ...(box.left < 0 || box.right > innerWidth + 1 ? [`${text}: off screen`] : []),
    ];
})"""


def the_previous_and_next_links_are_whole(page: Page, path: str) -> list[str]:
    return page.evaluate(_CUT_PREV_NEXT)


PHONE_CHECKS: list[Check] = [
    the_page_does_not_scroll_sideways,
    the_previous_and_next_links_are_whole,
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_fits_a_phone(page: Page, open_page, path: str) -> None:
    PHONE.take(page)
    open_page(path)
    run_checks(page, path, PHONE, PHONE_CHECKS)


# --- In the dark theme -------------------------------------------------------------

# The content figures of a page: gallery figures and notebook outputs.
FIGURES = (
    "main img.sphx-glr-single-img, main img.sphx-glr-multi-img, "
    "main .cell_output img, main .sphx-glr-thumbcontainer img"
)

# Mean luma (ITU-R 601 weights on the displayed sRGB values, 0 black to 1 white) above
# which a figure reads as a bright slab on the dark page. The dark theme's background
# has a luma near 0.08 and its text near 0.85; the light-grey figures the review found
# measured about 0.9; a figure shown inverted, as the site's stylesheet does in the
# dark theme, is mostly background and measures 0.1-0.25. 0.35 sits between the two.
BRIGHT_SLAB = 0.35


def mean_luma(png: bytes) -> float:
    """The mean luma of a PNG image, from 0 (black) to 1 (white)."""
    grey = Image.open(io.BytesIO(png)).convert("L")  # ITU-R 601 luma
    return ImageStat.Stat(grey).mean[0] / 255


def test_mean_luma_tells_a_light_slab_from_a_dark_figure() -> None:
    def png(colour: tuple[int, int, int]) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (8, 8), colour).save(out, format="PNG")
        return out.getvalue()

    assert mean_luma(png((230, 230, 230))) > BRIGHT_SLAB > mean_luma(png((30, 34, 40)))


def no_figure_is_a_bright_slab(page: Page, path: str) -> list[str]:
    figures = page.locator(FIGURES)
    bright = []
    for index in range(figures.count()):
        figure = figures.nth(index)
        figure.scroll_into_view_if_needed()
        luma = mean_luma(figure.screenshot())
        if luma > BRIGHT_SLAB:
            bright.append(f"figure {index + 1}: luma {luma:.2f}")
    return [f"figures brighter than {BRIGHT_SLAB}: {bright}"] if bright else []


DARK_CHECKS: list[Check] = [no_figure_is_a_bright_slab]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_suits_the_dark_theme(page: Page, open_page, path: str) -> None:
    DARK.take(page)
    open_page(path)
    run_checks(page, path, DARK, DARK_CHECKS)
