"""Small sites built with the real configuration publish the measurements, rebuild only
what changed, and fail naming each fault.

One test per site: a Sphinx build costs seconds, and pytest-xdist would build a shared
fixture once in every worker that runs one of its tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import small_site

from semantics import catalogue, probe
from site_build.config import devices, torch_releases
from site_build.extensions import execution_cache


def _executed(output: str) -> tuple[int, int]:
    """How many examples and pages a build ran, from Sphinx-Gallery's and our logs."""
    examples = re.search(r"successfully executed (\d+) out of", output)
    return (int(examples.group(1)) if examples else 0), output.count(
        "Executing notebook"
    )


def _check_semantics_json(site: Path, torch_device: str) -> None:
    document = json.loads((site / "semantics.json").read_text(encoding="utf-8"))
    measured_on = devices.devices_verified(torch_device)
    assert document["devices"] == measured_on
    expected = [
        (op.id, device)
        for device in measured_on
        for op in catalogue.CATALOGUE
        if op.applies_to(device)
    ]
    assert [(e["op"], e["device"]) for e in document["entries"]] == expected
    assert document["entries"] == probe.report(measured_on)["entries"]
    # Every recorded release, and what moved between them (tests/test_releases.py).
    measured = document["releases"]["measured"]
    assert measured == list(torch_releases.SUPPORTED)
    moved = document["releases"]["changes"]
    assert moved[0]["subject"] == "dlpack_reversed"
    assert moved[0]["marker"].startswith("changed in 2.14: outcome was dies SIGABRT")


