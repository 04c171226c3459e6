"""Sphinx extension: run the MyST-NB pages that need running side by side, early.

MyST-NB runs a page when Sphinx reads it, one page after another, each in a new kernel
that spends seconds starting and importing torch. When the build starts, this extension
finds the pages with no cached run, builds their notebooks exactly as MyST-NB will
(same reader, same configuration, so the same cache key), and runs them, one per core
at a time, while Sphinx-Gallery runs the examples in the build process. Each page runs
in a kernel forked from one process that has imported torch already (``warm_kernel``),
so a page pays for its own cells only. The kernels are driven by threads of one
helper process (driving a kernel is waiting on messages); not by threads of the build
process, where Sphinx-Gallery runs the examples meanwhile and swaps process-wide state
(standard streams, warning filters) that a thread would share.
Before Sphinx reads the pages, each successful run is stored in MyST-NB's own
jupyter-cache, so MyST-NB finds every page cached. A page that fails is not stored:
MyST-NB runs it again when it reads it, and reports the error as it always does.

It calls functions that MyST-NB, MyST-Parser and jupyter-cache do not document
(``PATCHED``), repeats Sphinx's test of which pages it reads again, and starts kernels
the way ipykernel's launcher does (``warm_kernel``): ``setup`` refuses any version of
those but the pinned ones. ``tests/test_small_sites.py`` is the integration test: a page
runs early, in a kernel that has torch imported already, and MyST-NB finds that run in
its cache instead of running the page again.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from site_build import tested_versions
from site_build.config import build_command, devices

#: What this extension (with ``warm_kernel``) relies on in each distribution's internals.
PATCHED = {
    "myst-nb": "create_nb_reader and create_mystnb_config",
    "myst-parser": "create_myst_config",
    "jupyter-cache": "single_nb_execution and the cache's bundles",
    "ipykernel": "a kernel started as ipykernel_launcher starts it",
    "sphinx": "which pages Sphinx reads again (env.all_docs, env.config_status)",
}

logger = logging.getLogger(__name__)


def run_notebook(
    notebook, cwd: str, timeout: int | None, kernel_name: str
) -> tuple[object, float, str]:
    """Execute ``notebook`` in a new kernel; return it, the seconds taken, any error."""
    from jupyter_cache.executors.utils import single_nb_execution

    try:
        result = single_nb_execution(
            notebook,
            cwd=cwd,
            timeout=timeout,
            allow_errors=False,
            meta_override=True,
            kernel_name=kernel_name,
        )
    except Exception as error:  # a kernel that died, say: MyST-NB runs the page again
        return notebook, 0.0, f"{type(error).__name__}: {error}"
    return notebook, result.time, result.exc_string or ""


def run_notebooks(
    jobs: list, timeout: int | None, kernel: str, workers: int, results
) -> None:
    """In the helper process: run ``jobs`` (key, notebook, cwd), ``workers`` at a time,
    sending each (key, notebook, seconds, error) to ``results`` as it finishes."""
    with ThreadPoolExecutor(workers, thread_name_prefix="notebook") as pool:
        futures = {
            pool.submit(run_notebook, notebook, cwd, timeout, kernel): key
            for key, notebook, cwd in jobs
        }
        for future in as_completed(futures):
            results.send((futures[future], *future.result()))
    results.close()


@dataclass
class Prefetch:
    """The runs started for one build: the helper process, and each page's reader."""

    process: multiprocessing.process.BaseProcess | None = None
    results: object = None
    readers: dict[Path, object] = field(default_factory=dict)


