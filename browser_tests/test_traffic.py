"""The guard every browser test runs under (conftest.py): a page's request for any host
but 127.0.0.1 is reported, which fails the test, and never leaves the browser."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from page_traffic import watch
from playwright.sync_api import Browser

_OWN_IMAGE = "_static/favicon.svg"
# Ask for each URL twice, as a page can: an image and a script's fetch.
_ASK_FOR = """async (urls) => Promise.all(urls.flatMap(url => [
    fetch(url, {mode: 'no-cors'}).then(() => 'answered', () => 'failed'),
    new Promise(done => {
        const img = new Image();
        img.onload = () => done('answered');
        img.onerror = () => done('failed');
        img.src = url;
        document.body.append(img);
    }),
]))"""


@contextmanager
def recording_server(address: str, delay: float = 0) -> Iterator[tuple[int, list[str]]]:
    """A server on ``address`` that answers everything, after ``delay`` seconds, and
    records every path asked."""
    asked: list[str] = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            time.sleep(delay)
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer((address, 0), Recorder)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_port, asked
    finally:
        server.shutdown()
        server.server_close()


def test_a_request_for_another_host_is_reported_and_never_sent(
    browser: Browser, base_url: str
) -> None:
    # Other hosts that are this machine, so that a request sent would be seen arriving:
    # 127.0.0.1 by another name, and another loopback address.
    with (
        recording_server("127.0.0.1") as (by_name_port, by_name),
        recording_server("127.0.0.2") as (by_address_port, by_address),
    ):
        for port, host in ((by_name_port, "127.0.0.1"), (by_address_port, "127.0.0.2")):
            urllib.request.urlopen(f"http://{host}:{port}/reachable", timeout=10)
        assert by_name == by_address == ["/reachable"], "the recorders record nothing"
        by_name.clear()
        by_address.clear()
        outside = [
            f"http://localhost:{by_name_port}/by-name.png",
            f"http://127.0.0.2:{by_address_port}/by-address.png",
            "https://example.com/anywhere.png",
        ]
        context = browser.new_context(base_url=base_url)
        try:
            seen = watch(context)
            page = context.new_page()
            page.goto("index.html")
            results = page.evaluate(_ASK_FOR, [*outside, base_url + _OWN_IMAGE])
        finally:
            context.close()
    assert results[:-2] == ["failed"] * 2 * len(outside), results
    assert results[-2:] == ["answered"] * 2, "the site's own server did not answer"
    assert by_name == by_address == [], "a request for another host was sent"
    assert sorted(seen.outside) == sorted(outside * 2), seen.outside
    problems = seen.problems()  # what fails a test
    assert all(f"request to another host: {url}" in problems for url in outside), (
        problems
    )


# Ask for a URL and wait until the server has the request; cancel it there if told to.
_ASK_AND_WAIT = """async ([url, cancel]) => {
    const controller = new AbortController();
    const answer = fetch(url, {signal: controller.signal}).catch(() => 'cancelled');
    await new Promise(r => setTimeout(r, 300));
    if (cancel) controller.abort();
    return cancel ? answer : 'left';
}"""


def test_a_request_cut_off_by_leaving_the_page_is_no_failure_of_the_site(
    browser: Browser, base_url: str
) -> None:
    """A page cancelling its own request is reported; the test opening the next page
    while the last one still loads (its favicon, asked for after ``load``) is not."""
    with recording_server("127.0.0.1", delay=3) as (port, asked):
        slow = f"http://127.0.0.1:{port}/slow"
        context = browser.new_context(base_url=base_url)
        try:
            seen = watch(context)
            page = context.new_page()
            page.goto("index.html")
            page.evaluate(_ASK_AND_WAIT, [slow + "?left", False])
            page.goto("views.html")  # leaves the request to /slow?left unanswered
            left = seen.problems()
            page.evaluate(_ASK_AND_WAIT, [slow + "?cancelled", True])
            page.wait_for_timeout(300)
        finally:
            context.close()
    assert asked[:2] == ["/slow?left", "/slow?cancelled"], asked
    assert left == [], "a request the test cut off by leaving the page is reported"
    assert seen.problems() == [f"failed request: {slow}?cancelled: net::ERR_ABORTED"], (
        seen.problems()
    )
