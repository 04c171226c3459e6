"""Run short programs in fresh processes forked from one that has imported torch already.

The sabotage tests run a couple of dozen programs whose own work takes less time than
importing torch. Python's forkserver imports torch, NumPy and matplotlib once; each
program then runs in a process of its own forked from that server, with the isolated
module path of ``python -I`` (only installed packages importable), in its own folder,
its output captured in files. The server never runs a tensor operation or touches a
GPU, so every child starts from the state a fresh interpreter has after those imports.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import traceback
from functools import cache
from pathlib import Path

PRELOAD = ["torch", "numpy", "matplotlib.pyplot"]


@cache
def _context(device: str) -> multiprocessing.context.ForkServerContext:
    """The forkserver, started on first use with the environment programs expect."""
    os.environ["MPLBACKEND"] = "Agg"  # read when matplotlib is imported, in the server
    os.environ["TORCH_DEVICE"] = device
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


@cache
def _isolated_path() -> list[str]:
    """``sys.path`` of ``python -I``: no script folder, no PYTHONPATH, no user site."""
    out = subprocess.run(
        [sys.executable, "-I", "-c", "import sys; print('\\n'.join(sys.path))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in out.splitlines() if line]


def _run(program: str, folder: str, path: list[str]) -> None:
    """In the child: run ``program`` as ``python -I -c`` would, output in ``folder``."""
    os.chdir(folder)
    sys.path[:] = path
    sys.argv[:] = ["-c"]
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    status = 0
    try:
        exec(compile(program, "<string>", "exec"), {"__name__": "__main__"})
    except SystemExit as exit_:
        code = exit_.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def run_warm(
    program: str, folder: Path, device: str, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """Run ``program`` like ``python -I -c PROGRAM`` in ``folder``; never raises on failure."""
    child = _context(device).Process(
        target=_run, args=(program, str(folder), _isolated_path())
    )
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        child.join()
    outputs = [
        (folder / name).read_text(encoding="utf-8", errors="replace")
        if (folder / name).exists()
        else ""
        for name in ("stdout.txt", "stderr.txt")
    ]
    return subprocess.CompletedProcess(
        ["-c", program], child.exitcode if child.exitcode is not None else -9, *outputs
    )
