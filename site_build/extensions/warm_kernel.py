"""Jupyter kernels forked from a process that has imported torch already.

A new kernel spends about two seconds starting IPython and importing torch before the
first cell of a page runs. Here a "zygote" process imports those once; each kernel is
a child forked from it. Jupyter starts kernels by running a command, so the kernel
spec written by :func:`start` runs this file as a small launcher: it asks the zygote
for a kernel with Jupyter's connection file and arguments, forwards interrupt and
termination signals to it, and exits when the kernel exits. The kernel exits when the
launcher does, so Jupyter's usual shutdown and kill paths keep working.

The zygote never runs a tensor operation, starts a Python thread or touches a GPU (the
math libraries may start thread pools of their own when imported), so each kernel
starts from the state of a fresh interpreter that has imported those modules.
Only the standard library is imported at the top: the launcher must start quickly.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import sys
import tempfile
import threading
from pathlib import Path

SPEC_NAME = "python3-preloaded"
#: The zygote this process started, if any (a one-element list once started).
ZYGOTE: list = []
SOCKET_ENV = "PRELOADED_KERNEL_SOCKET"
#: What every kernel imports: a page's own, then the kernel's (psutil names the
#: network interfaces when the kernel binds its sockets; the inline figure backend).
PRELOAD = (
    "torch",
    "numpy",
    "matplotlib.pyplot",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "psutil",
    "matplotlib_inline.backend_inline",
)
#: Imported by a page's first optimizer step, ``torch.compile`` call or profiler (even
#: ``hasattr(torch, "_inductor")`` imports it): about 1.5 s, paid once per kernel. Worth
#: importing in the zygote only when several pages will run: a page that never needs
#: it (the test suite's small sites run one or two) would pay for it anyway.
PRELOAD_FOR_MANY = ("torch._dynamo",)
#: From this many pages on, the zygote imports ``PRELOAD_FOR_MANY`` too.
MANY_PAGES = 4


def start(preload: tuple[str, ...] = PRELOAD) -> str:
    """Start the zygote and write the kernel spec; return the spec's name.

    The zygote is a new interpreter running this file, so its state is that of a
    plain ``python`` process; it exits when this process does. This returns as soon
    as the zygote listens, while it still imports ``preload``: kernels asked for
    meanwhile wait in the socket's queue.
    """
    import subprocess
    import time

    folder = Path(tempfile.mkdtemp(prefix="preloaded-kernel-"))
    address = str(folder / "zygote.sock")
    zygote = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--zygote", address, *preload],
        stdout=subprocess.DEVNULL,
    )
    while not Path(address).exists():
        if zygote.poll() is not None:
            raise RuntimeError("the preloaded-kernel process did not start")
        time.sleep(0.01)
    zygote.folder = folder  # type: ignore[attr-defined]
    ZYGOTE.append(zygote)
    spec = folder / "kernels" / SPEC_NAME
    spec.mkdir(parents=True)
    argv = [sys.executable, str(Path(__file__).resolve()), "-f", "{connection_file}"]
    spec.joinpath("kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"}),
        encoding="utf-8",
    )
    os.environ[SOCKET_ENV] = address
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        filter(None, [str(folder), os.environ.get("JUPYTER_PATH")])
    )
    return SPEC_NAME


def stop() -> None:
    """Stop the zygote this process started, if any, and remove its folder.

    Kernels it forked exit with it.
    """
    import shutil

    while ZYGOTE:
        zygote = ZYGOTE.pop()
        zygote.terminate()
        zygote.wait()
        shutil.rmtree(zygote.folder, ignore_errors=True)


def _zygote(address: str, preload: list[str]) -> None:
    """Import ``preload``, then fork one kernel per request until the parent exits."""
    # Run as a script, this file's folder heads sys.path; a kernel's does not.
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]
    parent = os.getppid()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen()
    for name in preload:
        importlib.import_module(name)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels are reaped automatically
    server.settimeout(1.0)
    while os.getppid() == parent:
        try:
            connection, _ = server.accept()
        except TimeoutError:
            continue
        connection.settimeout(None)
        if os.fork() == 0:
            server.close()
            _kernel(connection)
        connection.close()
    # The process that started this one is gone (a killed build): nobody else will
    # remove the socket's folder.
    import shutil

    shutil.rmtree(Path(address).parent, ignore_errors=True)
    os._exit(0)


def _kernel(connection: socket.socket) -> None:
    """In a forked child: become the kernel the launcher asked for."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the kernel waits for its children
    request = json.loads(connection.makefile(encoding="utf-8").readline())
    os.setsid()  # signals for the zygote's group do not reach kernels
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    connection.sendall(f"{os.getpid()}\n".encode())

    def exit_with_launcher() -> None:
        while connection.recv(1):
            pass
        os._exit(1)

    threading.Thread(target=exit_with_launcher, daemon=True).start()
    # What ``python -m ipykernel_launcher`` would have as its main module and argv
    # (a ``spawn`` child started from the kernel imports the main module again).
    import ipykernel_launcher
    from ipykernel import kernelapp

    sys.modules["__main__"] = ipykernel_launcher
    sys.argv[:] = [ipykernel_launcher.__file__, *request["argv"]]
    # Exit when the zygote does (it exits with the build): a kernel started by Jupyter
    # learns its parent from JPY_PARENT_PID, read when ipykernel was imported here.
    parent = f"--IPKernelApp.parent_handle={os.getppid()}"
    kernelapp.launch_new_instance(argv=[*request["argv"], parent])
    os._exit(0)


def _launch(argv: list[str]) -> int:
    """The kernel command Jupyter runs: relay to a forked kernel until it exits."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(500):  # the zygote binds its socket a moment before it listens
        try:
            connection.connect(os.environ[SOCKET_ENV])
            break
        except ConnectionRefusedError:
            threading.Event().wait(0.01)
    else:
        return 1
    request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    connection.sendall(json.dumps(request).encode() + b"\n")
    reply = connection.makefile(encoding="utf-8").readline()
    if not reply:
        return 1
    kernel = int(reply)

    def relay(signum: int, frame: object) -> None:
        os.kill(kernel, signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, relay)
    while connection.recv(1):
        pass
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        _zygote(sys.argv[2], sys.argv[3:])
    sys.exit(_launch(sys.argv[1:]))
