"""Carry a user's pip settings over to uv, which does not read pip's configuration.

nox installs with uv when it finds it (about ten times faster here) and with pip
otherwise. A machine set up for pip, with a private index, a folder of wheels or a
constraint file in ``pip.conf`` or ``PIP_*`` variables, must install the same packages
either way: ``uv_options`` turns pip's configuration (what ``pip config list``
reports, or pip's files and variables read here where nox's interpreter has no pip)
into the equivalent ``uv pip install`` options and environment.
"""

from __future__ import annotations

import ast
import configparser
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

#: pip options that take a list of values, and the uv option each becomes.
LISTS = {
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
}
#: pip settings that uv reads from the environment instead.
ENVIRONMENT = {"cert": "SSL_CERT_FILE", "timeout": "UV_HTTP_TIMEOUT"}
#: pip's ``[global]``, then ``[install]``, then ``PIP_*`` variables: later ones win.
SECTIONS = ("global", "install", ":env:")
TRUE = {"1", "true", "yes", "on", "y", "t"}


def pip_config(python: str = sys.executable) -> dict[str, str]:
    """What ``pip config list`` reports, as ``{"section.key": value}``.

    Where nox's interpreter has no pip (nox installed with ``uv tool``, say), the
    same files and variables are read here, in pip's order.
    """
    try:
        listed = subprocess.run(
            [python, "-m", "pip", "config", "list"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return read_config(os.environ)
    return parse(listed)


def config_files(environ: Mapping[str, str]) -> list[Path]:
    """pip's configuration files on Linux, in the order pip reads them (later wins)."""
    named = environ.get("PIP_CONFIG_FILE")
    if named == os.devnull:  # pip's way to turn every file off
        return []
    dirs = environ.get("XDG_CONFIG_DIRS") or "/etc/xdg"
    home = Path(environ.get("HOME") or Path.home())
    user_dir = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    files = [Path(d) / "pip" / "pip.conf" for d in dirs.split(os.pathsep) if d]
    files += [Path("/etc/pip.conf"), home / ".pip" / "pip.conf"]
    files += [user_dir / "pip" / "pip.conf", Path(sys.prefix) / "pip.conf"]
    return files + ([Path(named)] if named else [])


def read_config(environ: Mapping[str, str]) -> dict[str, str]:
    """pip's configuration from its files and ``PIP_*`` variables, without pip."""
    config: dict[str, str] = {}
    for path in config_files(environ):
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (OSError, configparser.Error):
            continue
        for section in parser.sections():
            for key, value in parser.items(section):
                config[f"{section}.{_normal(key)}"] = value
    for name, value in environ.items():
        if name.startswith("PIP_") and name != "PIP_CONFIG_FILE":
            config[f":env:.{_normal(name[4:])}"] = value
    return config


def _normal(key: str) -> str:
    return key.lower().replace("_", "-")


def parse(listed: str) -> dict[str, str]:
    """Read ``pip config list`` output: one ``section.key='value'`` per line."""
    config = {}
    for line in listed.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            config[key] = ast.literal_eval(value)
    return config


def effective(config: dict[str, str]) -> dict[str, str]:
    """The value pip itself would use for each install setting, by pip's precedence."""
    settings: dict[str, str] = {}
    for section in SECTIONS:
        for section_key, value in config.items():
            name, _, key = section_key.rpartition(".")
            if name == section and value:
                key = "timeout" if key == "default-timeout" else key
                settings[key] = value
    return settings


def uv_options(
    config: dict[str, str], extra_index_url: str | None = None
) -> tuple[list[str], dict[str, str]]:
    """``uv pip install`` arguments and environment equivalent to pip's ``config``.

    ``extra_index_url`` is searched besides the configured indexes, as with
    ``pip install --extra-index-url``.

    pip weighs every index alike and takes the best version among them; uv by default
    stops at the first index that has a package, so the strategy is set to pip's. pip
    also compiles the modules it installs; uv does so only when asked, and without the
    compiled files every process imports torch from source (where
    ``PYTHONDONTWRITEBYTECODE`` is set, every time: about twice as slow).
    """
    settings = effective(config)
    if extra_index_url:
        settings["extra-index-url"] = " ".join(
            filter(None, [settings.get("extra-index-url"), extra_index_url])
        )
    args = ["--index-strategy", "unsafe-best-match", "--compile-bytecode"]
    for key, option in LISTS.items():
        for value in settings.get(key, "").split():
            args += [option, value]
    if settings.get("no-index", "").lower() in TRUE:
        args.append("--no-index")
    env = {var: settings[key] for key, var in ENVIRONMENT.items() if key in settings}
    return args, env
