"""Cached example outputs are thrown away when torch or the device changes."""

from __future__ import annotations

from pathlib import Path

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
