"""Facts the pages state that a PyTorch release may change, each measured in a fresh
interpreter.

A fresh interpreter for each: a warning shows once per process, and on some releases
an expression aborts the process that evaluates it. The outcome is one of four kinds:
it ``returns`` a value, ``warns`` (the first warning's message), ``raises`` (type and
first line) or ``dies`` (the signal that ended the process).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from dataclasses import dataclass

from semantics.catalogue import N_

#: What the child runs: the expression, and one JSON line saying what it did.
_CHILD = """
import json, resource, warnings
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file when it dies
import numpy as np
import torch

def say(kind, detail):
    print(json.dumps({"kind": kind, "detail": detail}), flush=True)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        value = eval(CODE)
    except Exception as error:
        lines = [l.strip() for l in str(error).splitlines() if l.strip()]
        say("raises", f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__)
    else:
        if caught:  # without where in PyTorch's sources it was raised
            say("warns", str(caught[0].message).split(" (Triggered internally")[0])
        else:
            say("returns", repr(value))
"""


@dataclass(frozen=True)
class ReleaseFact:
    """One behaviour a page states, as an expression evaluated in a fresh process."""

    id: str
    #: What the fact is about, shown above its table of releases (translated).
    question: str
    #: The expression evaluated, with ``torch`` and ``np`` imported.
    code: str


RELEASE_FACTS = (
    ReleaseFact(
        "tensor_of_tensor_warning",
        N_("What `torch.tensor(t)` warns when `t` is a tensor"),
        "torch.tensor(torch.ones(3, requires_grad=True))",
    ),
    ReleaseFact(
        "resize_detached",
        N_("Growing a detached tensor with `resize_`"),
        "torch.zeros(2, 3, requires_grad=True).detach().resize_(100, 100).shape",
    ),
    ReleaseFact(
        "dlpack_reversed",
        N_("`torch.from_dlpack` of a reversed NumPy array"),
        "torch.from_dlpack(np.arange(4.0)[::-1]).tolist()",
    ),
    ReleaseFact(
        "index_assign_records",
        N_("What autograd records for `x[index] = 1.0`"),
        "type((lambda r: r.__setitem__(torch.tensor([0, 2]), 1.0) or r)"
        "(torch.zeros(4, requires_grad=True) * 1).grad_fn).__name__",
    ),
    ReleaseFact(
        "expanded_mask_assign",
        N_("What `e[mask] = 7.0` does to an expanded tensor `e`"),
        "(lambda e: e.__setitem__(e > -1, 7.0))(torch.zeros(3, 1).expand(3, 4))",
    ),
    ReleaseFact(
        "expanded_row_assign",
        N_("What `e[0] = 7.0` does to an expanded tensor `e`"),
        "torch.zeros(3, 1).expand(3, 4).__setitem__(0, 7.0)",
    ),
    ReleaseFact(
        "imag_of_a_real_tensor",
        N_("What `x.imag` raises for a real tensor `x`"),
        "torch.ones(3).imag",
    ),
    ReleaseFact(
        "grow_shared_memory",
        N_("Growing a tensor in shared memory with `resize_`"),
        "torch.zeros(3).share_memory_().resize_(10).shape",
    ),
)
BY_ID = {fact.id: fact for fact in RELEASE_FACTS}


def measure(fact: ReleaseFact, python: str = sys.executable) -> dict[str, str]:
    """Evaluate ``fact`` in a fresh ``python`` and say what happened."""
    child = subprocess.run(
        [python, "-c", f"CODE = {fact.code!r}\n{_CHILD}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if child.returncode < 0:
        return {"kind": "dies", "detail": signal.Signals(-child.returncode).name}
    lines = child.stdout.strip().splitlines()
    if child.returncode != 0 or not lines:
        raise RuntimeError(
            f"release fact {fact.id}: the child exited with {child.returncode}: "
            f"{child.stderr.strip()[-2000:]}"
        )
    return json.loads(lines[-1])


def measure_all(python: str = sys.executable) -> dict[str, dict[str, str]]:
    """Every release fact's outcome on the PyTorch of ``python``."""
    return {fact.id: measure(fact, python) for fact in RELEASE_FACTS}
