"""Every gallery entry has its own thumbnail, and its page's downloads really download."""

from __future__ import annotations

import ast
import hashlib
import io
import json
import zipfile
from pathlib import Path

import built_site
import pytest
from PIL import Image
from playwright.sync_api import Page

ENTRIES = built_site.gallery_entries()
_TITLE = """() => {
    const h1 = document.querySelector('main h1').cloneNode(true);
    h1.querySelectorAll('.headerlink').forEach(e => e.remove());
    return h1.textContent.trim();
}"""
_THUMBNAILS = """() => [...document.querySelectorAll('.sphx-glr-thumbcontainer img')].map(
    img => ({src: img.currentSrc, complete: img.complete,
             width: img.naturalWidth, height: img.naturalHeight}))"""


def _download(page: Page, selector: str, folder: Path) -> Path:
    """Click the first download link matching ``selector``; return the saved file."""
    with page.expect_download() as info:
        page.locator(selector).first.click()
    download = info.value
    assert download.failure() is None, f"{selector}: {download.failure()}"
    path = folder / download.suggested_filename
    download.save_as(path)
    assert path.stat().st_size > 0, f"{path.name} downloaded empty"
    return path


def test_the_gallery_lists_entries() -> None:
    assert ENTRIES, f"{built_site.GALLERY_INDEX} shows no gallery entry"


def test_every_entry_shows_its_own_loaded_thumbnail(page: Page, open_page) -> None:
    open_page(built_site.GALLERY_INDEX)
    images = page.evaluate(_THUMBNAILS)
    assert len(images) == len(ENTRIES)
    for entry, image in zip(ENTRIES, images, strict=True):
        assert image["complete"], f"{entry.page}: thumbnail did not load"
        assert min(image["width"], image["height"]) > 0, f"{entry.page}: empty image"
        assert "no_image" not in image["src"], f"{entry.page}: placeholder thumbnail"
    digests = {
        hashlib.sha256((built_site.HTML / e.thumbnail).read_bytes()).hexdigest()
        for e in ENTRIES
    }
    assert len(digests) == len(ENTRIES), "two gallery entries share one thumbnail"


def difference_hash(path: Path | io.BytesIO) -> int:
    """A 64-bit perceptual hash: is each pixel of a 9 x 8 grey copy darker than its right
    neighbour. Images that look alike at a glance differ in few bits, whatever their bytes.
    """
    grey = Image.open(path).convert("L").resize((9, 8), Image.Resampling.LANCZOS)
    pixels = list(grey.tobytes())
    bits = 0
    for row in range(8):
        for column in range(8):
            left, right = pixels[row * 9 + column], pixels[row * 9 + column + 1]
            bits = bits << 1 | (left > right)
    return bits


# Near-duplicate image search commonly treats a difference hash within 10 of 64 bits
# as the same picture; thumbnails must stay further apart than that.
ALIKE_BITS = 10


def test_difference_hash_tells_alike_from_different(tmp_path: Path) -> None:
    shapes = {
        "bar": [(0, 0, 40, 80)],
        "bar_shifted": [(2, 0, 42, 80)],
        "grid": [
            (x, y, x + 10, y + 10) for x in range(0, 80, 20) for y in range(0, 80, 20)
        ],
    }
    hashes = {}
    for name, boxes in shapes.items():
        image = Image.new("L", (80, 80), 255)
        for box in boxes:
            image.paste(0, box)
        image.save(tmp_path / f"{name}.png")
        hashes[name] = difference_hash(tmp_path / f"{name}.png")
    assert (hashes["bar"] ^ hashes["bar_shifted"]).bit_count() <= ALIKE_BITS
    assert (hashes["bar"] ^ hashes["grid"]).bit_count() > ALIKE_BITS


#: Show one image alone on the open page, at its own size, and wait until it is drawn.
_ALONE = """src => new Promise((done, failed) => {
    const img = new Image();
    img.onload = () => done();
    img.onerror = () => failed(new Error('no image at ' + src));
    img.id = 'alone';
    img.style.cssText = 'display: block; max-width: none; height: auto';
    document.body.replaceChildren(img);
    img.src = src;
})"""


def _drawn(page: Page, thumbnail: str) -> io.BytesIO:
    """A thumbnail as Chromium draws it, whole, at its own size: it is an SVG, which
    PIL cannot read. Shown on the gallery's page, as a reader's browser loads it."""
    page.evaluate(_ALONE, f"../{thumbnail}")
    return io.BytesIO(page.locator("#alone").screenshot())


