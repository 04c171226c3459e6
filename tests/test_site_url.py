"""The published base URL and the 404 page's path prefix, checked before any build."""

from __future__ import annotations

import pytest
from bare_python import bare_python

from site_build.config import site_url


def test_without_site_url_the_site_describes_itself_as_served_locally() -> None:
    assert site_url.base_url({}) == site_url.LOCAL_URL
    assert site_url.path_prefix(site_url.LOCAL_URL) == "/"


def test_site_url_gets_a_trailing_slash_and_gives_the_prefix() -> None:
    url = site_url.base_url({"SITE_URL": "https://owner.github.io/repo"})
    assert url == "https://owner.github.io/repo/"
    assert site_url.path_prefix(url) == "/repo/"


@pytest.mark.parametrize(
    "value", ["owner.github.io/repo", "ftp://host/", "https://host/?q=1"]
)
def test_a_site_url_that_is_not_an_absolute_web_address_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="SITE_URL"):
        site_url.base_url({"SITE_URL": value})


def test_source_url_is_optional_and_checked() -> None:
    assert site_url.source_url({}) is None
    url = "https://github.com/owner/repo"
    assert site_url.source_url({"SOURCE_URL": url}) == url
    with pytest.raises(ValueError, match=r"SOURCE_URL='github\.com/owner/repo'"):
        site_url.source_url({"SOURCE_URL": "github.com/owner/repo"})


def test_nox_can_check_site_url_without_sphinx() -> None:
    # nox's own interpreter has only the standard library: it refuses a bad SITE_URL
    # in one line, before Sphinx's long configuration-error report.
    result = bare_python(
        "from site_build.config import site_url; "
        "site_url.base_url({'SITE_URL': 'owner.github.io/repo'})"
    )
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        "ValueError: SITE_URL='owner.github.io/repo' is not an absolute http(s) URL, "
        "e.g. https://owner.github.io/repo/"
    ), result.stderr
