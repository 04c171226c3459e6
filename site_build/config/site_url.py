"""Where the site is published: ``SITE_URL``, checked before anything is built.

The publishing workflow sets ``SITE_URL`` to the GitHub Pages address; without it the
site describes itself as served locally.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

ENV_VAR = "SITE_URL"
LOCAL_URL = "http://127.0.0.1:8000/"  # where `nox -s docs -- --serve` serves it


def base_url(environ: Mapping[str, str] | None = None) -> str:
    """Return the absolute http(s) URL the site is published at, ending with ``/``."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    url = value or LOCAL_URL
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{ENV_VAR}={value!r} is not an absolute http(s) URL, "
            "e.g. https://owner.github.io/repo/"
        )
    if parts.query or parts.fragment:
        raise ValueError(f"{ENV_VAR}={value!r} must not have a query or a fragment")
    return url if url.endswith("/") else url + "/"


def path_prefix(url: str) -> str:
    """Return the path a site at ``url`` is served under, e.g. ``/repo/`` (``/`` at a root)."""
    path = urlsplit(url).path or "/"
    return path if path.endswith("/") else path + "/"
