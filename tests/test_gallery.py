"""The callables Sphinx-Gallery runs around the examples behave as conf.py expects."""

from __future__ import annotations

from pathlib import Path

import torch

from site_build import gallery
from site_build.extensions import gallery_pages

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_reading_order_puts_listed_scripts_first_then_the_rest_by_name() -> None:
    key = gallery.ReadingOrder(str(EXAMPLES))
    names = ["zeta.py", "view.py", "alpha.py", "clone.py", "detach.py"]
    assert sorted(names, key=key) == [
        "clone.py",
        "detach.py",
        "view.py",
        "alpha.py",
        "zeta.py",
    ]


def test_reading_order_names_every_script_and_only_those() -> None:
    """A new script left out would silently go last: the check says where to put it."""
    listed = set(gallery.ReadingOrder.ORDER)
    scripts = {path.name for path in EXAMPLES.glob("*.py")}
    assert not listed - scripts, (
        f"ReadingOrder.ORDER in site_build/gallery.py lists scripts that are gone: "
        f"{sorted(listed - scripts)}"
    )
    assert not scripts - listed, (
        f"add {sorted(scripts - listed)} to ReadingOrder.ORDER in "
        "site_build/gallery.py, where a reader should meet it"
    )


def test_peak_memory_hooks_compare_equal_so_the_configuration_stays_cached() -> None:
    assert gallery.PeakMemory() == gallery.PeakMemory()
    assert hash(gallery.PeakMemory()) == hash(gallery.PeakMemory())


def test_peak_memory_sees_an_allocation_and_returns_the_result() -> None:
    def allocate() -> int:
        block = torch.ones(64, 2**20, dtype=torch.uint8)  # 64 MiB, touched
        return int(block[-1, -1])

    memory, result = gallery.PeakMemory()(allocate)
    assert result == 1
    # Host memory is measured on Linux, when no CUDA context makes it count device memory.
    if gallery._reset_peak_rss() and not torch.cuda.is_initialized():
        assert memory >= 32, (
            f"a 64 MiB allocation raised the peak by only {memory:.1f} MiB"
        )


def test_reset_torch_gives_each_example_the_same_random_numbers() -> None:
    gallery.reset_torch({}, "a.py")
    first = torch.rand(3)
    gallery.reset_torch({}, "b.py")
    assert torch.equal(torch.rand(3), first)


def test_the_memory_line_leaves_the_page_and_nothing_else_does() -> None:
    # The time line never reaches the page: min_reported_time (test_small_sites.py).
    page = (
        "**Estimated memory usage:**  0 MB\n\n"
        "Estimated memory usage: in prose, not the line\n"
    )
    assert gallery_pages.without_memory_line(page) == (
        "\nEstimated memory usage: in prose, not the line\n"
    )


def test_the_download_note_leaves_the_page_and_its_title_stays() -> None:
    # Sphinx-Gallery 0.22's header, as it writes it above every example's title.
    page = (
        ".. LINE NUMBERS ARE GIVEN BELOW.\n\n"
        ".. only:: html\n\n"
        "    .. note::\n"
        "        :class: sphx-glr-download-link-note\n\n"
        "        :ref:`Go to the end <sphx_glr_download_gallery_clone.py>`\n"
        "        to download the full example code.\n\n"
        ".. rst-class:: sphx-glr-example-title\n\n"
        ".. _sphx_glr_gallery_clone.py:\n"
    )
    assert gallery_pages.without_download_note(page) == (
        ".. LINE NUMBERS ARE GIVEN BELOW.\n\n"
        ".. rst-class:: sphx-glr-example-title\n\n"
        ".. _sphx_glr_gallery_clone.py:\n"
    )
