"""A broken page fails the docs build, and the output names the file.

(A broken example is one of the faults of the broken small site, test_small_sites.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
import small_site

INDEX = """# A site with one broken page

```{toctree}
gallery/index
broken-page
```
"""


@pytest.mark.slow
def test_a_broken_page_fails_the_build_and_is_named(tmp_path: Path) -> None:
    # A page that raises stops the build while it is read, before any other fault
    # would be reported: it gets a site of its own.
    page = small_site.RUNS.replace(
        "assert True", "raise RuntimeError('deliberately broken')"
    )
    small_site.prepare(tmp_path, {"index.md": INDEX, "broken-page.md": page}, {})
    result = small_site.build(tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"the build passed:\n{output[-3000:]}"
    assert "broken-page" in output, output[-3000:]
    assert "deliberately broken" in output, output[-3000:]
