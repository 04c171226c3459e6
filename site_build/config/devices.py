"""Which torch device the build and the tests run on, chosen by ``TORCH_DEVICE``."""

from __future__ import annotations

import os

ALLOWED = ("cpu", "cuda")
DEFAULT = "cpu"
ENV_VAR = "TORCH_DEVICE"


class DeviceError(RuntimeError):
    """The requested device is not a known value or is not usable on this machine."""


def requested(environ: dict[str, str] | None = None) -> str:
    """Return the device named by ``TORCH_DEVICE`` (default ``cpu``), rejecting unknown values.

    The value is taken exactly as written, as every page and script reads it
    (``torch.device(os.environ.get("TORCH_DEVICE") or ...)``): ``CUDA`` or `` cuda ``
    would pass here only to fail there, so they are refused here too.
    """
    value = (os.environ if environ is None else environ).get(ENV_VAR, "") or DEFAULT
    if value not in ALLOWED:
        raise DeviceError(
            f"{ENV_VAR}={value!r} is not supported; allowed values: "
            f"{', '.join(ALLOWED)} (lower case, no spaces)"
        )
    return value


def check_available(device: str, cuda_available: bool) -> None:
    """Fail loudly when CUDA is asked for on a machine where torch cannot use it."""
    if device == "cuda" and not cuda_available:
        raise DeviceError(
            f"{ENV_VAR}=cuda was requested, but CUDA is not available to torch on this "
            "machine (no GPU, no driver, or a CPU-only torch build); "
            f"unset {ENV_VAR} or set {ENV_VAR}=cpu to run on the CPU"
        )


def selected() -> str:
    """Return the requested device after checking that the installed torch can use it.

    torch is imported only to check CUDA: a rebuild with nothing to run never needs it.
    """
    device = requested()
    if device == "cuda":
        import torch

        check_available(device, torch.cuda.is_available())
    return device


def devices_verified(device: str) -> list[str]:
    """Return the devices a build on ``device`` executes claims on (CUDA runs check the CPU too)."""
    return ["cpu"] if device == "cpu" else ["cpu", device]


def torch_sees_cuda(python: str) -> bool:
    """Tell whether the torch installed for interpreter ``python`` can use CUDA.

    For nox, whose own interpreter has no torch: a machine with an NVIDIA driver may
    still have a CPU-only torch in the session's environment.
    """
    import subprocess

    result = subprocess.run(
        [python, "-c", "import torch; print(torch.cuda.is_available())"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip().endswith("True")


def driver_present() -> bool:
    """Tell, without importing torch, whether this machine could have a usable GPU at all."""
    import shutil
    from pathlib import Path

    dev = Path("/dev")
    return bool(
        shutil.which("nvidia-smi")
        or list(dev.glob("nvidia[0-9]*"))
        or (dev / "dxg").exists()  # WSL
        or (dev / "kfd").exists()  # ROCm builds of torch also answer to "cuda"
    )
