"""The one place where each copy-related operation is defined, with the facts the site states.

An operation is an expression (the ``code`` a reader sees, evaluated as written), the
names it needs (``given``, built on the device by a setup function), the tensor its
result is compared with (``source``), and the facts expected of it on each device. The
probe measures the facts; the site's build and tests fail when a measurement and an
expectation disagree.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

#: The measured fields, in the order the JSON, the page and the terminal show them.
FIELDS: tuple[str, ...] = (
    "shares_storage",
    "writes_propagate",
    "returns_self",
    "result_requires_grad",
    "result_is_leaf",
    "grad_flows_to_source",
    "shares_version_counter",
)

Names = dict[str, object]
Setup = Callable[[str], Names]


def N_(message: str) -> str:
    """Mark ``message`` as a message of the site's ``site`` catalogue; return it as is."""
    return message


@dataclass(frozen=True)
class Facts:
    """What an operation does on one device; ``None`` where a fact does not apply."""

    shares_storage: bool | None = None
    writes_propagate: bool | None = None
    returns_self: bool | None = None
    result_requires_grad: bool | None = None
    result_is_leaf: bool | None = None
    grad_flows_to_source: bool | None = None
    shares_version_counter: bool | None = None
    #: The exception type the expression raises (e.g. ``"TypeError"``), else ``None``.
    error: str | None = None
    #: Where a release raises another type for the same refusal: (the first release
    #: series to do so, its type), oldest first. ``nox -s releases`` measured each.
    error_since: tuple[tuple[str, str], ...] = ()

    def with_(self, **changes: object) -> Facts:
        """Return these facts with some fields changed."""
        return replace(self, **changes)

    def error_on(self, version: str) -> str | None:
        """The exception type stated for PyTorch ``version`` (``"2.15.0+cpu"``)."""
        stated = self.error
        for since, error in self.error_since:
            if _series_key(version) >= _series_key(since):
                stated = error
        return stated


def _series_key(version: str) -> tuple[int, int]:
    major, minor = re.match(r"(\d+)\.(\d+)", version).groups()  # type: ignore[union-attr]
    return int(major), int(minor)


# The recurring patterns. Each is checked by measurement on every build, not assumed.
VIEW = Facts(True, True, False, True, False, True, True)
"""A new tensor over the source's memory that stays in the autograd graph."""
COPY = Facts(False, False, False, True, False, True, False)
"""New memory, still in the graph: gradient flows back to the source."""
DETACHED_COPY = Facts(False, False, False, False, True, False, False)
"""New memory, out of the graph: a new leaf that does not require grad."""
SELF = Facts(True, True, True, True, True, True, True)
"""The very tensor it was called on (the source, a leaf that requires grad)."""
DETACHED_ALIAS = Facts(True, True, False, False, True, False, True)
"""Same memory and version counter, out of the graph (what ``detach()`` returns)."""
ARRAY = Facts(True, True, False, None, None, None, None)
"""A NumPy array over the tensor's memory: NumPy has no autograd and no version counter."""
ARRAY_COPY = Facts(False, False, False, None, None, None, None)
"""A NumPy array with memory of its own."""
RAISES = Facts()
"""Nothing measurable: the expression raises (set ``error`` to the exception type)."""


@dataclass(frozen=True)
class Group:
    """A section of the matrix: operations that behave alike."""

    id: str
    #: The title and summary are shown on pages, translated: mark them with ``N_``.
    title: str
    summary: str


GROUPS: tuple[Group, ...] = (
    Group(
        "views",
        N_("Views"),
        N_(
            "A new tensor object over the source's memory: writes through it reach the "
            "source, the version counter is shared, and gradient flows back."
        ),
    ),
    Group(
        "maybe-views",
        N_("Sometimes a view, sometimes a copy"),
        N_(
            "These return the source itself or a view when the source's dtype, device and "
            "strides allow it, and a copy otherwise: which one you get depends on the "
            "input and the arguments."
        ),
    ),
    Group(
        "copies",
        N_("Copies"),
        N_(
            "New memory: writes to the result never reach the source. Some stay in the "
            "graph (gradient flows back), others start a new leaf."
        ),
    ),
    Group(
        "detached",
        N_("Same memory, out of the graph"),
        N_(
            "The result aliases the source's memory but gradient does not reach the "
            "source. Whether autograd notices a write through it depends on the shared "
            "version counter."
        ),
    ),
    Group(
        "numpy",
        N_("NumPy and Python buffers"),
        N_(
            "Conversions between tensors and NumPy arrays or other Python objects that "
            "expose their memory, all of which live in host memory."
        ),
    ),
    Group(
        "edge-cases",
        N_("Edge cases of sharing"),
        N_(
            "Two tensors share memory when the bytes their storages cover overlap. A "
            "storage of no bytes, like that of `torch.empty(0)`, shares memory with "
            "nothing; two tensors made from one NumPy buffer have a storage each, and "
            "share memory where those overlap."
        ),
    ),
    Group(
        "refused",
        N_("Refused for this input"),
        N_(
            "The operation does not apply to this input and raises: `imag` needs a "
            "complex tensor, `H` a matrix, `values()` and `indices()` a coalesced sparse "
            "tensor."
        ),
    ),
    Group(
        "modules",
        N_("Modules and parameters"),
        N_(
            "Casting a module to another dtype changes it in place and returns the module "
            "itself; a parameter made from a tensor wraps that tensor's memory."
        ),
    ),
    Group(
        "in-place",
        N_("In-place operations"),
        N_(
            "They write into their input and return it. While autograd records, it refuses "
            "them on a leaf that requires grad, so most rows start from `y = x * 1`."
        ),
    ),
    Group(
        "devices",
        N_("Crossing devices"),
        N_(
            "Operations at the border between host memory and a CUDA GPU. Measured only "
            "by builds that have a CUDA device."
        ),
    ),
)
GROUP_IDS = tuple(group.id for group in GROUPS)


