"""Callables that Sphinx-Gallery calls around each example, referenced by name in conf.py."""

from __future__ import annotations


def reset_torch(gallery_conf: dict, fname: str) -> None:
    """Give every example the same fresh random state, as a reader's fresh process has."""
    import torch

    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
