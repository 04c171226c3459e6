"""Check every internal link and anchor of a built site; list external links, unfetched.

Run on a build: ``python -m site_build.commands.site_links build/html [--external FILE]``. An
internal link is one to a file of the site: relative, absolute under the path the site
is published at, or a full URL under its base URL (found in the home page's canonical
link). It must name a file that exists and, for a page, an anchor that page defines.
Every other http(s) or mailto link is external: it is listed, never fetched.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from site_build import html_urls
from site_build.config.edition_list import EDITIONS

_IGNORED_SCHEMES = {"javascript", "data", "blob", "about"}
_EXTERNAL_SCHEMES = {"http", "https", "mailto", "ftp", "tel"}
# Folders of assets, at the root of each edition: their .html files are theme
# templates, not pages.
_ASSET_DIRS = tuple(
    f"{edition}{folder}/"
    for edition in ("", *(f"{e.folder}/" for e in EDITIONS if e.folder))
    for folder in ("_static", "_sources", "_downloads", "_images")
)


@dataclass(frozen=True)
class Link:
    """One URL named by one file of the site."""

    source: str  # the file that names it, relative to the site root
    url: str


@dataclass
class Report:
    """What a check of a built site found."""

    files: int = 0
    internal: int = 0
    broken: list[tuple[Link, str]] = field(default_factory=list)
    external: dict[str, list[str]] = field(default_factory=dict)


def canonical_base(index_html: str) -> str | None:
    """Return the base URL of a site from its home page's canonical link, if any."""
    match = re.search(
        r"""<link\s+rel=["']canonical["']\s+href=["']([^"']+)["']""", index_html
    )
    if not match:
        return None
    return match.group(1).rsplit("/", 1)[0] + "/"


def _resolve(source: str, url: str, base_url: str | None) -> tuple[str, str] | None:
    """Map a URL named in ``source`` to (site path, fragment); None when it is not internal."""
    prefix = (urlsplit(base_url).path or "/") if base_url else "/"
    if base_url and url.startswith(base_url):
        url = prefix + url[len(base_url) :]
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    if parts.path.startswith("/"):
        if not parts.path.startswith(prefix):
            return ("\0outside " + prefix, "")
        path = PurePosixPath(parts.path[len(prefix) :] or ".")
    elif parts.path:
        path = PurePosixPath(source).parent / parts.path
    else:
        path = PurePosixPath(source)
    resolved: list[str] = []
    for part in unquote(str(path)).split("/"):
        if part == "..":
            if not resolved:
                return ("\0above the site root", "")
            resolved.pop()
        elif part not in ("", "."):
            resolved.append(part)
    target = "/".join(resolved)
    if parts.path.endswith("/") or not target:
        target = f"{target}/index.html".lstrip("/")
    return target, unquote(parts.fragment)


def check_site(root: Path, base_url: str | None = None) -> Report:
    """Check every link of the HTML and CSS files under ``root``."""
    files = sorted(
        p
        for p in root.rglob("*")
        if p.suffix == ".css"
        or (
            p.suffix == ".html"
            and not p.relative_to(root).as_posix().startswith(_ASSET_DIRS)
        )
    )
    names = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    anchors: dict[str, set[str]] = {}
    links: list[Link] = []
    for path in files:
        source = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".html":
            anchors[source], named = html_urls.parse_page(text)
            urls = [item.url for item in named]
        else:
            urls = html_urls.css_urls(text)
        links += [Link(source, url) for url in urls]
    report = Report(files=len(files))
    external: dict[str, set[str]] = defaultdict(set)
    for link in links:
        scheme = urlsplit(link.url).scheme.lower()
        if scheme in _IGNORED_SCHEMES:
            continue
        resolved = _resolve(link.source, link.url, base_url)
        if resolved is None:
            if scheme in _EXTERNAL_SCHEMES or link.url.startswith("//"):
                external[link.url].add(link.source)
            else:
                report.broken.append((link, f"unknown scheme {scheme!r}"))
            continue
        report.internal += 1
        target, fragment = resolved
        if target.startswith("\0"):
            report.broken.append((link, target[1:]))
        elif target not in names and f"{target}/index.html" not in names:
            report.broken.append((link, f"no file {target}"))
        elif fragment and target in anchors and fragment not in anchors[target]:
            report.broken.append((link, f"{target} has no anchor #{fragment}"))
    report.external = {url: sorted(external[url]) for url in sorted(external)}
    return report


def main(argv: list[str] | None = None) -> int:
    """Check a built site; print what is broken and how many external links there are."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the built site, e.g. build/html")
    parser.add_argument("--base-url", help="default: the home page's canonical link")
    parser.add_argument("--external", type=Path, help="write the external links here")
    args = parser.parse_args(argv)
    index = args.root / "index.html"
    if not index.is_file():
        print(f"{index} does not exist: build the site first", file=sys.stderr)
        return 2
    base_url = args.base_url or canonical_base(index.read_text(encoding="utf-8"))
    report = check_site(args.root, base_url)
    for link, reason in report.broken:
        print(f"broken: {link.source}: {link.url} ({reason})", file=sys.stderr)
    if args.external:
        args.external.parent.mkdir(parents=True, exist_ok=True)
        args.external.write_text(
            "".join(f"{url}\t{' '.join(p)}\n" for url, p in report.external.items()),
            encoding="utf-8",
        )
    where = f", listed in {args.external}" if args.external else ""
    print(
        f"{report.files} files, {report.internal} internal links checked, "
        f"{len(report.broken)} broken; {len(report.external)} external links "
        f"not fetched{where}"
    )
    return 1 if report.broken else 0


if __name__ == "__main__":
    sys.exit(main())