def may_be_read(env: BuildEnvironment, docname: str, path: Path) -> bool:
    """Whether Sphinx may read the page in this build: new, edited, or a new configuration.

    A page read before with the same configuration (so the same execution cache) took
    its outputs from that cache then; unless its source changed, nothing runs now.
    """
    from sphinx.environment import CONFIG_OK

    if env.config_status != CONFIG_OK or docname not in env.all_docs:
        return True
    edited = -(-path.stat().st_mtime_ns // 1000)  # microseconds, rounded up, as Sphinx
    return edited > env.all_docs[docname]


def pages_to_run(app: Sphinx) -> dict[Path, tuple[object, object]]:
    """MyST-NB pages whose notebook has no cached run: path -> (reader, notebook)."""
    from jupyter_cache import get_cache
    from myst_nb.core.read import create_nb_reader
    from myst_nb.sphinx_ext import create_mystnb_config
    from myst_parser.sphinx_ext.main import create_myst_config

    # The configuration MyST-NB and MyST build on builder-inited; built here first so
    # that the notebooks, and therefore their cache keys, are the ones they will use.
    # They log it when they build it again: once in the log is enough.
    with logging.suppress_logging():
        create_myst_config(app)
        create_mystnb_config(app)
    md_config, nb_config = app.env.myst_config, app.env.mystnb_config
    if nb_config.execution_mode != "cache" or nb_config.kernel_rgx_aliases:
        return {}
    cache = get_cache(nb_config.execution_cache_path)
    found = {}
    for docname in sorted(app.project.discover(app.config.exclude_patterns)):
        path = Path(app.env.doc2path(docname))
        if path.suffix != ".md" or not may_be_read(app.env, docname, path):
            continue
        text = path.read_text(encoding="utf-8")
        reader = create_nb_reader(str(path), md_config, nb_config, text)
        if reader is None:
            continue  # a plain MyST page: nothing runs
        notebook = reader.read(text)
        if nb_config.metadata_key in notebook.metadata:
            continue  # page-level settings: leave the page to MyST-NB
        try:
            cache.match_cache_notebook(notebook)
        except KeyError:
            found[path] = (reader, notebook)
    return found


def _start_kernel_early(app: Sphinx) -> None:
    """Start the preloaded kernel process now if a page was edited since the last build.

    Its imports take seconds; started while Sphinx loads its extensions, they are done
    by the time the pages are known. Without a previous build, whether anything runs
    depends on the execution cache, so the process starts later, if needed.
    """
    from site_build.extensions import warm_kernel

    environment = Path(app.doctreedir) / "environment.pickle"
    if not environment.exists():
        return
    built = environment.stat().st_mtime

    def edited(path: Path) -> bool:
        try:
            return path.stat().st_mtime > built
        except OSError:  # an editor's lock file, a dangling link: not a page
            return False

    if any(edited(path) for path in Path(app.srcdir).rglob("*.md")):
        warm_kernel.start()


def _start(app: Sphinx) -> None:
    from site_build.extensions import warm_kernel

    prefetch = Prefetch()
    app.notebook_prefetch = prefetch  # type: ignore[attr-defined]
    pages = pages_to_run(app)
    if not pages:
        warm_kernel.stop()
        return
    timeout = app.env.mystnb_config.execution_timeout
    workers = min(len(pages), (os.cpu_count() or 1) + 1)
    if devices.requested() == "cuda":  # each kernel holds a CUDA context of its own
        workers = min(workers, build_command.CUDA_WORKERS)
    if warm_kernel.ZYGOTE:  # started early, for an edited page or two
        kernel = warm_kernel.SPEC_NAME
    elif len(pages) >= warm_kernel.MANY_PAGES:
        kernel = warm_kernel.start(warm_kernel.PRELOAD + warm_kernel.PRELOAD_FOR_MANY)
    else:
        kernel = warm_kernel.start()
    jobs = []
    for path, (reader, notebook) in pages.items():
        logger.info(f"{path}: Executing notebook early, in a preloaded kernel")
        jobs.append((str(path), notebook, str(path.parent)))
        prefetch.readers[path] = reader
    # A fresh interpreter (the build process has torch loaded), a daemon: it ends with
    # the build, however the build ends.
    context = multiprocessing.get_context("spawn")
    prefetch.results, sender = context.Pipe(duplex=False)
    prefetch.process = context.Process(
        target=run_notebooks,
        args=(jobs, timeout, kernel, workers, sender),
        daemon=True,
    )
    prefetch.process.start()
    sender.close()


def _store(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    prefetch: Prefetch | None = getattr(app, "notebook_prefetch", None)
    if prefetch is None or prefetch.process is None:
        return
    from site_build.extensions import code_links

    code_links.resolve_ahead(app)  # while the pages run, the build would only wait

    cache = get_cache(env.mystnb_config.execution_cache_path)
    for _ in prefetch.readers:
        try:
            key, notebook, seconds, error = prefetch.results.recv()
        except EOFError:  # the helper process died: MyST-NB runs what is left
            logger.info("the process running pages early ended; MyST-NB runs the rest")
            break
        path = Path(key)
        if error:
            logger.info(
                f"{path}: failed before it was read ({error.splitlines()[-1]});"
                " MyST-NB will run it"
            )
            continue
        logger.info(f"{path}: Executed notebook in {seconds:.2f} seconds")
        stage = cache.add_nb_to_project(
            str(path), read_data=prefetch.readers[path].read_fmt
        )
        cache.cache_notebook_bundle(
            CacheBundleIn(notebook, stage.uri, data={"execution_seconds": seconds}),
            check_validity=False,
            overwrite=True,
        )
    # No helper or zygote is left when Sphinx forks its reading processes.
    prefetch.process.join()
    prefetch.process = None
    from site_build.extensions import warm_kernel

    warm_kernel.stop()


def setup(app: Sphinx) -> dict[str, object]:
    for distribution, internals in PATCHED.items():
        tested_versions.require_tested(
            distribution, f"the notebook prefetch (it uses {internals})"
        )
    _start_kernel_early(app)
    # Before Sphinx-Gallery runs the examples on builder-inited (priority 500).
    app.connect("builder-inited", _start, priority=400)
    app.connect("env-before-read-docs", _store)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