# -- The names the expressions use, built on the device being probed -------------------
#: The tensor every expression starts from unless its row says otherwise.
X_CODE = "x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], requires_grad=True)"


def _x(device: str) -> torch.Tensor:
    """``x`` on ``device``: a float32 (2, 3) leaf that requires grad and is not a view."""
    import torch

    return torch.tensor(
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], device=device, requires_grad=True
    )


def given_x(device: str) -> Names:
    """``x`` on ``device``: a leaf that requires grad."""
    return {"x": _x(device)}


def given_y(device: str) -> Names:
    """``x`` and ``y = x * 1``, a non-leaf that in-place operations may modify."""
    x = _x(device)
    return {"x": x, "y": x * 1}


def given_t(device: str) -> Names:
    """``t = x.detach()``: a tensor that does not require grad, which ``numpy()`` accepts."""
    x = _x(device)
    return {"x": x, "t": x.detach()}


def given_a(device: str) -> Names:
    """``a``: a float64 NumPy array of shape (2, 3), always in host memory."""
    return {"a": np.arange(6.0).reshape(2, 3)}


def given_e(device: str) -> Names:
    """``e``: an empty tensor on ``device``, whose storage holds no bytes."""
    import torch

    return {"e": torch.empty(0, device=device)}


def given_t_from_numpy(device: str) -> Names:
    """``a``, a float64 NumPy array of six numbers, and ``t``, a tensor over it."""
    import torch

    a = np.arange(6.0)
    return {"a": a, "t": torch.from_numpy(a)}


def given_m(device: str) -> Names:
    """``m``: a small linear layer on ``device``."""
    from torch import nn

    return {"m": nn.Linear(2, 2, device=device)}


def given_z(device: str) -> Names:
    """``z``: a complex64 (2, 3) leaf that requires grad."""
    import torch

    values = [[0, 1j, 2], [3, 4 + 1j, 5j]]
    return {
        "z": torch.tensor(
            values, dtype=torch.complex64, device=device, requires_grad=True
        )
    }


def given_b(device: str) -> Names:
    """``b``: a writable Python buffer of 16 zero bytes, always in host memory."""
    return {"b": bytearray(16)}


def given_sparse(device: str) -> Names:
    """A sparse COO tensor marked coalesced, ``s``, and one not marked, ``u``.

    Both are built over the same indices ``i`` and values ``v``, a leaf that requires
    grad.
    """
    import torch

    i = torch.tensor([[0, 1], [2, 0]], device=device)
    v = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
    # Asking for the invariant checks explicitly also silences the warning that
    # they are off; they cost nothing on two elements.
    s = torch.sparse_coo_tensor(i, v, (2, 3), is_coalesced=True, check_invariants=True)
    u = torch.sparse_coo_tensor(i, v, (2, 3), check_invariants=True)
    return {"i": i, "v": v, "s": s, "u": u}


