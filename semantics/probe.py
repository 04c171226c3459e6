"""Measure, on a device, what each catalogue operation really does.

Every field is measured on a fresh evaluation of the expression, so one measurement
(a write, a backward) cannot disturb another. A fact that cannot be measured is
``None``; an expression that raises records its error and nothing else.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import torch

from semantics.catalogue import CATALOGUE, FIELDS, Operation, namespace
from semantics.measurement import Measurement
from semantics.memory import shares_memory

#: Errors a write into a result may legitimately raise (read-only or overlapping memory).
WRITE_ERRORS = (RuntimeError, ValueError, TypeError)
#: Errors reading values that do not exist raises (a ``meta`` tensor has no data).
UNREADABLE = (NotImplementedError, RuntimeError)


@dataclass(frozen=True)
class Trial:
    """One evaluation of an operation: the source it reads, the leaf behind it, its result."""

    source: object
    leaf: object
    result: object


def run(op: Operation, device: str) -> Trial:
    """Build the operation's names on ``device`` and evaluate its code exactly as shown."""
    scope: dict[str, object] = {**namespace(), **op.setup(device)}
    source = eval(op.source, scope)
    leaf = eval(op.leaf, scope)
    with warnings.catch_warnings():
        # Some expressions warn (torch.tensor(x) suggests detach().clone()); the warning
        # is advice, not a fact about memory or gradient.
        warnings.simplefilter("ignore")
        result = eval(compile(op.code, f"<{op.id}>", "eval"), scope)
    return Trial(source=source, leaf=leaf, result=result)


#: Python objects that expose their memory as a buffer (``torch.frombuffer`` reads them).
BUFFERS = (bytearray, memoryview)


def host_array(obj: object) -> np.ndarray | None:
    """NumPy's view of ``obj``'s memory when it lives in host memory, else ``None``."""
    if isinstance(obj, np.ndarray):
        return obj
    if isinstance(obj, BUFFERS):
        return np.frombuffer(obj, dtype=np.uint8)
    if isinstance(obj, torch.Tensor) and obj.device.type == "cpu":
        return obj.detach().numpy()
    return None


def snapshot(obj: object) -> np.ndarray:
    """An independent host copy of a tensor's or array's values."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu", copy=True).numpy()
    if isinstance(obj, BUFFERS):
        return np.frombuffer(obj, dtype=np.uint8).copy()
    return np.array(obj, copy=True)


def write_one_element(obj: object) -> None:
    """Add 100 to the first element of a tensor or array, in place, outside autograd.

    An empty tensor has no element: it gets an in-place add that writes nothing but
    still counts as a write for its version counter.
    """
    if isinstance(obj, torch.Tensor):
        with torch.no_grad():
            target = obj[(0,) * obj.dim()] if obj.numel() else obj
            target.add_(100)
    elif isinstance(obj, np.ndarray):
        obj[(0,) * obj.ndim] += 100
    else:
        raise TypeError(f"cannot write into a {type(obj).__name__}")


def is_tensor_or_array(obj: object) -> bool:
    """Tell whether ``obj`` holds values in memory the probe can compare."""
    return isinstance(obj, (torch.Tensor, np.ndarray, *BUFFERS))


def is_empty(obj: object) -> bool:
    """Tell whether a tensor, array or buffer has no elements."""
    if isinstance(obj, torch.Tensor):
        return obj.numel() == 0
    host = host_array(obj)
    return host is not None and host.size == 0


def shares_storage(trial: Trial) -> bool | None:
    """The storages' bytes overlap (``np.shares_memory`` when an array is involved)."""
    source, result = trial.source, trial.result
    if isinstance(source, torch.Tensor) and isinstance(result, torch.Tensor):
        return shares_memory(source, result)
    if not (is_tensor_or_array(source) and is_tensor_or_array(result)):
        return None
    arrays = host_array(source), host_array(result)
    if arrays[0] is None or arrays[1] is None:
        # One side is in device memory, the other in host memory: never the same bytes.
        return False
    return bool(np.shares_memory(*arrays))


def writes_propagate(trial: Trial) -> bool | None:
    """A write through the result changes the source's values (``None`` if empty)."""
    if not (is_tensor_or_array(trial.source) and is_tensor_or_array(trial.result)):
        return None
    if is_empty(trial.result):
        return None  # no element to write
    try:
        before = snapshot(trial.source)
    except UNREADABLE:
        return None
    try:
        write_one_element(trial.result)
    except WRITE_ERRORS:
        return None
    return not np.array_equal(before, snapshot(trial.source))


