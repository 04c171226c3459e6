"""Serve build/html on 127.0.0.1 and drive Debian's Chromium through it with Playwright.

Every request the browser makes is recorded (build/browser/requests.txt, joined from
each pytest-xdist worker's part when the session ends). A test fails
when its pages ask any host but 127.0.0.1 for anything (Chromium itself resolves every
other host name and address to nothing, so such a request fails before it is sent and
nothing leaves the machine), when a request fails or answers with an error status it
did not expect, and when a page logs a console error or throws.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import built_site
import pytest
from page_traffic import HOST, Traffic, watch
from playwright.sync_api import BrowserContext, Page, Response

# Debian's package: Playwright's own browser download cannot reach its host here.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    # Nothing but the pages may talk to the network: no updates, sync, field trials.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Every host but the test server is unknown: a request for one fails in Chromium's
    # own resolver, IP addresses and "localhost" included, and never reaches a network.
    # (A Playwright route would do it too, but costs a round trip to Python per
    # request and turns the HTTP cache off.)
    f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {HOST}",
]


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serve the site under its published path prefix, answering 404s with 404.html."""

    def __init__(self, *args: object, prefix: str, **kwargs: object) -> None:
        self.prefix = prefix
        super().__init__(*args, directory=str(built_site.HTML), **kwargs)

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        if not path.startswith(self.prefix):
            return str(built_site.HTML / "\0outside")
        return super().translate_path("/" + path[len(self.prefix) :])

    def send_error(
        self, code: int, message: str | None = None, explain: str | None = None
    ) -> None:
        page = built_site.HTML / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()  # as GitHub Pages does for a missing path
        self.send_response(404, message)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """The browser side records every request; keep the test output clean."""


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    """Serve build/html on a free port of 127.0.0.1; the URL of the site's root."""
    prefix = built_site.path_prefix()
    server = ThreadingHTTPServer((HOST, 0), partial(_SiteHandler, prefix=prefix))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://{HOST}:{server.server_port}{prefix}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Launch Debian's Chromium by path; Playwright gives each launch a fresh profile."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: install Debian's package "
            "(apt-get update && apt-get install -y chromium) or set CHROMIUM"
        )
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {
        **browser_context_args,
        "viewport": {"width": 1280, "height": 800},
        "accept_downloads": True,
        "color_scheme": "light",
    }


_ALL_REQUESTS: list[str] = []
_CALL_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed
    return report


@pytest.fixture(autouse=True)
def traffic(request: pytest.FixtureRequest) -> Iterator[Traffic | None]:
    """Record every request of the test's browser context and fail on any problem.

    A test without a page (or a context of its own) has nothing to watch: it gets no
    browser context, which would cost it one.
    """
    if "context" not in request.fixturenames:
        yield None
        return
    context: BrowserContext = request.getfixturevalue("context")
    seen = watch(context)
    yield seen
    _ALL_REQUESTS.extend([f"# {request.node.nodeid}", *seen.requests])
    problems = "\n".join(seen.problems())
    if request.node.stash.get(_CALL_FAILED, False):
        if problems:  # the test failed already: one failure per test is enough
            print(f"the browser also saw:\n{problems}")
    else:
        assert not problems, f"the browser saw:\n{problems}"


def visit(page: Page, path: str, *, idle: bool = False) -> Response:
    """Open a page of the site, relative to its root, and wait until it has loaded.

    That is its ``load`` event (every image, style sheet and script of the page) and
    its fonts: enough to measure its layout and use its scripts. ``idle`` waits on
    until the network falls silent (half a second without a request), so that requests
    made after the ``load`` event are seen in the test that made them: every page is
    opened so once, in test_every_page.py.
    """
    response = page.goto(path)
    assert response is not None, f"no response for {path}"
    assert response.ok, f"{path} answered HTTP {response.status}"
    if idle:
        page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready.then(() => undefined)")
    return response


@pytest.fixture
def open_page(page: Page):
    """Open a page of the site by its path (``gallery/clone.html``) and wait for it;
    ``idle=True`` waits until the network falls silent too."""
    return partial(visit, page)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="also photograph every page whole, under build/screenshots/",
    )


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Skip the screenshots unless asked for, before a browser context opens for each."""
    if config.getoption("--screenshots"):
        return
    skip = pytest.mark.skip(
        reason="whole-page screenshots are taken on request: "
        "nox -s browser -- --screenshots"
    )
    for item in items:
        if item.get_closest_marker("screenshots"):
            item.add_marker(skip)


def _worker() -> str | None:
    """The pytest-xdist worker this process is (``gw0``...), or None for the main one."""
    return os.environ.get("PYTEST_XDIST_WORKER")


def _request_log_parts() -> list[Path]:
    return sorted(built_site.REQUEST_LOG.parent.glob("requests.gw*.txt"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "screenshots: a whole-page screenshot, taken only with --screenshots"
    )
    if _worker() is None:  # before any worker starts: no part left from an old run
        for part in _request_log_parts():
            part.unlink()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Each worker writes the requests it saw; the main process joins them in one log."""
    log = built_site.REQUEST_LOG
    log.parent.mkdir(parents=True, exist_ok=True)
    if (worker := _worker()) is not None:
        log.with_name(f"requests.{worker}.txt").write_text(
            "".join(f"{line}\n" for line in _ALL_REQUESTS), encoding="utf-8"
        )
        return
    parts = _request_log_parts()
    if not _ALL_REQUESTS and not parts:
        return  # nothing ran a browser: keep the last run's log
    lines = "".join(f"{line}\n" for line in _ALL_REQUESTS)
    lines += "".join(part.read_text(encoding="utf-8") for part in parts)
    log.write_text(lines, encoding="utf-8")
    for part in parts:
        part.unlink()