def _check_matrix_rows(site: Path, torch_device: str) -> None:
    html = (site / "matrix.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr class="row-(?:odd|even)" id="(semantics-[^"]+)"', html)
    assert rows == [op.anchor for op in catalogue.CATALOGUE]
    assert 'href="semantics.json"' in html
    assert "torch.Tensor.clone.html#torch.Tensor.clone" in html  # intersphinx
    assert 'href="gallery/clone.html"' in html
    assert 'class="sd-sphinx-override sd-badge sd-bg-primary' in html
    assert 'title="Shares memory: no on ' in html
    for group in catalogue.GROUPS:
        assert f'<section id="semantics-group-{group.id}">' in html
    if torch_device == "cpu":
        assert "needs a CUDA device; this build ran on cpu." in html


#: code_links' lines at the end of each build's reading.
CODE_LINKS = re.compile(r"code_links: (\d+) names answered from \S+, (\d+) resolved by")
PARSED = re.compile(
    r"code_links: (\d+) code blocks' names answered from \S+, (\d+) parsed"
)


def _names(output: str, line: re.Pattern = CODE_LINKS) -> tuple[int, int]:
    """How many names (or blocks' names) code_links answered from its cache and how
    many codeautolink resolved (or parsed), in a build."""
    found = line.findall(output)
    assert len(found) == 1, f"code_links said {len(found)} times: {line.pattern}"
    return int(found[0][0]), int(found[0][1])


def _linked_pages(tmp_path: Path) -> dict[Path, int]:
    """The pages' linked code that code_links keeps: file -> when written."""
    folder = tmp_path / "build" / "code-links"
    return {path: path.stat().st_mtime_ns for path in folder.glob("*/pages/*.json")}


def _check_gallery_pages(site: Path) -> None:
    """figure_alt gives Sphinx-Gallery's figures the description in their drawing
    code as ``alt`` (not their title, Sphinx-Gallery's choice, nor the paragraph
    before them); the scraper saves SVG with its words as text; min_reported_time and
    gallery_pages leave the time and memory lines off."""
    html = (site / "gallery" / small_site.STUB_WITH_FIGURE).with_suffix(".html")
    images = re.findall(r'<img src="([^"]*sphx_glr_[^"]*)" [^>]*>', html.read_text())
    tags = re.findall(r'<img src="[^"]*sphx_glr_[^"]*" [^>]*>', html.read_text())
    assert images, "the gallery page shows no figure"
    for image, tag in zip(images, tags, strict=True):
        assert f'alt="{small_site.FIGURE_ALT}"' in tag, tag
        assert image.endswith(".svg"), image
        svg = (html.parent / image).read_text(encoding="utf-8")
        assert f">{small_site.FIGURE_WORDS}</text>" in svg, "its words are not text"
    for page in (site / "gallery").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "Total running time" not in text, page
        assert "Estimated memory usage" not in text, page


def _check_tables_and_lists_link_to_rows(site: Path) -> None:
    index = (site / "index.html").read_text(encoding="utf-8")
    for op_id in ("clone", "detach", "torch.from_numpy"):
        assert f'href="matrix.html#{catalogue.BY_ID[op_id].anchor}"' in index
    assert "Measured with PyTorch" in index
    releases = ", ".join(torch_releases.SUPPORTED)
    assert f"The site's facts were measured on PyTorch {releases}" in index
    views = (site / "narrative" / "views.html").read_text(encoding="utf-8")
    for op in catalogue.group("views"):
        assert f'href="../matrix.html#{op.anchor}"' in views


@pytest.mark.slow
def test_a_site_publishes_its_measurements_reruns_only_what_changed_names_a_broken_page(
    tmp_path: Path, torch_device: str
) -> None:
    result = small_site.semantics_site(tmp_path, broken=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    site = tmp_path / "build" / "html"
    _check_semantics_json(site, torch_device)
    _check_matrix_rows(site, torch_device)
    _check_tables_and_lists_link_to_rows(site)
    _check_gallery_pages(site)

    scripts = len(list((tmp_path / "examples").glob("*.py")))
    assert _executed(output) == (scripts, 1), output
    # The page ran once, early, and MyST-NB found that run in its cache instead of
    # running the page again while reading it.
    assert "runs.md: Executing notebook early, in a preloaded kernel" in output, output
    assert "runs.md: Using cached notebook" in output, output
    assert "Executing notebook using" not in output, output
    # The log ends naming the slowest code, the page and the scripts among it.
    slowest = re.search(r"slowest to run, as last run: (.*)", output)
    assert slowest, output[-3000:]
    assert "docs/runs.md" in slowest[1], slowest[1]
    assert "examples/" in slowest[1], slowest[1]
    # In a kernel forked from the process that had imported torch (warm_kernel).
    assert small_site.PRELOADED in (site / "runs.html").read_text(), "not preloaded"
    # code_links' wrappers saw every name and page codeautolink linked.
    _, resolved = _names(output)
    assert resolved > 0, "codeautolink resolved no name through code_links"
    _, parsed = _names(output, PARSED)
    assert parsed > 0, "codeautolink parsed no block through code_links"
    linked = _linked_pages(tmp_path)
    assert linked, "no page's linked code was kept"
    unchanged = small_site.build(tmp_path)
    output = unchanged.stdout + unchanged.stderr
    assert _executed(output) == (0, 0), "a rebuild with nothing changed ran something"
    with (tmp_path / "examples" / small_site.STUB_TO_EDIT).open("a") as script:
        script.write("\n# an edit\n")
    with (tmp_path / "docs" / "runs.md").open("a") as page:
        page.write("\nMore prose, after the code.\n")
    written = (site / "runs.html").stat().st_mtime_ns
    edited = small_site.build(tmp_path)
    output = edited.stdout + edited.stderr
    assert edited.returncode == 0, output[-3000:]
    assert _executed(output) == (1, 0), (
        "after one example's code and one page's prose changed, the rebuild ran more "
        "than that example"
    )
    # The page was written again, its code linked from code_links' cache.
    assert (site / "runs.html").stat().st_mtime_ns > written
    runs = (site / "runs.html").read_text()
    assert "More prose" in runs
    assert "sphinx-codeautolink-a" in runs, "the page's code lost its links"
    assert _linked_pages(tmp_path) == linked, "a page's links were worked out again"
    answered, resolved = _names(output)
    assert resolved == 0, f"the rebuild resolved {resolved} names again"
    assert answered > 0, "the rebuild answered no name from code_links' cache"
    answered, parsed = _names(output, PARSED)
    assert parsed == 0, f"the page read again had {parsed} blocks parsed again"
    assert answered > 0, "the page read again took no block's names from the cache"

    # Under another PyTorch or device (another execution key), nothing recorded under
    # the old one is shown: the gallery's outputs are thrown away, and every example
    # and the unchanged page run again. And a page that raises fails the build, named.
    (tmp_path / "sitecustomize.py").write_text(small_site.SWITCH_KEY)
    gallery = tmp_path / "docs" / "gallery"
    (gallery / "left-by-the-old-key").touch()
    (tmp_path / "docs" / "broken-page.md").write_text(small_site.BROKEN_PAGE)
    failed = small_site.build(tmp_path)
    output = failed.stdout + failed.stderr
    assert not (gallery / "left-by-the-old-key").exists(), "outputs were kept"
    assert (gallery / execution_cache.STAMP).read_text().endswith("-switched")
    for script in (tmp_path / "examples").glob("*.py"):  # its printout, written anew
        assert "\n    ran\n" in (gallery / f"{script.stem}.rst").read_text(), script
    assert "runs.md: Executing notebook early" in output, output[-3000:]
    assert failed.returncode != 0, f"the build passed:\n{output[-3000:]}"
    assert "broken-page" in output, output[-3000:]
    assert "deliberately broken" in output, output[-3000:]
    assert "please open an issue" not in output, output[-3000:]  # no crash report


@pytest.mark.slow
def test_a_broken_site_fails_naming_each_fault(tmp_path: Path) -> None:
    result = small_site.semantics_site(tmp_path, broken=True)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-4000:]
    # The catalogue states a fact PyTorch contradicts.
    assert (
        "clone (x.clone()) on cpu: shares_storage is no, but the site states yes"
        in output
    ), output[-4000:]
    # conf.py's hermetic extension at work: without it, only the browser session
    # (not part of the default run) would notice.
    assert (
        "remote.html loads from another host: <script src=https://cdn.example.org/table.js>"
        in output
    ), output[-4000:]
    # Deleted, so that the next build writes it again and fails again.
    site = tmp_path / "build" / "html"
    assert (site / "matrix.html").exists()
    assert not (site / "remote.html").exists()
    # A figure whose drawing code does not say what it shows (figure_alt).
    assert re.search(
        rf"{small_site.UNDESCRIBED_SCRIPT_NAME.removesuffix('.py')}\.rst.*a figure "
        "without a description",
        output,
    ), output[-4000:]
    # A script that raises.
    assert small_site.BROKEN_SCRIPT_NAME in output, output[-4000:]
    assert "deliberately broken" in output, output[-4000:]
    # The example's own error, file and line, ends the log: not Sphinx's crash report.
    assert "please open an issue" not in output, output[-4000:]
    assert "Loaded Extensions" not in output, output[-4000:]
