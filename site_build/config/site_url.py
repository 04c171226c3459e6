"""Where the site is published (``SITE_URL``) and where its source is
(``SOURCE_URL``), checked before anything is built.

The publishing workflow sets ``SITE_URL`` to the GitHub Pages address and
``SOURCE_URL`` to the repository; without the first the site describes itself as served
locally, without the second it links to no repository.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

ENV_VAR = "SITE_URL"
SOURCE_ENV_VAR = "SOURCE_URL"
LOCAL_URL = "http://127.0.0.1:8000/"  # where `nox -s docs -- --serve` serves it


def _checked(name: str, value: str, example: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{name}={value!r} is not an absolute http(s) URL, e.g. {example}"
        )
    if parts.query or parts.fragment:
        raise ValueError(f"{name}={value!r} must not have a query or a fragment")
    return value


def base_url(environ: Mapping[str, str] | None = None) -> str:
    """Return the absolute http(s) URL the site is published at, ending with ``/``."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    url = (
        _checked(ENV_VAR, value, "https://owner.github.io/repo/")
        if value
        else LOCAL_URL
    )
    return url if url.endswith("/") else url + "/"


def source_url(environ: Mapping[str, str] | None = None) -> str | None:
    """Return the absolute http(s) URL of the site's source repository, if given."""
    value = (os.environ if environ is None else environ).get(SOURCE_ENV_VAR, "").strip()
    return (
        _checked(SOURCE_ENV_VAR, value, "https://github.com/owner/repo")
        if value
        else None
    )


def path_prefix(url: str) -> str:
    """Return the path a site at ``url`` is served under, e.g. ``/repo/`` (``/`` at a root)."""
    path = urlsplit(url).path or "/"
    return path if path.endswith("/") else path + "/"
