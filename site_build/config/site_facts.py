"""Facts about the installed PyTorch and device, shown in every page footer."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import metadata

from site_build.config import devices


def verified_with() -> dict[str, object]:
    """Return the template context naming the PyTorch version and devices of this build.

    The version comes from the installed package's metadata (the same string as
    ``torch.__version__``), so that only a CUDA build imports torch here, for the
    GPU's name.
    """
    device = devices.selected()
    names = []
    for name in devices.devices_verified(device):
        if name == "cuda":
            import torch

            name = f"cuda ({torch.cuda.get_device_name()})"
        names.append(name)
    return {
        "torch_version": metadata.version("torch"),
        "torch_device": device,
        "verified_devices": names,
        "page_device": in_words(names[-1:]),  # pages run on the selected device only
        "devices_in_words": in_words(names),  # the probe runs on every one of them
    }


def N_(message: str) -> str:
    """Mark ``message`` for the ``site`` catalogue (``site_build.extensions.editions``)."""
    return message


def in_words(devices: list[str], translate: Callable[[str], str] = N_) -> str:
    """Name the verified devices in a sentence: "the CPU and cuda (NVIDIA H200)"; in
    another language with ``translate``, a gettext function."""
    names = [translate(N_("the CPU")) if name == "cpu" else name for name in devices]
    if len(names) == 2:
        return translate(N_("{first} and {second}")).format(
            first=names[0], second=names[1]
        )
    return ", ".join(names)


def execution_key() -> str:
    """Return a key that changes whenever cached example outputs would no longer be true."""
    facts = verified_with()
    raw = f"torch-{facts['torch_version']}-{'-'.join(map(str, facts['verified_devices']))}"
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", raw).strip("_")
