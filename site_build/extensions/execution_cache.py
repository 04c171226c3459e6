"""Sphinx extension: keep cached example outputs only while they describe this torch and device.

Sphinx-Gallery skips a script whose checksum is unchanged, and MyST-NB reuses a cached
notebook run. Neither knows that a CUDA build must not show outputs recorded on the CPU,
or that a new torch release must run everything again. The gallery's output folder is
therefore stamped with an execution key and discarded when the key changes; MyST-NB's
cache path carries the same key (see ``conf.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

logger = logging.getLogger(__name__)
STAMP = ".executed-with"


def refresh(gallery_dir: Path, key: str) -> bool:
    """Delete ``gallery_dir`` when it was executed under another key; return whether it was."""
    stamp = gallery_dir / STAMP
    if gallery_dir.exists() and (
        not stamp.exists() or stamp.read_text(encoding="utf-8") != key
    ):
        shutil.rmtree(gallery_dir)
        discarded = True
    else:
        discarded = False
    gallery_dir.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key, encoding="utf-8")
    return discarded


def notebook_cache(root: Path, key: str) -> Path:
    """MyST-NB's execution cache of the project at ``root``, for the execution ``key``."""
    return root / "build" / "jupyter_cache" / key


def _on_config_inited(app: Sphinx, config: Config) -> None:
    key = config.execution_key
    for gallery in config.sphinx_gallery_conf.get("gallery_dirs", []):
        if refresh(Path(app.srcdir) / gallery, key):
            logger.info(
                "gallery %s was executed under another setup: running it again", gallery
            )


def setup(app: Sphinx) -> dict[str, object]:
    app.add_config_value("execution_key", "", "env", types=(str,))
    # Sphinx-Gallery generates its pages on builder-inited: clear stale output before that.
    app.connect("config-inited", _on_config_inited, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
