"""Cached example outputs are thrown away when torch or the device changes."""

from __future__ import annotations

from pathlib import Path

import small_site

from site_build.extensions import execution_cache


def test_outputs_from_the_same_setup_are_kept(tmp_path: Path) -> None:
    gallery = tmp_path / "gallery"
    execution_cache.refresh(gallery, "torch-2.13.0-cpu")
    (gallery / "clone.rst").write_text("cached")
    assert not execution_cache.refresh(gallery, "torch-2.13.0-cpu")
    assert (gallery / "clone.rst").exists()


def test_outputs_from_another_setup_are_discarded(tmp_path: Path) -> None:
    gallery = tmp_path / "gallery"
    execution_cache.refresh(gallery, "torch-2.13.0-cpu")
    (gallery / "clone.rst").write_text("cached on the CPU")
    assert execution_cache.refresh(gallery, "torch-2.13.0-cpu-cuda")
    assert not (gallery / "clone.rst").exists()
    assert (gallery / execution_cache.STAMP).read_text() == "torch-2.13.0-cpu-cuda"


def test_unstamped_outputs_are_discarded(tmp_path: Path) -> None:
    gallery = tmp_path / "gallery"
    gallery.mkdir()
    (gallery / "clone.rst").write_text("of unknown origin")
    assert execution_cache.refresh(gallery, "key")
    assert not (gallery / "clone.rst").exists()


PAGE = small_site.myst_nb_page("A page", "x = 1", "assert x == 1")


def _cache_a_run_of(page: str, folder: Path) -> None:
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn
    from myst_nb.core.read import read_myst_markdown_notebook

    cache = get_cache(str(folder))
    cache.cache_notebook_bundle(
        CacheBundleIn(read_myst_markdown_notebook(page), "page.md"),
        check_validity=False,
    )


def test_a_cached_run_of_the_same_code_covers_the_page(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    code = ["x = 1", "assert x == 1"]
    assert not execution_cache.cached_run_covers(PAGE, code, folder)  # no cache yet
    _cache_a_run_of(PAGE, folder)
    assert execution_cache.cached_run_covers(PAGE, code, folder)


def test_edited_code_or_code_outside_the_cells_is_not_covered(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    _cache_a_run_of(PAGE, folder)
    edited = PAGE.replace("assert x == 1", "assert x == 2")
    assert not execution_cache.cached_run_covers(
        edited, ["x = 1", "assert x == 2"], folder
    )
    # A code block that is not a cell never ran in the notebook.
    assert not execution_cache.cached_run_covers(
        PAGE, ["x = 1", "assert x == 1", "print(x)"], folder
    )