def returns_self(trial: Trial) -> bool | None:
    """The result is the very object the expression was applied to."""
    return trial.result is trial.source


def result_requires_grad(trial: Trial) -> bool | None:
    """The result requires grad (``None`` for a NumPy result, which has no autograd)."""
    if not isinstance(trial.result, torch.Tensor):
        return None
    return trial.result.requires_grad


def result_is_leaf(trial: Trial) -> bool | None:
    """The result is a leaf of the autograd graph (``None`` for a NumPy result)."""
    if not isinstance(trial.result, torch.Tensor):
        return None
    return trial.result.is_leaf


def grad_flows_to_source(trial: Trial) -> bool | None:
    """A backward through the result fills the source leaf's ``.grad``.

    ``None`` when the source is not a leaf that requires grad or the result is not a
    tensor: there is no gradient to look for.
    """
    leaf, result = trial.leaf, trial.result
    if not (
        isinstance(leaf, torch.Tensor)
        and leaf.requires_grad
        and leaf.is_leaf
        and isinstance(result, torch.Tensor)
    ):
        return None
    if not result.requires_grad:
        return False  # nothing can carry gradient back from a tensor outside the graph
    try:
        result.sum().backward()
    except RuntimeError:
        return None
    return leaf.grad is not None


def shares_version_counter(trial: Trial) -> bool | None:
    """An in-place change of the result bumps the source's ``_version``."""
    source, result = trial.source, trial.result
    if not (isinstance(source, torch.Tensor) and isinstance(result, torch.Tensor)):
        return None
    try:
        source_version, result_version = source._version, result._version
    except RuntimeError:
        return None  # inference tensors keep no version counter
    try:
        write_one_element(result)
    except WRITE_ERRORS:
        return None
    if result._version == result_version:
        return None  # the write was not counted at all: nothing to compare
    return source._version != source_version


#: How each field is measured, in ``FIELDS`` order.
MEASURES: dict[str, Callable[[Trial], bool | None]] = {
    "shares_storage": shares_storage,
    "writes_propagate": writes_propagate,
    "returns_self": returns_self,
    "result_requires_grad": result_requires_grad,
    "result_is_leaf": result_is_leaf,
    "grad_flows_to_source": grad_flows_to_source,
    "shares_version_counter": shares_version_counter,
}
assert tuple(MEASURES) == FIELDS


def describe_error(error: BaseException) -> str:
    """``"ExceptionType: first line of the message"``."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def measure(op: Operation, device: str) -> Measurement:
    """Measure every field of ``op`` on ``device``, each on a fresh evaluation."""
    values: dict[str, bool | None] = dict.fromkeys(FIELDS)
    error = None
    try:
        trials = [run(op, device) for _ in FIELDS]
    except Exception as exc:  # the expression's own error is a fact to report
        error = describe_error(exc)
    else:
        for (name, measure_field), trial in zip(MEASURES.items(), trials, strict=True):
            values[name] = measure_field(trial)
    return Measurement(op=op.id, code=op.code, device=device, error=error, **values)


def probe(
    device: str, operations: Iterable[Operation] = CATALOGUE
) -> list[Measurement]:
    """Measure every operation that applies to ``device``, in catalogue order."""
    return [measure(op, device) for op in operations if op.applies_to(device)]


def report(
    devices: list[str], operations: Iterable[Operation] = CATALOGUE
) -> dict[str, object]:
    """Return the ``semantics.json`` document for ``devices``."""
    operations = tuple(operations)
    return {
        "torch_version": str(
            torch.__version__
        ),  # not TorchVersion: pickled and sent as JSON
        "devices": list(devices),
        "entries": [
            m.to_json() for device in devices for m in probe(device, operations)
        ],
    }


def available_devices() -> list[str]:
    """Device types this machine's PyTorch can run on: the CPU, then its accelerator."""
    found = ["cpu"]
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None and accelerator.is_available():
        current = accelerator.current_accelerator()
        if current is not None:
            found.append(current.type)
    elif torch.cuda.is_available():
        found.append("cuda")
    return found


def not_measured(devices: list[str]) -> list[Operation]:
    """Operations that apply to none of ``devices`` (e.g. CUDA crossings on a CPU run)."""
    return [
        op for op in CATALOGUE if not any(op.applies_to(device) for device in devices)
    ]
