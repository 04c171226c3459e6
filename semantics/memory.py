"""How the site tells shared memory apart and measures what an operation allocates.

The pages and the gallery scripts must run on their own, so each carries a copy of the
functions it needs from here; ``tests/test_memory_helpers.py`` keeps every copy
identical to these, and tests them on the cases that defeat simpler methods.
"""

from __future__ import annotations

import json
import os
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Tell whether the storages of ``a`` and ``b`` cover some of the same bytes.

    A storage that holds no memory, like that of ``torch.empty(0)`` or of a ``meta``
    tensor, overlaps nothing.
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


def measure(fn, device: torch.device) -> tuple[object, int, int]:
    """Run ``fn()``; return its result and the bytes allocated on ``device`` meanwhile:
    the peak above the start, and the net change when it returns.

    CUDA: the caching allocator's own statistics. CPU: the profiler's record of each
    allocation on this thread, and each free of memory allocated while memory profiling
    was on (an earlier call of ``measure`` included), with a running total.
    """
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        start = torch.cuda.memory_allocated(device)
        result = fn()
        torch.cuda.synchronize(device)
        peak = torch.cuda.max_memory_allocated(device) - start
        return result, peak, torch.cuda.memory_allocated(device) - start
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = fn()
    with tempfile.TemporaryDirectory() as folder:
        trace = os.path.join(folder, "trace.json")
        prof.export_chrome_trace(trace)
        with open(trace, encoding="utf-8") as file:
            events = json.load(file)["traceEvents"]
    memory = [
        event
        for event in events
        if event.get("name") == "[memory]" and event["args"]["Device Type"] == 0
    ]
    if not memory:
        return result, 0, 0
    # The running total just before the earliest event is where this call started.
    first = min(memory, key=lambda event: event["ts"])["args"]
    start = first["Total Allocated"] - first["Bytes"]
    peak = max(event["args"]["Total Allocated"] for event in memory) - start
    return result, max(peak, 0), sum(event["args"]["Bytes"] for event in memory)


def counted_bytes(sizes: list[int], device: torch.device) -> tuple[int, int]:
    """The fewest and most bytes ``measure`` can report for tensors of these sizes.

    The CPU allocator counts exactly what is asked. CUDA's caching allocator (default
    settings) rounds each request up to a multiple of 512 bytes, and a block over 1 MiB
    may keep up to 1 MiB more, a remainder too small to split off for reuse.
    """
    if device.type != "cuda":
        return sum(sizes), sum(sizes)
    rounded = [-(-size // 512) * 512 for size in sizes]
    slack = sum(2**20 for size in rounded if size > 2**20)
    return sum(rounded), sum(rounded) + slack
