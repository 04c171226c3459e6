"""Preview the readability checks of a few pages without building the site.

    python -m site_build.commands.readability docs/views.md examples/clone.py

Each MyST page, and each gallery script turned into the reStructuredText its page is
made of, is rendered by Sphinx in a temporary folder with the site's theme and its
answer and verdict extensions, but without running any code. The checks of
``site_build.readability`` then run on the HTML, as ``tests/test_readability.py``
runs them on the built site. Exits 1 when a page fails, naming page and section.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import textwrap
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from site_build.readability import NOT_NARRATIVE, long_prose, parse, unanswered

CONF = {
    "extensions": [
        "myst_nb",
        "sphinx_design",
        "site_build.extensions.myth_verdicts",
        "site_build.extensions.answers",
        "site_build.commands.readability",
    ],
    "nb_execution_mode": "off",
    "myst_enable_extensions": [
        "colon_fence",
        "deflist",
        "attrs_inline",
        "substitution",
    ],
    "myst_heading_anchors": 3,
    "myst_substitutions": {
        "torch_version": "2",
        "source_repository": "source repository",
        "page_device": "cpu",
        "verified_devices": "CPU",
    },
    "html_theme": "pydata_sphinx_theme",
    "suppress_warnings": ["myst", "ref", "toc"],
}


class Placeholder(Directive):
    """The matrix's directives, which need measurements: a paragraph in their place."""

    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = None

    def run(self) -> list[nodes.Node]:
        return [nodes.paragraph(text="(measured at build time)")]


def gallery_rst(script: Path) -> str:
    """The reStructuredText of a gallery script's page: its text, its code as blocks."""
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    _, blocks = split_code_and_text_blocks(str(script))
    parts = []
    for label, content, _ in blocks:
        if label == "text":
            parts.append(content)
        else:
            parts.append(".. code-block:: python\n\n" + textwrap.indent(content, "   "))
    return "\n\n".join(parts)


def render(sources: list[Path], out: Path) -> dict[Path, Path]:
    """Build ``sources`` as one small site in ``out``; each source's HTML file."""
    src = out / "src"
    src.mkdir()
    html = {}
    for source in sources:
        name = source.stem
        if source.suffix == ".py":
            (src / f"{name}.rst").write_text(gallery_rst(source), encoding="utf-8")
        else:
            (src / f"{name}.md").write_text(source.read_text("utf-8"), encoding="utf-8")
        html[source] = out / "html" / f"{name}.html"
    (src / "conf.py").write_text("", encoding="utf-8")
    if not (src / "index.md").exists():
        pages = "\n".join(f"   {source.stem}" for source in sources)
        (src / "index.rst").write_text(
            f"Preview\n=======\n\n.. toctree::\n   :hidden:\n\n{pages}\n",
            encoding="utf-8",
        )
    warnings = io.StringIO()
    with docutils_namespace():
        app = Sphinx(
            str(src), None, str(out / "html"), str(out / "doctrees"), "html",
            confoverrides=CONF, status=None, warning=warnings, freshenv=True,
        )  # fmt: skip
        app.build()
    # The answers' own check (too many words) is the one warning that matters here.
    for line in warnings.getvalue().splitlines():
        if "an answer has" in line:
            print(line.replace(str(src) + "/", ""))
    return html


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path)
    args = parser.parse_args(argv)
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for source, page in render(args.sources, Path(folder)).items():
            tree = parse(page.read_bytes())
            problems = long_prose(tree)
            if source.stem not in NOT_NARRATIVE:
                problems += unanswered(tree)
            failed = failed or bool(problems)
            print(f"{source}: {len(problems) or 'no'} problems")
            for problem in problems:
                print(f"  {problem}")
    return 1 if failed else 0


def setup(app: Sphinx) -> dict[str, object]:
    for name in ("semantics-list", "semantics-table", "semantics-matrix"):
        app.add_directive(name, Placeholder)
    return {"parallel_read_safe": True}


if __name__ == "__main__":
    sys.exit(main())
