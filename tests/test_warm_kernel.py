"""A kernel forked from the preloaded process looks, to a page, like a fresh kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from site_build.extensions import warm_kernel

# Runs in a process of its own: start() changes its environment and owns the zygote.
PROGRAM = """
import json
import nbformat
from nbclient import NotebookClient
from site_build.extensions import warm_kernel

name = warm_kernel.start()
cells = [
    '''import json, multiprocessing as mp, os, sys
facts = {{
    "start_method": mp.get_start_method(),
    "parent_process": mp.parent_process() is None,
    "process_name": mp.current_process().name,
    "main_file": getattr(sys.modules["__main__"], "__file__", None),
    "cwd": os.getcwd(),
    # Run as a script, the launcher's folder would head sys.path.
    "launcher_folder_on_path": any(
        os.path.realpath(p) == {launcher_folder!r} for p in sys.path
    ),
    "marker": os.environ.get("WARM_KERNEL_TEST"),
}}
print(json.dumps(facts))''',
]
def run(kernel_name):
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in cells]
    )
    NotebookClient(
        notebook,
        kernel_name=kernel_name,
        timeout=120,
        resources={{"metadata": {{"path": {cwd!r}}}}},
    ).execute()
    facts = json.loads(notebook.cells[0].outputs[0]["text"])
    return facts

print(json.dumps({{
    "preloaded": run(name),
    "fresh": run("python3"),
    "zygote": warm_kernel.ZYGOTE[0].pid,
    "folder": str(warm_kernel.ZYGOTE[0].folder),
}}))
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "Z"


def test_a_preloaded_kernel_is_a_main_process_of_its_own(tmp_path: Path) -> None:
    launcher_folder = str(Path(warm_kernel.__file__).resolve().parent)
    program = PROGRAM.format(launcher_folder=launcher_folder, cwd=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "WARM_KERNEL_TEST": "passed on"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.splitlines()[-1])
    preloaded, fresh = found["preloaded"], found["fresh"]
    # What a page could notice, including what decides how a child process starts
    # and what it imports again, is what a kernel started by Jupyter's own
    # `python -m ipykernel_launcher` reports.
    assert preloaded == fresh, (preloaded, fresh)
    assert Path(fresh["cwd"]) == tmp_path, fresh
    assert fresh["launcher_folder_on_path"] is False, fresh
    assert fresh["marker"] == "passed on", "the kernel has Jupyter's environment"
    # The zygote does not outlive the process that started it.
    deadline = time.monotonic() + 10
    while _alive(found["zygote"]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(found["zygote"]), "the preloaded process outlived its parent"
    assert not Path(found["folder"]).exists(), "its socket's folder was left behind"
