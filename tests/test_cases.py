"""Each case of the grid is the kind of tensor its name says, so that a rule checked
over the grid has really met every dtype, layout, autograd state and grad mode."""

from __future__ import annotations

import torch

from semantics.cases import grad_modes, layout_cases, state_cases

DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "int64": torch.int64,
    "bool": torch.bool,
    "complex64": torch.complex64,
    "conj bit": torch.complex64,
    "neg bit": torch.float32,
}


def test_every_dtype_kind_meets_every_layout(torch_device: str) -> None:
    grid = layout_cases(torch.device(torch_device))
    assert {kind for kind, _ in grid} == set(DTYPES)
    for (kind, layout), t in grid.items():
        assert t.dtype == DTYPES[kind], (kind, layout)
        assert t.device.type == torch_device
        assert t.is_conj() == (kind == "conj bit"), (kind, layout)
        assert t.is_neg() == (kind == "neg bit"), (kind, layout)


#: Each layout: (dimensions, contiguous, has a zero stride, elements).
LAYOUTS = {
    "contiguous": (2, True, False, 6),
    "transposed": (2, False, False, 6),
    "with gaps": (2, False, False, 4),
    "expanded": (2, False, True, 6),
    "0-d": (0, True, False, 1),
    "empty": (2, True, False, 0),
}


def test_each_layout_is_what_its_name_says(torch_device: str) -> None:
    grid = layout_cases(torch.device(torch_device))
    assert {layout for _, layout in grid} == set(LAYOUTS)
    for (kind, layout), t in grid.items():
        where = (kind, layout)
        if kind == "neg bit":  # the imaginary halves of the complex case's elements
            twin = grid["complex64", layout]
            assert t.shape == twin.shape, where
            assert t.stride() == tuple(2 * s for s in twin.stride()), where
            continue
        found = (t.dim(), t.is_contiguous(), 0 in t.stride(), t.numel())
        assert found == LAYOUTS[layout], where
        if t.numel():  # new memory of its own, six elements long
            assert t.untyped_storage().nbytes() == 6 * t.element_size(), where


def test_each_autograd_state_is_what_its_name_says() -> None:
    states = state_cases(lambda: torch.arange(6.0))
    assert list(states) == [
        "no grad", "leaf", "non-leaf", "view of a leaf", "detached", "inference"
    ]  # fmt: skip
    found = {
        name: (t.requires_grad, t.is_leaf, t._is_view()) for name, t in states.items()
    }
    assert found == {
        "no grad": (False, True, False),
        "leaf": (True, True, False),
        "non-leaf": (True, False, False),
        "view of a leaf": (True, False, True),
        "detached": (False, True, False),
        "inference": (False, True, False),
    }
    base = states["view of a leaf"]._base
    assert base.is_leaf
    assert base.requires_grad
    assert states["inference"].is_inference()
    assert not any(t.is_inference() for n, t in states.items() if n != "inference")


def test_each_grad_mode_is_what_its_name_says() -> None:
    seen = {}
    for name, mode in grad_modes().items():
        with mode():
            seen[name] = (torch.is_grad_enabled(), torch.is_inference_mode_enabled())
    assert seen == {
        "grad mode": (True, False),
        "no_grad": (False, False),
        "inference_mode": (False, True),
    }
