"""Rank every query of ``search_queries`` under Pagefind and under Sphinx's own search.

Run after a build, from the repository root, with the browser session's environment:
``.nox/browser/bin/python browser_tests/measure_search.py``. It prints one line per
query and edition (the expected section's place under each engine; - for absent) and
the counts that ``test_search.py`` holds Pagefind to; then the same for the held-out
questions (``search_queries.HELD_OUT``), which no test holds to anything.
"""

from __future__ import annotations

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

# Run as a script, its own folder comes first on the path: the browser tests' helpers.
import built_site
import search_queries
import site_search
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ENGINES = ("pagefind", "sphinx")


def _quiet(handler: type) -> type:
    class Quiet(handler):
        def log_message(self, *args: object) -> None:
            pass

    return Quiet


def main() -> None:
    handler = partial(_quiet(SimpleHTTPRequestHandler), directory=str(built_site.HTML))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = f"http://127.0.0.1:{server.server_port}/"
    kinds = (*search_queries.FIRST, "held-out")
    tally = {(e, ed, k): [0, 0, 0] for e in ENGINES for ed in ("en", "zh_CN")
             for k in kinds}  # fmt: skip
    listed = [(e, q, q.kind) for e, q in search_queries.cases()]
    held_out = search_queries.cases(search_queries.HELD_OUT)
    with sync_playwright() as p:
        page = p.chromium.launch(executable_path=CHROMIUM).new_page()
        for edition, query, kind in listed + [(e, q, "held-out") for e, q in held_out]:
            edition_root = root if edition == "en" else f"{root}{edition}/"
            folder = built_site.HTML if edition == "en" else built_site.HTML / edition
            answers = (query.expected, *query.also)
            aliases = {
                answer: site_search.section_aliases(
                    (folder / answer.split("#")[0]).read_text(encoding="utf-8")
                )
                for answer in answers
            }
            places = []
            for engine in ENGINES:
                found = site_search.results(page, edition_root, query.text, engine)
                ranks = [site_search.rank(found, a, aliases[a]) for a in answers]
                place = min((r for r in ranks if r is not None), default=None)
                count = tally[engine, edition, kind]
                count[0] += place == 1
                count[1] += place is not None and place <= 3
                count[2] += 1
                places.append(f"{engine} {place or '-'}")
            print(f"{edition:5} {kind:8} {', '.join(places):24} {query.text[:60]}")
    for (engine, edition, kind), (first, top3, total) in tally.items():
        if total:
            print(f"{engine:8} {edition:5} {kind:8} first {first}/{total}, "
                  f"top 3 {top3}/{total}")  # fmt: skip
    server.shutdown()


if __name__ == "__main__":
    main()