def given_csr(device: str) -> Names:
    """``c``: a sparse CSR tensor over row offsets ``crow``, columns and values ``v``."""
    import warnings

    import torch

    crow = torch.tensor([0, 1, 2], device=device)
    col = torch.tensor([2, 0], device=device)
    v = torch.tensor([3.0, 4.0], device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CSR support is "in beta": advice only
        c = torch.sparse_csr_tensor(crow, col, v, (2, 3), check_invariants=True)
    return {"crow": crow, "v": v, "c": c}


def given_x_on(place: str) -> Setup:
    """``x`` on a fixed device, whatever device the probe runs for."""
    return lambda device: {"x": _x(place)}


def given_t_on(place: str) -> Setup:
    """``t = x.detach()`` with ``x`` on a fixed device."""
    return lambda device: given_t(place)


@dataclass(frozen=True)
class Start:
    """What an expression starts from: its names, shown to readers and built on a device."""

    #: The names in words, for readers (backticks mark code; marked with ``N_``, as
    #: pages translate it); empty for plain ``x``.
    given: str
    #: Builds those names on a device type (``setup("cuda")``).
    setup: Setup
    #: Expression naming the tensor or array the result is compared with.
    source: str = "x"
    #: Expression naming the leaf whose ``.grad`` a backward through the result should reach.
    leaf: str = "x"


FROM_X = Start("", given_x)
FROM_Y = Start(N_("`y = x * 1`, not a leaf"), given_y, source="y")
FROM_T = Start(N_("`t = x.detach()`"), given_t, source="t", leaf="t")
FROM_A = Start(N_("`a = np.arange(6.0).reshape(2, 3)`, float64"), given_a, "a", "a")
FROM_E = Start(N_("`e = torch.empty(0)`"), given_e, "e", "e")
FROM_T_OVER_A = Start(
    N_("`t = torch.from_numpy(a)`, `a = np.arange(6.0)`, compared with `t`"),
    given_t_from_numpy,
    "t",
    "t",
)
FROM_M = Start(
    N_("`m = nn.Linear(2, 2)`, compared with `m.weight`"),
    given_m,
    "m.weight",
    "m.weight",
)
FROM_Z = Start(
    N_("`z`, a complex64 (2, 3) leaf that requires grad"), given_z, source="z", leaf="z"
)
FROM_B = Start(N_("`b = bytearray(16)`"), given_b, source="b", leaf="b")
FROM_M_ITSELF = Start(N_("`m = nn.Linear(2, 2)`"), given_m, source="m", leaf="m.weight")
FROM_S = Start(
    N_(
        "`s`, a sparse COO tensor marked coalesced, over indices `i` and values `v` "
        "(a leaf that requires grad), compared with `v`"
    ),
    given_sparse,
    source="v",
    leaf="v",
)
FROM_S_INDICES = Start(
    N_("`s`, the sparse COO tensor above, compared with its indices `i`"),
    given_sparse,
    source="i",
    leaf="v",
)
FROM_U = Start(
    N_("`u`, the same sparse tensor not marked coalesced, compared with `v`"),
    given_sparse,
    source="v",
    leaf="v",
)
FROM_C = Start(
    N_("`c`, a sparse CSR tensor over row offsets `crow`, compared with `crow`"),
    given_csr,
    source="crow",
    leaf="v",
)
FROM_X_ON_CPU = Start(N_("`x` on the CPU"), given_x_on("cpu"))
FROM_X_ON_GPU = Start(N_("`x` on the GPU"), given_x_on("cuda"))
FROM_T_ON_GPU = Start(
    N_("`t = x.detach()`, `x` on the GPU"), given_t_on("cuda"), "t", "t"
)


def namespace() -> Mapping[str, object]:
    """Modules an expression may name, besides the names its setup defines.

    torch is imported here, when an expression is about to run, not with the catalogue:
    the site renders its pages from the catalogue without importing torch.
    """
    import torch
    from torch import nn
    from torch.nn import functional as F

    return MappingProxyType({"torch": torch, "F": F, "nn": nn, "copy": copy, "np": np})


@dataclass(frozen=True)
class Operation:
    """One copy-related operation: what a reader writes, and what it should do."""

    id: str
    #: The expression shown to readers; the probe evaluates exactly this text.
    code: str
    group: str
    expect: Facts
    #: Sphinx role and target of the official API documentation, e.g. ``("meth", "torch.Tensor.clone")``.
    api: tuple[str, str] | None = None
    #: What ``code`` starts from, when it is not ``x`` on the device.
    start: Start = FROM_X
    #: Docname of the gallery page about this operation, e.g. ``"gallery/clone"``.
    gallery: str | None = None
    #: Device types the expression is measured on; ``None`` for every device.
    devices: tuple[str, ...] | None = None
    #: Facts that differ on one device type, keyed by that device type.
    expect_on: Mapping[str, Facts] = field(default_factory=dict)

    @property
    def given(self) -> str:
        """What the expression starts from, for readers; empty for plain ``x``."""
        return self.start.given

    @property
    def setup(self) -> Setup:
        """Builds the names the expression uses, on a device type."""
        return self.start.setup

    @property
    def source(self) -> str:
        """Expression naming the tensor or array the result is compared with."""
        return self.start.source

    @property
    def leaf(self) -> str:
        """Expression naming the leaf whose ``.grad`` a backward through the result reaches."""
        return self.start.leaf

    @property
    def anchor(self) -> str:
        """The HTML id of the operation's row in the matrix, also its cross-reference label."""
        return "semantics-" + re.sub(r"[^a-z0-9_]+", "-", self.id.lower())

    def applies_to(self, device: str) -> bool:
        """Tell whether the operation is measured on ``device`` (a device type)."""
        return self.devices is None or device in self.devices

    def expected(self, device: str) -> Facts:
        """Return the facts this site states for the operation on ``device``."""
        return self.expect_on.get(device, self.expect)


def meth(name: str) -> tuple[str, str]:
    """API reference to a method, e.g. ``torch.Tensor.clone``."""
    return ("meth", name)


def func(name: str) -> tuple[str, str]:
    """API reference to a function, e.g. ``torch.from_numpy``."""
    return ("func", name)


def cls(name: str) -> tuple[str, str]:
    """API reference to a class, e.g. ``torch.nn.Parameter``."""
    return ("class", name)


def attr(name: str) -> tuple[str, str]:
    """API reference to an attribute, e.g. ``torch.Tensor.data``."""
    return ("attr", name)


CPU_ONLY = ("cpu",)
CUDA_ONLY = ("cuda",)

CATALOGUE: tuple[Operation, ...] = (
    # -- views ---------------------------------------------------------------------------
    Operation(
        "view",
        "x.view(3, 2)",
        "views",
        VIEW,
        meth("torch.Tensor.view"),
        gallery="gallery/view",
    ),
    Operation(
        "view_as",
        "x.view_as(torch.empty(3, 2))",
        "views",
        VIEW,
        meth("torch.Tensor.view_as"),
    ),
    Operation("slice_basic", "x[:, 1:]", "views", VIEW, gallery="gallery/view"),
    Operation("index_int", "x[0]", "views", VIEW),
    Operation(
        "narrow", "x.narrow(1, 0, 2)", "views", VIEW, meth("torch.Tensor.narrow")
    ),
    Operation("select", "x.select(0, 1)", "views", VIEW, meth("torch.Tensor.select")),
    Operation("t", "x.t()", "views", VIEW, meth("torch.Tensor.t")),
    Operation(
        "transpose", "x.transpose(0, 1)", "views", VIEW, meth("torch.Tensor.transpose")
    ),
    Operation("mT", "x.mT", "views", VIEW, attr("torch.Tensor.mT")),
    Operation(
        "permute", "x.permute(1, 0)", "views", VIEW, meth("torch.Tensor.permute")
    ),
    Operation(
        "movedim", "x.movedim(0, 1)", "views", VIEW, meth("torch.Tensor.movedim")
    ),
    Operation(
        "expand",
        "x[:1].expand(4, 3)",
        "views",
        VIEW,
        meth("torch.Tensor.expand"),
        gallery="gallery/view",
    ),
    Operation(
        "unsqueeze", "x.unsqueeze(0)", "views", VIEW, meth("torch.Tensor.unsqueeze")
    ),
    Operation(
        "squeeze",
        "x.unsqueeze(0).squeeze(0)",
        "views",
        VIEW,
        meth("torch.Tensor.squeeze"),
    ),
    Operation("split", "x.split(1)[1]", "views", VIEW, meth("torch.Tensor.split")),
    Operation("chunk", "x.chunk(2)[1]", "views", VIEW, meth("torch.Tensor.chunk")),
    Operation("unbind", "x.unbind()[1]", "views", VIEW, meth("torch.Tensor.unbind")),
    Operation("diagonal", "x.diagonal()", "views", VIEW, meth("torch.Tensor.diagonal")),
    Operation(
        "unfold", "x.unfold(1, 2, 1)", "views", VIEW, meth("torch.Tensor.unfold")
    ),
    Operation(
        "unflatten",
        "x.unflatten(1, (3, 1))",
        "views",
        VIEW,
        meth("torch.Tensor.unflatten"),
    ),
    Operation(
        "tensor_split",
        "x.tensor_split(3, dim=1)[1]",
        "views",
        VIEW,
        meth("torch.Tensor.tensor_split"),
    ),
    Operation("hsplit", "x.hsplit(3)[1]", "views", VIEW, meth("torch.Tensor.hsplit")),
    Operation("vsplit", "x.vsplit(2)[1]", "views", VIEW, meth("torch.Tensor.vsplit")),
    Operation(
        "swapaxes", "x.swapaxes(0, 1)", "views", VIEW, meth("torch.Tensor.swapaxes")
    ),
    Operation(
        "as_strided",
        "x.as_strided((3,), (2,))",
        "views",
        VIEW,
        meth("torch.Tensor.as_strided"),
    ),
    Operation("adjoint", "x.adjoint()", "views", VIEW, meth("torch.Tensor.adjoint")),
    Operation("mH", "x.mH", "views", VIEW, attr("torch.Tensor.mH")),
    Operation(
        "expand_as",
        "x[:1].expand_as(torch.empty(4, 3))",
        "views",
        VIEW,
        meth("torch.Tensor.expand_as"),
    ),
    Operation(
        "view_as_real",
        "torch.view_as_real(z)",
        "views",
        VIEW,
        func("torch.view_as_real"),
        start=FROM_Z,
    ),
    Operation(
        "real_of_complex",
        "z.real",
        "views",
        VIEW,
        attr("torch.Tensor.real"),
        start=FROM_Z,
    ),
    Operation(
        "conj_of_complex",
        "z.conj()",
        "views",
        # A view with the conjugate bit flipped: no number is negated in memory. The
        # probe's backward needs a real result, so the gradient is not measured here.
        VIEW.with_(grad_flows_to_source=None),
        meth("torch.Tensor.conj"),
        start=FROM_Z,
    ),
    Operation(
        "imag_of_complex",
        "z.imag",
        "views",
        VIEW,
        attr("torch.Tensor.imag"),
        start=FROM_Z,
    ),
    Operation(
        "conj_imag",
        "z.conj().imag",
        "views",
        # The imaginary parts of a conjugate view: a real view with the negative bit.
        VIEW,
        attr("torch.Tensor.imag"),
        start=FROM_Z,
    ),
    Operation(
        "swapdims", "x.swapdims(0, 1)", "views", VIEW, meth("torch.Tensor.swapdims")
    ),
    Operation(
        "moveaxis", "x.moveaxis(0, 1)", "views", VIEW, meth("torch.Tensor.moveaxis")
    ),
    Operation("T_attr", "x.T", "views", VIEW, attr("torch.Tensor.T")),
    Operation("H_attr", "x.H", "views", VIEW, attr("torch.Tensor.H")),
    Operation(
        "H_of_complex",
        "z.H",
        "views",
        VIEW.with_(grad_flows_to_source=None),  # complex: see conj_of_complex
        attr("torch.Tensor.H"),
        start=FROM_Z,
    ),
    # -- maybe views ---------------------------------------------------------------------
    Operation(
        "reshape_contiguous",
        "x.reshape(3, 2)",
        "maybe-views",
        VIEW,
        meth("torch.Tensor.reshape"),
        gallery="gallery/view",
    ),
    Operation(
        "reshape_noncontiguous",
        "x.t().reshape(6)",
        "maybe-views",
        COPY,
        meth("torch.Tensor.reshape"),
        gallery="gallery/view",
    ),
    Operation(
        "flatten_contiguous",
        "x.flatten()",
        "maybe-views",
        VIEW,
        meth("torch.Tensor.flatten"),
    ),
    Operation(
        "flatten_noncontiguous",
        "x.t().flatten()",
        "maybe-views",
        COPY,
        meth("torch.Tensor.flatten"),
    ),
    Operation(
        "ravel",
        "x.ravel()",
        "maybe-views",
        # A view of a contiguous tensor, like flatten(); a copy otherwise.
        VIEW,
        meth("torch.Tensor.ravel"),
    ),
    Operation(
        "contiguous_already",
        "x.contiguous()",
        "maybe-views",
        SELF,
        meth("torch.Tensor.contiguous"),
        gallery="gallery/view",
    ),
    Operation(
        "contiguous_from_transposed",
        "x.t().contiguous()",
        "maybe-views",
        COPY,
        meth("torch.Tensor.contiguous"),
        gallery="gallery/view",
    ),
    Operation(
        "to_same_dtype",
        "x.to(torch.float32)",
        "maybe-views",
        SELF,
        meth("torch.Tensor.to"),
    ),
    Operation(
        "to_other_dtype",
        "x.to(torch.float64)",
        "maybe-views",
        COPY,
        meth("torch.Tensor.to"),
    ),
    Operation(
        "float_same_dtype", "x.float()", "maybe-views", SELF, meth("torch.Tensor.float")
    ),
    Operation(
        "cpu_on_cpu",
        "x.cpu()",
        "maybe-views",
        SELF,
        meth("torch.Tensor.cpu"),
        devices=CPU_ONLY,
    ),
    Operation(
        "torch.as_tensor",
        "torch.as_tensor(x)",
        "maybe-views",
        SELF,
        func("torch.as_tensor"),
        gallery="gallery/new_tensor",
    ),
    Operation(
        "torch.asarray",
        "torch.asarray(x)",
        "maybe-views",
        # The tensor itself when dtype and device already match and no copy is asked.
        SELF,
        func("torch.asarray"),
    ),
    Operation(
        "conj_of_real",
        "x.conj()",
        "maybe-views",
        # A real tensor has nothing to conjugate: conj() returns it unchanged.
        SELF,
        meth("torch.Tensor.conj"),
    ),
    Operation(
        "reshape_as_view",
        "x.reshape_as(torch.empty(3, 2))",
        "maybe-views",
        VIEW,
        meth("torch.Tensor.reshape_as"),
    ),
    Operation(
        "reshape_as_copy",
        "x.t().reshape_as(torch.empty(6))",
        "maybe-views",
        COPY,
        meth("torch.Tensor.reshape_as"),
    ),
    # -- copies --------------------------------------------------------------------------
    Operation(
        "clone",
        "x.clone()",
        "copies",
        COPY,
        meth("torch.Tensor.clone"),
        gallery="gallery/clone",
    ),
    Operation(
        "detach_clone",
        "x.detach().clone()",
        "copies",
        DETACHED_COPY,
        meth("torch.Tensor.clone"),
        gallery="gallery/detach",
    ),
    Operation(
        "copy_",
        "torch.empty_like(x).copy_(x)",
        "copies",
        COPY,
        meth("torch.Tensor.copy_"),
        gallery="gallery/copy_",
    ),
    Operation(
        "new_tensor",
        "x.new_tensor(x)",
        "copies",
        DETACHED_COPY,
        meth("torch.Tensor.new_tensor"),
        gallery="gallery/new_tensor",
    ),
    Operation(
        "torch.tensor",
        "torch.tensor(x)",
        "copies",
        DETACHED_COPY,
        func("torch.tensor"),
        gallery="gallery/new_tensor",
    ),
    Operation(
        "copy.deepcopy",
        "copy.deepcopy(x)",
        "copies",
        # A new leaf that requires grad, like the original, with memory of its own.
        DETACHED_COPY.with_(result_requires_grad=True),
        func("copy.deepcopy"),
    ),
    Operation("index_advanced", "x[[0, 1]]", "copies", COPY, gallery="gallery/view"),
    Operation("index_bool_mask", "x[x > 2]", "copies", COPY, gallery="gallery/view"),
    Operation(
        "index_select",
        "x.index_select(0, torch.tensor([0, 1], device=x.device))",
        "copies",
        COPY,
        meth("torch.Tensor.index_select"),
    ),
    Operation(
        "masked_select",
        "x.masked_select(x > 2)",
        "copies",
        COPY,
        meth("torch.Tensor.masked_select"),
    ),
    Operation(
        "gather",
        "x.gather(1, torch.tensor([[0], [1]], device=x.device))",
        "copies",
        COPY,
        meth("torch.Tensor.gather"),
    ),
    Operation("flip", "x.flip(0)", "copies", COPY, meth("torch.Tensor.flip")),
    Operation("repeat", "x.repeat(2, 1)", "copies", COPY, meth("torch.Tensor.repeat")),
    Operation("add_out_of_place", "x + 0", "copies", COPY, meth("torch.Tensor.add")),
    Operation(
        "relu",
        "F.relu(x)",
        "copies",
        COPY,
        func("torch.nn.functional.relu"),
        gallery="gallery/inplace_relu_memory",
    ),
    Operation("roll", "x.roll(1)", "copies", COPY, meth("torch.Tensor.roll")),
    Operation(
        "view_copy",
        "torch.view_copy(x, (3, 2))",
        "copies",
        COPY,
        func("torch.view_copy"),
    ),
    Operation(
        "alias_copy",
        "torch.alias_copy(x)",
        "copies",
        COPY,
        func("torch.alias_copy"),
    ),
    Operation(
        "t_copy",
        "torch.t_copy(x)",
        "copies",
        COPY,
        func("torch.t_copy"),
    ),
    Operation(
        "transpose_copy",
        "torch.transpose_copy(x, 0, 1)",
        "copies",
        COPY,
        func("torch.transpose_copy"),
    ),
    Operation(
        "permute_copy",
        "torch.permute_copy(x, (1, 0))",
        "copies",
        COPY,
        func("torch.permute_copy"),
    ),
    Operation(
        "expand_copy",
        "torch.expand_copy(x[:1], (4, 3))",
        "copies",
        COPY,
        func("torch.expand_copy"),
    ),
    Operation(
        "unsqueeze_copy",
        "torch.unsqueeze_copy(x, 0)",
        "copies",
        COPY,
        func("torch.unsqueeze_copy"),
    ),
    Operation(
        "squeeze_copy",
        "torch.squeeze_copy(x.unsqueeze(0), 0)",
        "copies",
        COPY,
        func("torch.squeeze_copy"),
    ),
    Operation(
        "select_copy",
        "torch.select_copy(x, 0, 1)",
        "copies",
        COPY,
        func("torch.select_copy"),
    ),
    Operation(
        "slice_copy",
        "torch.slice_copy(x, 1, 1)",
        "copies",
        COPY,
        func("torch.slice_copy"),
    ),
    Operation(
        "narrow_copy",
        "torch.narrow_copy(x, 1, 0, 2)",
        "copies",
        COPY,
        func("torch.narrow_copy"),
    ),
    Operation(
        "diagonal_copy",
        "torch.diagonal_copy(x)",
        "copies",
        COPY,
        func("torch.diagonal_copy"),
    ),
    Operation(
        "unfold_copy",
        "torch.unfold_copy(x, 1, 2, 1)",
        "copies",
        COPY,
        func("torch.unfold_copy"),
    ),
    Operation(
        "as_strided_copy",
        "torch.as_strided_copy(x, (3,), (2,))",
        "copies",
        COPY,
        func("torch.as_strided_copy"),
    ),
    Operation(
        "split_copy",
        "torch.split_copy(x, 1)[1]",
        "copies",
        COPY,
        func("torch.split_copy"),
    ),
    Operation(
        "split_with_sizes_copy",
        "torch.split_with_sizes_copy(x, [1, 1])[1]",
        "copies",
        COPY,
        func("torch.split_with_sizes_copy"),
    ),
    Operation(
        "unbind_copy",
        "torch.unbind_copy(x)[1]",
        "copies",
        COPY,
        func("torch.unbind_copy"),
    ),
    Operation(
        "view_as_real_copy",
        "torch.view_as_real_copy(z)",
        "copies",
        COPY,
        func("torch.view_as_real_copy"),
        start=FROM_Z,
    ),
    Operation(
        "view_as_complex_copy",
        "torch.view_as_complex_copy(t.view(3, 2))",
        "copies",
        # From x itself it is refused (see the refusals): t needs no grad.
        DETACHED_COPY.with_(grad_flows_to_source=None),
        func("torch.view_as_complex_copy"),
        start=FROM_T,
    ),
    Operation(
        "detach_copy",
        "torch.detach_copy(x)",
        "copies",
        # Unlike detach(), it requires grad, yet has no derivative: backward() raises.
        Facts(False, False, False, True, False, None, False),
        func("torch.detach_copy"),
    ),
    Operation(
        "crow_indices_copy",
        "torch.crow_indices_copy(c)",
        "copies",
        DETACHED_COPY,
        func("torch.crow_indices_copy"),
        start=FROM_C,
    ),
    Operation(
        "coalesce_values",
        "u.coalesce().values()",
        "copies",
        # coalesce() of a tensor not marked coalesced sorts its entries into new memory.
        COPY,
        meth("torch.Tensor.coalesce"),
        start=FROM_U,
    ),
    # -- same memory, out of the graph ---------------------------------------------------
    Operation(
        "detach",
        "x.detach()",
        "detached",
        DETACHED_ALIAS,
        meth("torch.Tensor.detach"),
        gallery="gallery/detach",
    ),
    Operation(
        "data",
        "x.data",
        "detached",
        # Unlike detach(), .data has a version counter of its own: autograd cannot see
        # writes through it, which is how it produces silently wrong gradients.
        DETACHED_ALIAS.with_(shares_version_counter=False),
        attr("torch.Tensor.data"),
        gallery="gallery/detach",
    ),
    Operation(
        "copy.copy",
        "copy.copy(x)",
        "detached",
        # A new leaf over the same memory that requires grad of its own: gradient
        # reaching it stops there, and its version counter is separate.
        Facts(True, True, False, True, True, False, False),
        func("copy.copy"),
    ),
    Operation(
        "state_dict",
        'm.state_dict()["weight"]',
        "detached",
        DETACHED_ALIAS,
        meth("torch.nn.Module.state_dict"),
        start=FROM_M,
    ),
    Operation(
        "view_dtype",
        "x.view(torch.int32)",
        "detached",
        # The same bytes read as integers: a view with a shared version counter, but an
        # integer tensor cannot require grad, so gradient has no path back.
        DETACHED_ALIAS,
        meth("torch.Tensor.view"),
    ),
    Operation(
        "sparse_indices",
        "s.indices()",
        "detached",
        # Integer indices over i's memory, outside the graph, counting versions apart.
        DETACHED_ALIAS.with_(shares_version_counter=False),
        meth("torch.Tensor.indices"),
        start=FROM_S_INDICES,
    ),
    Operation(
        "crow_indices",
        "c.crow_indices()",
        "detached",
        DETACHED_ALIAS.with_(shares_version_counter=False),
        meth("torch.Tensor.crow_indices"),
        start=FROM_C,
    ),
    # -- NumPy ---------------------------------------------------------------------------
    Operation(
        "torch.from_numpy",
        "torch.from_numpy(a)",
        "numpy",
        # NumPy arrays have neither autograd nor a version counter.
        Facts(True, True, False, False, True, None, None),
        func("torch.from_numpy"),
        start=FROM_A,
        devices=CPU_ONLY,
        gallery="gallery/from_numpy",
    ),
    Operation(
        "torch.as_tensor_numpy",
        "torch.as_tensor(a)",
        "numpy",
        Facts(True, True, False, False, True, None, None),
        func("torch.as_tensor"),
        start=FROM_A,
        devices=CPU_ONLY,
        gallery="gallery/from_numpy",
    ),
    Operation(
        "torch.tensor_numpy",
        "torch.tensor(a)",
        "numpy",
        Facts(False, False, False, False, True, None, None),
        func("torch.tensor"),
        start=FROM_A,
        devices=CPU_ONLY,
        gallery="gallery/from_numpy",
    ),
    Operation(
        "Tensor.numpy",
        "t.numpy()",
        "numpy",
        ARRAY,
        meth("torch.Tensor.numpy"),
        start=FROM_T,
        devices=CPU_ONLY,
        gallery="gallery/from_numpy",
    ),
    Operation(
        "Tensor.numpy_force",
        "x.numpy(force=True)",
        "numpy",
        ARRAY,
        meth("torch.Tensor.numpy"),
        devices=CPU_ONLY,
        gallery="gallery/from_numpy",
    ),
    Operation(
        "numpy.asarray",
        "np.asarray(t)",
        "numpy",
        ARRAY,
        func("numpy.asarray"),
        start=FROM_T,
        devices=CPU_ONLY,
    ),
    Operation(
        "detach_cpu_numpy",
        "x.detach().cpu().numpy()",
        "numpy",
        ARRAY,
        meth("torch.Tensor.numpy"),
        # On a GPU, cpu() has to copy to host memory first.
        expect_on={"cuda": ARRAY_COPY},
        gallery="gallery/from_numpy",
    ),
    Operation(
        "torch.frombuffer",
        "torch.frombuffer(b, dtype=torch.float32)",
        "numpy",
        # Python buffers, like NumPy arrays, have neither autograd nor a version counter.
        Facts(True, True, False, False, True, None, None),
        func("torch.frombuffer"),
        start=FROM_B,
        devices=CPU_ONLY,
    ),
    # -- edge cases of sharing -------------------------------------------------------
    Operation(
        "empty_like_of_empty",
        "torch.empty_like(e)",
        "edge-cases",
        # Both storages start at address 0, yet neither holds a byte: nothing is shared,
        # and there is no element to write.
        DETACHED_COPY.with_(writes_propagate=None, grad_flows_to_source=None),
        func("torch.empty_like"),
        start=FROM_E,
    ),
    Operation(
        "from_numpy_offset",
        "torch.from_numpy(a[2:])",
        "edge-cases",
        # A storage of its own that starts 16 bytes into the buffer behind t's storage:
        # the bytes overlap, writes cross over, but each tensor counts its own versions.
        Facts(True, True, False, False, True, None, False),
        func("torch.from_numpy"),
        start=FROM_T_OVER_A,
        devices=CPU_ONLY,
        gallery="gallery/from_numpy",
    ),
    Operation(
        "sparse_values",
        "s.values()",
        "edge-cases",
        # A view of v's memory that stays in the graph, yet its version counter is
        # the sparse tensor's, not v's: writes through it are not counted on v.
        VIEW.with_(shares_version_counter=False),
        meth("torch.Tensor.values"),
        start=FROM_S,
    ),
    # -- refused for this input --------------------------------------------------------
    Operation(
        "imag_of_real",
        "x.imag",
        "refused",
        RAISES.with_(error="RuntimeError", error_since=(("2.15", "TypeError"),)),
        attr("torch.Tensor.imag"),
    ),
    Operation(
        "conj_imag_of_real",
        "x.conj().imag",
        "refused",
        RAISES.with_(error="RuntimeError", error_since=(("2.15", "TypeError"),)),
        attr("torch.Tensor.imag"),
    ),
    Operation(
        "H_of_vector",
        "x[0].H",
        "refused",
        RAISES.with_(error="RuntimeError"),
        attr("torch.Tensor.H"),
    ),
    Operation(
        "values_uncoalesced",
        "u.values()",
        "refused",
        RAISES.with_(error="RuntimeError"),
        meth("torch.Tensor.values"),
        start=FROM_U,
    ),
    Operation(
        "view_as_complex_copy_grad",
        "torch.view_as_complex_copy(x.view(3, 2))",
        "refused",
        # view_as_complex() of the same tensor is a view that autograd records.
        RAISES.with_(
            error="RuntimeError", error_since=(("2.15", "NotImplementedError"),)
        ),
        func("torch.view_as_complex_copy"),
    ),
    Operation(
        "values_copy",
        "torch.values_copy(s)",
        "refused",
        # Neither copy variant has a kernel for sparse tensors, its only input.
        RAISES.with_(error="NotImplementedError"),
        func("torch.values_copy"),
        start=FROM_S,
    ),
    Operation(
        "indices_copy",
        "torch.indices_copy(s)",
        "refused",
        RAISES.with_(error="NotImplementedError"),
        func("torch.indices_copy"),
        start=FROM_S_INDICES,
    ),
    Operation(
        "indices_uncoalesced",
        "u.indices()",
        "refused",
        RAISES.with_(error="RuntimeError"),
        meth("torch.Tensor.indices"),
        start=FROM_U,
    ),
    # -- modules and parameters -----------------------------------------------------
    Operation(
        "module_to",
        "m.to(torch.float64)",
        "modules",
        # The module itself, cast in place; a module has no memory or graph of its own.
        Facts(returns_self=True),
        meth("torch.nn.Module.to"),
        start=FROM_M_ITSELF,
    ),
    Operation(
        "module_double",
        "m.double()",
        "modules",
        Facts(returns_self=True),
        meth("torch.nn.Module.double"),
        start=FROM_M_ITSELF,
    ),
    Operation(
        "nn_parameter",
        "nn.Parameter(x)",
        "modules",
        # x's memory and version counter under a new leaf: gradient stops at it.
        DETACHED_ALIAS.with_(result_requires_grad=True),
        cls("torch.nn.Parameter"),
    ),
    # -- in place ------------------------------------------------------------------------
    Operation(
        "relu_",
        "F.relu_(y)",
        "in-place",
        SELF.with_(result_is_leaf=False),
        func("torch.nn.functional.relu_"),
        start=FROM_Y,
        gallery="gallery/inplace_relu_memory",
    ),
    Operation(
        "add_",
        "y.add_(1)",
        "in-place",
        SELF.with_(result_is_leaf=False),
        meth("torch.Tensor.add_"),
        start=FROM_Y,
    ),
    Operation(
        "add_leaf",
        "x.add_(1)",
        "in-place",
        RAISES.with_(error="RuntimeError"),
        meth("torch.Tensor.add_"),
    ),
    # -- crossing devices (CUDA runs only) -----------------------------------------------
    Operation(
        "to_cuda",
        'x.to("cuda")',
        "devices",
        COPY,
        meth("torch.Tensor.to"),
        start=FROM_X_ON_CPU,
        devices=CUDA_ONLY,
    ),
    Operation(
        "cuda",
        "x.cuda()",
        "devices",
        COPY,
        meth("torch.Tensor.cuda"),
        start=FROM_X_ON_CPU,
        devices=CUDA_ONLY,
    ),
    Operation(
        "cuda_on_cuda",
        "x.cuda()",
        "devices",
        SELF,
        meth("torch.Tensor.cuda"),
        start=FROM_X_ON_GPU,
        devices=CUDA_ONLY,
    ),
    Operation(
        "cpu_of_cuda",
        "x.cpu()",
        "devices",
        COPY,
        meth("torch.Tensor.cpu"),
        start=FROM_X_ON_GPU,
        devices=CUDA_ONLY,
    ),
    Operation(
        "copy_across_devices",
        'torch.empty_like(x, device="cuda").copy_(x)',
        "devices",
        COPY,
        meth("torch.Tensor.copy_"),
        start=FROM_X_ON_CPU,
        gallery="gallery/copy_",
        devices=CUDA_ONLY,
    ),
    Operation(
        "pin_memory",
        "x.pin_memory()",
        "devices",
        # Pinned (page-locked) host memory is new memory; autograd passes gradient
        # through the copy.
        COPY,
        meth("torch.Tensor.pin_memory"),
        start=FROM_X_ON_CPU,
        gallery="gallery/copy_",
        devices=CUDA_ONLY,
    ),
    Operation(
        "numpy_of_cuda",
        "t.numpy()",
        "devices",
        RAISES.with_(error="TypeError"),
        meth("torch.Tensor.numpy"),
        start=FROM_T_ON_GPU,
        devices=CUDA_ONLY,
        gallery="gallery/from_numpy",
    ),
    Operation(
        "numpy_force_of_cuda",
        "x.numpy(force=True)",
        "devices",
        ARRAY_COPY,
        meth("torch.Tensor.numpy"),
        start=FROM_X_ON_GPU,
        devices=CUDA_ONLY,
        gallery="gallery/from_numpy",
    ),
)

BY_ID: Mapping[str, Operation] = MappingProxyType({op.id: op for op in CATALOGUE})


def group(group_id: str) -> tuple[Operation, ...]:
    """Return the operations of one group, in catalogue order."""
    if group_id not in GROUP_IDS:
        raise KeyError(f"no group {group_id!r}; groups: {', '.join(GROUP_IDS)}")
    return tuple(op for op in CATALOGUE if op.group == group_id)


def lookup(op_ids: list[str]) -> list[Operation]:
    """Return the operations with these ids, failing with the unknown ones named."""
    unknown = [op_id for op_id in op_ids if op_id not in BY_ID]
    if unknown:
        raise KeyError(f"unknown operation id(s): {', '.join(unknown)}")
    return [BY_ID[op_id] for op_id in op_ids]


#: What every operation of a group must be expected to do, whatever the device.
GROUP_RULES: Mapping[str, Callable[[Facts], bool]] = MappingProxyType(
    {
        # A complex result has no measured gradient: backward() needs a real one.
        "views": lambda f: f in (VIEW, VIEW.with_(grad_flows_to_source=None)),
        "maybe-views": lambda f: f in (VIEW, COPY, SELF),
        "copies": lambda f: f.shares_storage is False and f.writes_propagate is False,
        "detached": lambda f: (
            f.shares_storage is True and f.grad_flows_to_source is False
        ),
        "numpy": lambda f: f.shares_storage is not None,
        "edge-cases": lambda f: f.shares_storage is not None,
        "refused": lambda f: f.error is not None,
        "modules": lambda f: f.returns_self is True or f.shares_storage is True,
        "in-place": lambda f: f.returns_self is True or f.error is not None,
        "devices": lambda f: f.shares_storage is not None or f.error is not None,
    }
)


def problems() -> list[str]:
    """Return every inconsistency in the catalogue (empty when it is sound)."""
    found = []
    for kind, names in [
        ("id", [op.id for op in CATALOGUE]),
        ("anchor", [op.anchor for op in CATALOGUE]),
    ]:
        found += [
            f"duplicate {kind} {n!r}" for n in sorted(set(names)) if names.count(n) > 1
        ]
    for op in CATALOGUE:
        if op.group not in GROUP_IDS:
            found.append(f"{op.id}: unknown group {op.group!r}")
            continue
        for device, facts in [("any", op.expect), *op.expect_on.items()]:
            if not GROUP_RULES[op.group](facts):
                found.append(
                    f"{op.id}: expected facts on {device} do not fit group {op.group!r}"
                )
            if facts.error is not None and any(
                getattr(facts, name) is not None for name in FIELDS
            ):
                found.append(f"{op.id}: an expression that raises has no other facts")
    return found


def fact_names() -> tuple[str, ...]:
    """Return the names of every field of :class:`Facts`, ``error`` and
    ``error_since`` last."""
    return tuple(f.name for f in fields(Facts))
