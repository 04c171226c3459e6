"""The footer names the torch version and devices the build really ran on."""

from __future__ import annotations

import pytest
import torch

from site_build.config import site_facts


def test_footer_names_the_installed_torch_and_the_device(torch_device: str) -> None:
    facts = site_facts.verified_with()
    assert facts["torch_version"] == torch.__version__
    assert facts["torch_device"] == torch_device
    assert facts["verified_devices"][0] == "cpu"
    assert facts["page_device"] == (
        "the CPU" if torch_device == "cpu" else facts["verified_devices"][-1]
    )


def test_verified_devices_read_as_a_sentence() -> None:
    assert site_facts.in_words(["cpu"]) == "the CPU"
    both = site_facts.in_words(["cpu", "cuda (Fake GPU)"])
    assert both == "the CPU and cuda (Fake GPU)"


def test_execution_key_changes_with_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCH_DEVICE", "cpu")
    cpu_key = site_facts.execution_key()
    assert torch.__version__.split("+")[0] in cpu_key
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "Fake GPU 80GB")
    monkeypatch.setenv("TORCH_DEVICE", "cuda")
    cuda_key = site_facts.execution_key()
    assert cuda_key != cpu_key
    assert "Fake_GPU_80GB" in cuda_key
    assert not set(cuda_key) & set(" /()"), (
        "the key names a folder: no spaces or slashes"
    )
