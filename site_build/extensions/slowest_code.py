"""Sphinx extension: end the English build's log with the pages and examples that take
longest to run, as they last ran.

Sphinx-Gallery's own summary of example times is off (``min_reported_time``), with the
time line it would put on every page; MyST-NB logs each page's time as it runs it. This
gathers both into one line: where a slow build spends its time. The times are the
gallery's ``.cost.json`` records (``site_build.gallery``) and jupyter-cache's records,
both kept between builds, so an unchanged rebuild reports the same line.
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

from site_build.config.edition_list import ENGLISH

logger = logging.getLogger(__name__)
#: How many of the slowest are named.
SHOWN = 5


def last_run_times(app: Sphinx) -> dict[str, float]:
    """Seconds each example and page took when it last ran, by its path in the project."""
    root = Path(app.srcdir).parent
    times = {}
    conf = app.config.sphinx_gallery_conf
    for scripts, gallery in zip(
        conf["examples_dirs"], conf["gallery_dirs"], strict=True
    ):
        for record in Path(app.srcdir, gallery).glob("*.cost.json"):
            seconds = json.loads(record.read_text(encoding="utf-8"))["time"]
            script = Path(app.srcdir, scripts).resolve() / record.name.replace(
                ".cost.json", ".py"
            )
            times[script.relative_to(root).as_posix()] = seconds
    from jupyter_cache import get_cache

    records = get_cache(app.config.nb_execution_cache_path).list_cache_records()
    for record in sorted(records, key=lambda r: r.created):  # the last run wins
        seconds = record.data.get("execution_seconds")
        path = Path(record.uri)
        if seconds is not None and path.is_relative_to(root):
            times[path.relative_to(root).as_posix()] = seconds
    return times


def _report(app: Sphinx, exception: Exception | None) -> None:
    if exception or app.config.language != ENGLISH.language:
        return
    times = last_run_times(app)
    slowest = sorted(times, key=times.__getitem__, reverse=True)[:SHOWN]
    if slowest:
        shown = ", ".join(f"{name} {times[name]:.1f} s" for name in slowest)
        logger.info("slowest to run, as last run: %s", shown)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("build-finished", _report)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
