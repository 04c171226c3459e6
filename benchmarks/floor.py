"""The least execution can cost: every page's and example's code in one process.

One Python process imports torch once, then runs the code cells of every MyST page (as
the test session reads them) and every gallery script, in turn. What a build spends on
execution beyond this is overhead: kernel starts, imports repeated per page, waiting.
Writes one JSON object to the file named by its argument: the import time, each page's
and script's time, and the total.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    start = time.perf_counter()
    import matplotlib.pyplot as plt
    import torch  # noqa: F401

    from site_build.page_cells import PAGE_CELLS

    costs = {"import": time.perf_counter() - start}
    pages = sorted((ROOT / "docs").glob("*.md"))
    scripts = sorted((ROOT / "examples").glob("*.py"))
    out = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory(prefix="floor-") as folder:
        os.chdir(folder)  # whatever a script writes lands here
        for path in pages:
            began = time.perf_counter()
            for cell in PAGE_CELLS.parse(path):
                cell.evaluate()
            costs[f"docs/{path.name}"] = time.perf_counter() - began
        for path in scripts:
            began = time.perf_counter()
            runpy.run_path(str(path), run_name="__main__")
            plt.close("all")
            costs[f"examples/{path.name}"] = time.perf_counter() - began
    costs["total"] = time.perf_counter() - start
    out.write_text(
        json.dumps({name: round(sec, 3) for name, sec in costs.items()}),
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
