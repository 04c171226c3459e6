"""What a browser context did: every request, the ones for other hosts, failures and
errors. conftest.py watches every test's context and fails the test on any problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, ConsoleMessage, Frame, Request, Response

#: The test server's address: the only host a page may ask for anything.
HOST = "127.0.0.1"
_LOCAL_SCHEMES = {"data", "blob", "about"}


def is_local(url: str) -> bool:
    """Tell whether a request stays on this machine's test server."""
    parts = urlsplit(url)
    return parts.scheme in _LOCAL_SCHEMES or (
        parts.scheme == "http" and parts.hostname == HOST
    )


@dataclass
class Traffic:
    """What the browser did while one test ran."""

    requests: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    expected_status: dict[str, int] = field(default_factory=dict)
    # How many times each page (by its main frame) has set off to another document, and
    # how many times it had when each of its other requests was made.
    _navigations: dict[Frame, int] = field(default_factory=dict)
    _made_at: dict[Request, tuple[Frame, int]] = field(default_factory=dict)
    # Requests Chromium cancelled: judged when the test ends, once every navigation
    # has been seen (one to about:blank makes no request, only a frame event).
    _aborted: list[Request] = field(default_factory=list)

    def expect_status(self, url: str, status: int) -> None:
        """Let one URL answer with an error status (the 404 page's own test)."""
        self.expected_status[url] = status

    def on_request(self, request: Request) -> None:
        self.requests.append(f"{request.method} {request.url}")
        if not is_local(request.url):
            self.outside.append(request.url)
        try:
            frame = request.frame
        except Exception:  # a service worker's request: no frame
            return
        if request.is_navigation_request():
            self._navigations[frame] = self._navigations.get(frame, 0) + 1
        else:
            self._made_at[request] = (frame, self._navigations.get(frame, 0))

    def on_frame_navigated(self, frame: Frame) -> None:
        self._navigations[frame] = self._navigations.get(frame, 0) + 1

    def _page_was_left(self, request: Request) -> bool:
        """Whether the document that made ``request`` has been left since: Chromium
        then cancels what it still loads (as a favicon asked for after ``load``)."""
        made_at = self._made_at.get(request)
        return made_at is not None and self._navigations.get(made_at[0], 0) > made_at[1]

    def on_response(self, response: Response) -> None:
        expected = self.expected_status.get(response.url)
        if response.status >= 400 and response.status != expected:
            self.failed.append(f"{response.url}: HTTP {response.status}")

    def on_request_failed(self, request: Request) -> None:
        if not is_local(request.url):
            return  # another host's request fails: reported as outside
        if request.failure == "net::ERR_ABORTED":
            self._aborted.append(request)
            return
        self.failed.append(f"{request.url}: {request.failure}")

    def on_console(self, message: ConsoleMessage) -> None:
        where = message.location.get("url", "")
        if message.type == "error" and where not in self.expected_status:
            self.errors.append(
                f"console error on {message.page.url if message.page else where}: {message.text}"
            )

    def problems(self) -> list[str]:
        # A cancelled request is no failure of the site when the test went on to
        # another page, which cancels what the old one still loads.
        cancelled = [
            f"{request.url}: {request.failure}"
            for request in self._aborted
            if not self._page_was_left(request)
        ]
        return (
            [f"request to another host: {url}" for url in self.outside]
            + [f"failed request: {item}" for item in [*self.failed, *cancelled]]
            + self.errors
        )


def watch(context: BrowserContext) -> Traffic:
    """Record every request, failure and error of a browser context from now on."""
    seen = Traffic()
    context.on("request", seen.on_request)
    context.on("response", seen.on_response)
    context.on("requestfailed", seen.on_request_failed)
    context.on("console", seen.on_console)
    context.on("weberror", lambda e: seen.errors.append(f"uncaught error: {e.error}"))
    for page in context.pages:
        page.on("framenavigated", seen.on_frame_navigated)
    context.on("page", lambda page: page.on("framenavigated", seen.on_frame_navigated))
    return seen
