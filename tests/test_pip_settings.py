"""uv installs what pip would: the user's pip settings are carried over."""

from __future__ import annotations

import os

import pytest

from site_build.config import pip_settings


def test_pip_settings_become_uv_options_with_pips_precedence() -> None:
    config = {
        "global.index-url": "https://mirror.example/simple",
        "global.find-links": "/wheels",
        "install.find-links": "/install-wheels",
        ":env:.find-links": "/env-wheels /more-wheels",
        "global.extra-index-url": "file:///a/simple\nfile:///b/simple",
        "global.constraint": "/etc/pip-constraints.txt",
        "global.cert": "/etc/ca.pem",
        "global.default-timeout": "180",
        "freeze.find-links": "/not-for-install",
    }
    args, env = pip_settings.uv_options(config)
    assert args == [
        "--index-strategy", "unsafe-best-match", "--compile-bytecode",
        "--index-url", "https://mirror.example/simple",
        "--extra-index-url", "file:///a/simple",
        "--extra-index-url", "file:///b/simple",
        "--find-links", "/env-wheels",
        "--find-links", "/more-wheels",
        "--constraint", "/etc/pip-constraints.txt",
    ]  # fmt: skip
    assert env == {"SSL_CERT_FILE": "/etc/ca.pem", "UV_HTTP_TIMEOUT": "180"}


def test_torchs_index_is_searched_besides_the_configured_ones() -> None:
    config = {
        "global.index-url": "https://mirror.example/simple",
        "global.extra-index-url": "file:///a/simple",
    }
    args, _ = pip_settings.uv_options(config, "https://download.pytorch.org/whl/cpu")
    assert args[args.index("--index-url") + 1] == "https://mirror.example/simple"
    extras = [args[i + 1] for i, arg in enumerate(args) if arg == "--extra-index-url"]
    assert extras == ["file:///a/simple", "https://download.pytorch.org/whl/cpu"]


@pytest.mark.parametrize(("value", "expected"), [("yes", True), ("0", False)])
def test_no_index_is_a_boolean(value: str, expected: bool) -> None:
    args, _ = pip_settings.uv_options({":env:.no-index": value})
    assert ("--no-index" in args) is expected


def test_pip_config_list_output_is_read() -> None:
    listed = (
        ":env:.find-links='/opt/wheels'\n"
        "global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'\n"
    )
    assert pip_settings.parse(listed) == {
        ":env:.find-links": "/opt/wheels",
        "global.extra-index-url": "file:///opt/pypi/simple file:///opt/pypi-more/simple",
    }


def test_without_pip_its_files_and_variables_are_read(tmp_path) -> None:
    (tmp_path / "xdg" / "pip").mkdir(parents=True)
    (tmp_path / "xdg" / "pip" / "pip.conf").write_text(
        "[global]\nfind-links = /global-wheels\nextra-index-url = file:///a/simple\n"
    )
    (tmp_path / "home" / ".config" / "pip").mkdir(parents=True)
    (tmp_path / "home" / ".config" / "pip" / "pip.conf").write_text(
        "[global]\nfind_links = /user-wheels\n[install]\nconstraint = /c.txt\n"
    )
    environ = {
        "XDG_CONFIG_DIRS": str(tmp_path / "xdg"),
        "HOME": str(tmp_path / "home"),
        "PIP_DEFAULT_TIMEOUT": "180",
    }
    config = pip_settings.read_config(environ)
    settings = pip_settings.effective(config)
    assert settings["find-links"] == "/user-wheels"  # the user's file wins
    assert settings["extra-index-url"] == "file:///a/simple"
    assert settings["constraint"] == "/c.txt"
    assert settings["timeout"] == "180"
    assert pip_settings.read_config({**environ, "PIP_CONFIG_FILE": os.devnull}) == {
        ":env:.default-timeout": "180"
    }


def test_without_pip_the_files_are_read_instead() -> None:
    # No interpreter at that path: the fallback reads the environment given.
    assert pip_settings.pip_config(python="/nonexistent/python") == (
        pip_settings.read_config(os.environ)
    )
