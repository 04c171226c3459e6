"""TORCH_DEVICE is validated with messages that tell the reader what to do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from site_build.config import devices

ROOT = Path(__file__).resolve().parents[1]


def test_default_device_is_cpu() -> None:
    assert devices.requested({}) == "cpu"


@pytest.mark.parametrize("value", ["cpu", "cuda"])
def test_known_devices_are_accepted(value: str) -> None:
    assert devices.requested({"TORCH_DEVICE": value}) == value


@pytest.mark.parametrize("value", ["CUDA", " cuda ", "Cpu", "cuda:0", "tpu"])
def test_nox_refuses_what_the_pages_and_scripts_would_refuse(value: str) -> None:
    import torch

    with pytest.raises(devices.DeviceError, match="allowed values: cpu, cuda"):
        devices.requested({"TORCH_DEVICE": value})
    # The pages and scripts read the variable with torch.device(): each refused value
    # either fails there as well or names a device the build does not support.
    try:
        parsed = torch.device(value)
    except RuntimeError:
        return
    assert str(parsed) not in devices.ALLOWED, value


def test_unknown_device_names_the_allowed_values() -> None:
    with pytest.raises(devices.DeviceError, match=r"'tpu'.*allowed values: cpu, cuda"):
        devices.requested({"TORCH_DEVICE": "tpu"})


def test_cuda_without_cuda_says_cuda_is_not_available() -> None:
    with pytest.raises(devices.DeviceError, match="CUDA is not available"):
        devices.check_available("cuda", cuda_available=False)


def test_cuda_with_cuda_and_cpu_anywhere_are_fine() -> None:
    devices.check_available("cuda", cuda_available=True)
    devices.check_available("cpu", cuda_available=False)


def test_a_cuda_build_also_verifies_the_cpu() -> None:
    assert devices.devices_verified("cpu") == ["cpu"]
    assert devices.devices_verified("cuda") == ["cpu", "cuda"]


def test_pytest_refuses_cuda_on_a_machine_without_it(torch_device: str) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip(
            "this machine has CUDA, so TORCH_DEVICE=cuda is legitimately accepted"
        )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "tests/test_devices.py",
        ],
        cwd=ROOT,
        env={**os.environ, "TORCH_DEVICE": "cuda"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode != 0
    assert "CUDA is not available" in result.stdout + result.stderr


def test_a_cuda_test_run_caps_its_workers() -> None:
    from site_build.config import build_command

    assert build_command.pytest_args("cpu")[:2] == ["-n", "auto"]
    workers = int(build_command.pytest_args("cuda")[1])
    assert 1 <= workers <= build_command.CUDA_WORKERS


def test_nox_asks_the_installed_torch_whether_it_can_use_cuda() -> None:
    # nox's own interpreter has no torch: on a machine with a GPU driver it asks the
    # session's interpreter, so a CPU-only torch there is one line, not Sphinx's dump.
    import torch

    assert devices.torch_sees_cuda(sys.executable) is torch.cuda.is_available()
    if not torch.cuda.is_available():
        with pytest.raises(devices.DeviceError, match="CUDA is not available"):
            devices.check_available("cuda", devices.torch_sees_cuda(sys.executable))
