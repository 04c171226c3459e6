"""Whether two tensors share memory: the one test the probe, the pages and the scripts use.

The pages and the gallery scripts must run on their own, so each carries a copy of
:func:`shares_memory`; ``tests/test_shares_memory.py`` keeps every copy identical to
this one, and tests it on the cases that defeat simpler tests.
"""

from __future__ import annotations

import torch


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Tell whether the storages of ``a`` and ``b`` cover some of the same bytes.

    A storage without memory (an empty tensor, a ``meta`` tensor) overlaps nothing.
    """
    if a.device != b.device:
        return False
    spans = []
    for t in (a, b):
        storage = t.untyped_storage()
        start, size = storage.data_ptr(), storage.nbytes()
        if start == 0 or size == 0:
            return False
        spans.append((start, start + size))
    (a_start, a_end), (b_start, b_end) = spans
    return a_start < b_end and b_start < a_end
