"""The case grid: every kind of tensor a general rule about copies must hold for.

A sentence that says always, never, every, any or only, or that names a class of
tensors (views, leaves, expanded tensors...), is checked over this grid, not on one
example: the dtypes, including the lazy conjugate and negative bits; the layouts; the
autograd states; the grad modes. A rule uses the parts that apply to it. Pages and
gallery scripts run alone, so each carries a copy of the functions it uses;
``tests/test_memory_helpers.py`` keeps every copy identical to these, and
``tests/test_cases.py`` checks that each case is what its name says.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import torch


def layout_cases(device: torch.device) -> dict[tuple[str, str], torch.Tensor]:
    """Every (dtype kind, layout) pair: a tensor over new memory holding 1..6, arranged.

    Each case is a view of six new elements, so even the empty and 0-d cases lie in a
    storage that holds bytes: ``shares_memory`` tells whether a result uses that memory.

    The conjugate and negative bits are flags that ``conj()`` and ``.imag`` of its
    result set on a view, so they are set last, on the arranged tensor: the neg-bit
    case is the imaginary part of a complex one, the same layout at twice the stride.
    """
    layouts = {
        "contiguous": lambda s: s.view(2, 3),
        "transposed": lambda s: s.view(3, 2).t(),
        "with gaps": lambda s: s.view(2, 3)[:, ::2],
        "expanded": lambda s: s[:3].expand(2, 3),
        "0-d": lambda s: s[0],
        "empty": lambda s: s[:0].view(0, 3),
    }
    kinds = {
        "float32": lambda v: v,
        "float64": lambda v: v.double(),
        "int64": lambda v: v.long(),
        "bool": lambda v: v > 3,
        "complex64": lambda v: v * (1 + 1j),
        "conj bit": lambda v: v * (1 + 1j),
        "neg bit": lambda v: v * (1 + 1j),
    }
    grid = {}
    for kind, make in kinds.items():
        for layout, arrange in layouts.items():
            t = arrange(make(torch.arange(1.0, 7.0, device=device)))
            if kind == "conj bit":
                t = t.conj()
            elif kind == "neg bit":
                t = t.conj().imag
            grid[kind, layout] = t
    return grid


def state_cases(make: Callable[[], torch.Tensor]) -> dict[str, torch.Tensor]:
    """A tensor from ``make()`` (new floating-point memory) in each autograd state."""
    with torch.inference_mode():
        inference = make()
    return {
        "no grad": make(),
        "leaf": make().requires_grad_(),
        "non-leaf": make().requires_grad_() * 1,
        "view of a leaf": make().requires_grad_()[...],
        "detached": make().requires_grad_().detach(),
        "inference": inference,
    }


def grad_modes() -> dict[str, Callable[[], contextlib.AbstractContextManager]]:
    """Each grad mode, as a context manager to enter: {name: factory}."""
    return {
        "grad mode": contextlib.nullcontext,
        "no_grad": torch.no_grad,
        "inference_mode": torch.inference_mode,
    }
