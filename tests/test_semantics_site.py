"""The build measures the catalogue, publishes it, and fails when PyTorch disagrees.

Small sites built with the project's real configuration: one with the three
directives, and one whose catalogue states a fact that PyTorch contradicts and which
has a page that would load a script from another host.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import devices
import pytest
import semantics_site
import small_site

from semantics import catalogue, probe

INDEX = """# A small site

```{toctree}
gallery/index
matrix
narrative/views
```

```{semantics-table}
:ops: clone, detach, torch.from_numpy
:fields: shares_storage, grad_flows_to_source
```
"""
MATRIX = "# The matrix\n\n## Rows\n\n```{semantics-matrix}\n```\n"
VIEWS = "# Views\n\n```{semantics-list}\n:group: views\n```\n"
STUB = '"""\n{name}\n{underline}\n\nA stand-in.\n"""\n\nprint("ran")\n'
# Appended to the copied catalogue: the site now claims that clone() shares memory.
WRONG_CLAIM = """
CATALOGUE = tuple(
    replace(op, expect=op.expect.with_(shares_storage=True)) if op.id == "clone" else op
    for op in CATALOGUE
)
BY_ID = MappingProxyType({op.id: op for op in CATALOGUE})
"""


# A page that would load a script from another host, which the hermetic check refuses.
REMOTE = (
    "---\norphan: true\n---\n# Remote\n\n"
    '```{raw} html\n<script src="https://cdn.example.org/table.js"></script>\n```\n'
)


def _build(
    tmp_path: Path, catalogue_suffix: str = "", extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    pages = {"index.md": INDEX, "matrix.md": MATRIX, "narrative/views.md": VIEWS}
    pages.update(extra or {})
    # The catalogue links gallery pages; tiny scripts stand in for the real examples.
    stubs = {
        f"{name}.py": STUB.format(name=name, underline="=" * len(name))
        for name in {
            op.gallery.split("/")[-1] for op in catalogue.CATALOGUE if op.gallery
        }
    }
    small_site.prepare(tmp_path, pages, stubs)
    with (tmp_path / "semantics" / "catalogue.py").open("a", encoding="utf-8") as f:
        f.write(catalogue_suffix)
    return small_site.build(tmp_path)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A healthy small site, built once for the tests that read it."""
    tmp_path = tmp_path_factory.mktemp("site")
    result = _build(tmp_path)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return tmp_path / "build" / "html"


def test_semantics_json_holds_every_operation_for_every_device(
    site: Path, torch_device: str
) -> None:
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


def test_the_matrix_has_a_row_with_badges_and_links_for_every_operation(
    site: Path, torch_device: str
) -> None:
    html = (site / "matrix.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr class="row-(?:odd|even)" id="(semantics-[^"]+)"', html)
    assert rows == [op.anchor for op in catalogue.CATALOGUE]
    assert 'href="semantics.json"' in html
    assert "torch.Tensor.clone.html#torch.Tensor.clone" in html  # intersphinx
    assert 'href="gallery/clone.html"' in html
    assert 'class="sd-sphinx-override sd-badge sd-bg-success' in html
    assert 'title="Shares memory: no on ' in html
    for group in catalogue.GROUPS:
        assert f'<section id="semantics-group-{group.id}">' in html
    if torch_device == "cpu":
        assert "needs a CUDA device; this build ran on cpu." in html


def test_small_tables_and_lists_link_to_the_matrix_rows(site: Path) -> None:
    index = (site / "index.html").read_text(encoding="utf-8")
    for op_id in ("clone", "detach", "torch.from_numpy"):
        assert f'href="matrix.html#{catalogue.BY_ID[op_id].anchor}"' in index
    assert "Measured with PyTorch" in index
    views = (site / "narrative" / "views.html").read_text(encoding="utf-8")
    for op in catalogue.group("views"):
        assert f'href="../matrix.html#{op.anchor}"' in views


@pytest.fixture(scope="module")
def broken_build(
    tmp_path_factory: pytest.TempPathFactory,
) -> subprocess.CompletedProcess[str]:
    """One small build with two faults: a contradicted fact and a remote script."""
    tmp_path = tmp_path_factory.mktemp("broken")
    result = _build(tmp_path, WRONG_CLAIM, {"remote.md": REMOTE})
    result.site = tmp_path / "build" / "html"  # type: ignore[attr-defined]
    return result


def test_a_fact_pytorch_contradicts_fails_the_build_and_is_named(
    broken_build: subprocess.CompletedProcess[str],
) -> None:
    output = broken_build.stdout + broken_build.stderr
    assert broken_build.returncode != 0, output[-4000:]
    assert (
        "clone (x.clone()) on cpu: shares_storage is no, but the site states yes"
        in output
    ), output[-4000:]


def test_a_page_that_loads_from_another_host_fails_the_build_and_is_named(
    broken_build: subprocess.CompletedProcess[str],
) -> None:
    # conf.py's hermetic extension at work: without it, only the browser session
    # (not part of the default run) would notice.
    output = broken_build.stdout + broken_build.stderr
    assert broken_build.returncode != 0, output[-4000:]
    assert (
        "remote.html loads from another host: <script src=https://cdn.example.org/table.js>"
        in output
    ), output[-4000:]
    # Deleted, so that the next build writes it again and fails again.
    assert not (broken_build.site / "remote.html").exists()  # type: ignore[attr-defined]


def test_mismatch_messages_name_operation_field_device_and_both_values() -> None:
    document = probe.report(["cpu"])
    assert semantics_site.mismatch_messages(document) == []
    entry = next(e for e in document["entries"] if e["op"] == "detach")
    entry["shares_version_counter"] = False
    (message,) = semantics_site.mismatch_messages(document)
    assert message.startswith(
        "semantics: detach (x.detach()) on cpu: shares_version_counter is no, "
        "but the site states yes."
    )