def test_thumbnails_look_different_from_each_other(page: Page, open_page) -> None:
    open_page(built_site.GALLERY_INDEX)
    hashes = {e.page: difference_hash(_drawn(page, e.thumbnail)) for e in ENTRIES}
    alike = [
        f"{a} and {b}: {(hashes[a] ^ hashes[b]).bit_count()} of 64 bits apart"
        for i, a in enumerate(hashes)
        for b in list(hashes)[i + 1 :]
        if (hashes[a] ^ hashes[b]).bit_count() <= ALIKE_BITS
    ]
    assert not alike, f"thumbnails that look alike: {alike}"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.page)
def test_entry_page_offers_python_and_notebook_downloads(
    page: Page, open_page, entry: built_site.GalleryEntry, tmp_path: Path
) -> None:
    open_page(entry.page)
    title = page.evaluate(_TITLE)
    footer = ".sphx-glr-footer"
    script = _download(page, f"{footer} .sphx-glr-download-python a", tmp_path)
    assert script.name == Path(entry.page).with_suffix(".py").name
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    assert docstring, f"{script.name} has no docstring"
    assert docstring.splitlines()[0].replace("`", "").strip() == title, (
        f"{script.name} is not the script of the page titled {title!r}"
    )
    notebook = _download(page, f"{footer} .sphx-glr-download-jupyter a", tmp_path)
    assert notebook.name == Path(entry.page).with_suffix(".ipynb").name
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    assert any(cell["cell_type"] == "code" for cell in cells)
    text = "".join("".join(cell["source"]) for cell in cells).replace("`", "")
    assert title in text, f"{notebook.name} does not carry the title {title!r}"


# Each card's caption, where it reaches past its card.
_SPILLING_CAPTIONS = """() => [...document.querySelectorAll('.sphx-glr-thumbcontainer')]
    .flatMap(card => {
        const title = card.querySelector('.sphx-glr-thumbnail-title');
        const c = card.getBoundingClientRect(), t = title.getBoundingClientRect();
        return t.left < c.left - 1 || t.right > c.right + 1 || t.bottom > c.bottom + 1
            || title.scrollWidth > title.clientWidth + 1 ? [title.innerText] : [];
    })"""


@pytest.mark.parametrize("width", [390, 1000, 1400])
def test_captions_stay_inside_their_cards(page: Page, open_page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    open_page(built_site.GALLERY_INDEX)
    spilling = page.evaluate(_SPILLING_CAPTIONS)
    assert not spilling, f"at {width} px, captions out of their cards: {spilling}"


# The sidebar's download links: where each leads and what it says.
_SIDEBAR_DOWNLOADS = """() => Object.fromEntries(
    [...document.querySelectorAll('.bd-sidebar-secondary [class*=sphx-glr-download-]')]
    .map(item => [item.className.match(/sphx-glr-download-(\\w+)-sidebar/)[1],
                  {href: item.querySelector('a').href, text: item.innerText.trim()}]))"""


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.page)
def test_the_sidebar_offers_the_examples_own_files(
    page: Page, open_page, entry: built_site.GalleryEntry
) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(entry.page)
    links = page.evaluate(_SIDEBAR_DOWNLOADS)
    stem = Path(entry.page).stem
    for kind, suffix in (("python", ".py"), ("jupyter", ".ipynb")):
        assert kind in links, f"{entry.page}: the sidebar offers no {kind} download"
        href = links[kind]["href"]
        assert href.endswith(f"/{stem}{suffix}"), (
            f"{entry.page}: the sidebar's {links[kind]['text']!r} leads to {href}"
        )
        footer = page.locator(f".sphx-glr-footer .sphx-glr-download-{kind} a").first
        assert href == footer.evaluate("a => a.href"), (
            f"{entry.page}: the sidebar and the footer offer different {kind} files"
        )


def test_the_gallery_sidebar_says_its_downloads_are_archives(
    page: Page, open_page
) -> None:
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(built_site.GALLERY_INDEX)
    links = page.evaluate(_SIDEBAR_DOWNLOADS)
    assert links, "the gallery's index offers no download in its sidebar"
    for kind, link in links.items():
        assert link["href"].endswith(".zip"), f"{kind}: {link['href']}"
        assert "all examples" in link["text"], (
            f"{link['text']!r} leads to the archive of every example, {link['href']}"
        )


@pytest.mark.parametrize(("kind", "suffix"), [("python", ".py"), ("jupyter", ".ipynb")])
def test_download_all_holds_every_entry(
    page: Page, open_page, kind: str, suffix: str, tmp_path: Path
) -> None:
    open_page(built_site.GALLERY_INDEX)
    archive = _download(page, f".sphx-glr-footer .sphx-glr-download-{kind} a", tmp_path)
    with zipfile.ZipFile(archive) as zipped:
        names = {Path(name).name for name in zipped.namelist()}
    wanted = {Path(entry.page).with_suffix(suffix).name for entry in ENTRIES}
    assert wanted <= names, f"{archive.name} lacks {sorted(wanted - names)}"
