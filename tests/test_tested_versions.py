"""Each extension that patches another library's internals refuses, in one line, a
version of it other than the pinned one; the integration tests that show each patch
taking effect are in test_small_sites.py and test_translations.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from site_build import tested_versions
from site_build.extensions import (
    code_links,
    editions,
    figure_alt,
    gallery_pages,
    notebook_prefetch,
    pagefind_search,
    translated_links,
)

#: Each guarded patch: the extension whose setup() refuses, and the distribution.
GUARDS = [
    *((notebook_prefetch, name) for name in notebook_prefetch.PATCHED),
    (code_links, "sphinx-codeautolink"),
    (figure_alt, "sphinx-gallery"),
    (gallery_pages, "sphinx-gallery"),
    (editions, "sphinx"),
    (pagefind_search, "pagefind-bin-extended"),
    (pagefind_search, "pydata-sphinx-theme"),
    (pagefind_search, "sphinx"),
    (translated_links, "sphinx"),
    (translated_links, "myst-parser"),
]


@pytest.mark.parametrize(
    ("extension", "distribution"),
    GUARDS,
    ids=[f"{e.__name__.rsplit('.', 1)[-1]}-{d}" for e, d in GUARDS],
)
def test_an_untested_version_stops_the_build_in_one_line(
    monkeypatch: pytest.MonkeyPatch, extension, distribution: str
) -> None:
    real = tested_versions.installed
    monkeypatch.setattr(
        tested_versions,
        "installed",
        lambda name: "99.0" if name == distribution else real(name),
    )
    with pytest.raises(tested_versions.UntestedVersion) as raised:
        extension.setup(None)  # the guard comes first: the app is never touched
    message = str(raised.value)
    pinned = tested_versions.pins()[tested_versions.normal(distribution)]
    assert "\n" not in message
    assert message.startswith(f"{distribution} 99.0 is untested with "), message
    assert f"tested with {pinned}, the pin in constraints.txt" in message, message


def test_the_pinned_versions_pass_and_each_guarded_distribution_is_pinned() -> None:
    for _, distribution in GUARDS:
        tested_versions.require_tested(distribution, "a test")


def test_a_distribution_without_a_pin_is_refused() -> None:
    with pytest.raises(tested_versions.UntestedVersion, match="does not pin"):
        tested_versions.require_tested("no-such-distribution", "a test")


def test_the_pins_are_read_as_the_constraints_write_them(tmp_path: Path) -> None:
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("# a comment\nMyST_NB==1.4.0\nsphinx==9.0.4  # why\n")
    assert tested_versions.pins(constraints) == {"myst-nb": "1.4.0", "sphinx": "9.0.4"}


def test_the_pinned_sphinx_still_names_a_chinese_stemmer_it_does_not_define() -> None:
    """When this fails, Sphinx has fixed sphinx-doc/sphinx#14229: remove
    editions._chinese_search and its guard."""
    from sphinx.search import IndexBuilder
    from sphinx.search.zh import SearchChinese

    lang = SimpleNamespace(
        js_stemmer_rawcode=SearchChinese.js_stemmer_rawcode,
        language_name=SearchChinese.language_name,
    )
    code = IndexBuilder.get_js_stemmer_code(SimpleNamespace(lang=lang))  # type: ignore[arg-type]
    named = re.search(r"window\.Stemmer = (\w+);", code)[1]  # type: ignore[index]
    assert f"var {named}=" not in code, (
        f"Sphinx now defines {named}: remove editions._chinese_search"
    )


#: A sphinx-build whose guarded extension meets an untested version. In a process of
#: its own: a Sphinx build registers roles and nodes in docutils for the whole process,
#: which other tests' docutils parsing would then meet.
UNTESTED_BUILD = """
import sys
from sphinx.cmd.build import main
from site_build import tested_versions
tested_versions.installed = lambda name: "99.0"
sys.exit(main(sys.argv[1:]))
"""


def test_sphinx_build_says_only_that_line(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        'extensions = ["site_build.extensions.figure_alt"]'
    )
    (tmp_path / "index.rst").write_text("Title\n=====\n")
    build = subprocess.run(
        [sys.executable, "-c", UNTESTED_BUILD, "-q", "-b", "html", str(tmp_path),
         str(tmp_path / "out")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode == 1, build.stdout + build.stderr
    lines = (build.stdout + build.stderr).strip().splitlines()
    assert len(lines) == 1, "Sphinx added its error report:\n" + "\n".join(lines)
    assert "is untested with figure_alt" in lines[0], lines[0]
