"""A broken example or page fails the docs build, and the output names the file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import small_site

INDEX = """# A site with one broken part

```{toctree}
gallery/index
broken-page
```
"""
HEALTHY_PAGE = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---

# A page

```{code-cell} python
assert True
```
"""
HEALTHY_EXAMPLE = '''"""
A healthy example
=================

It runs.
"""

import matplotlib.pyplot as plt

plt.plot([0, 1])
plt.show()
'''


def _break(source: str) -> str:
    """Make a script or page raise at the point where it would assert a claim."""
    return source.replace(
        "assert True", "raise RuntimeError('deliberately broken')"
    ).replace("plt.show()", "plt.show()\nraise RuntimeError('deliberately broken')")


def _build_site(
    tmp_path: Path, example: str, page: str
) -> subprocess.CompletedProcess[str]:
    """Build a tiny site with the project's real configuration, one example and one page."""
    pages = {"index.md": INDEX, "broken-page.md": page}
    small_site.prepare(tmp_path, pages, {"broken_on_purpose.py": example})
    return small_site.build(tmp_path)


@pytest.mark.parametrize(
    ("example", "page", "culprit"),
    [
        pytest.param(
            _break(HEALTHY_EXAMPLE), HEALTHY_PAGE, "broken_on_purpose.py", id="example"
        ),
        pytest.param(HEALTHY_EXAMPLE, _break(HEALTHY_PAGE), "broken-page", id="page"),
    ],
)
def test_broken_source_fails_the_build_and_is_named(
    tmp_path: Path, example: str, page: str, culprit: str
) -> None:
    result = _build_site(tmp_path, example, page)
    output = result.stdout + result.stderr
    assert result.returncode != 0, (
        f"the build passed despite a broken {culprit}:\n{output[-3000:]}"
    )
    assert culprit in output, (
        f"the failing build does not name {culprit}:\n{output[-3000:]}"
    )
    assert "deliberately broken" in output


def _executed(output: str) -> tuple[int, int]:
    """How many examples and pages a build ran, from Sphinx-Gallery's and our logs."""
    examples = re.search(r"successfully executed (\d+) out of", output)
    return (int(examples.group(1)) if examples else 0), output.count(
        "Executing notebook"
    )


def test_the_same_tiny_site_builds_and_rebuilds_only_what_changed(
    tmp_path: Path,
) -> None:
    result = _build_site(tmp_path, HEALTHY_EXAMPLE, HEALTHY_PAGE)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert _executed(output) == (1, 1), output
    # The page ran once, in a worker process started early, and MyST-NB found that
    # run in its cache instead of running the page again while reading it.
    assert "broken-page.md: Executing notebook in a worker process" in output, output
    assert "broken-page.md: Using cached notebook" in output, output
    assert "Executing notebook using" not in output, output
    unchanged = small_site.build(tmp_path)
    assert _executed(unchanged.stdout + unchanged.stderr) == (0, 0), (
        "a rebuild with nothing changed ran something"
    )
    with (tmp_path / "examples" / "broken_on_purpose.py").open("a") as script:
        script.write("\n# an edit\n")
    edited = small_site.build(tmp_path)
    assert _executed(edited.stdout + edited.stderr) == (1, 0), (
        "after one example changed, the rebuild ran more than that example"
    )
