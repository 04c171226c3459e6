"""Callables that Sphinx-Gallery calls around each example, referenced by name in conf.py."""

from __future__ import annotations

import warnings

# After running an example, Sphinx-Gallery reads every attribute the code names to link
# it to API docs; reading ``.grad`` of a non-leaf that way makes PyTorch warn about a
# mistake the example did not make.
warnings.filterwarnings(
    "ignore",
    message="The .grad attribute of a Tensor that is not a leaf Tensor",
    category=UserWarning,
    module="sphinx_gallery.backreferences",
)


def reset_torch(gallery_conf: dict, fname: str) -> None:
    """Give every example the same fresh random state, as a reader's fresh process has."""
    import torch

    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def _peak_rss_mib() -> float | None:
    """Peak resident memory of this process since the last reset (Linux), in MiB."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    """Restart the kernel's peak-RSS counter for this process; False where unsupported."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


class PeakMemory:
    """Sphinx-Gallery's ``show_memory`` hook: peak memory of each example, in MiB.

    On a CUDA run the figure is the peak of device memory allocated by tensors; on the
    CPU it is how far the example raised the build process's peak resident memory.
    An instance rather than a function, because Sphinx caches its configuration only
    when no value in it is a function; all instances are equal, so an unchanged
    configuration stays unchanged.
    """

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PeakMemory)

    def __hash__(self) -> int:
        return hash(PeakMemory.__qualname__)

    def __repr__(self) -> str:
        return "PeakMemory()"

    def __call__(self, func):
        return _run_measuring_peak(func)


def _run_measuring_peak(func):
    """Run ``func`` and return (peak memory in MiB, its result)."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        result = func()
        torch.cuda.synchronize()
        return (torch.cuda.max_memory_allocated() - before) / 2**20, result
    if not _reset_peak_rss():
        return 0.0, func()
    before = _peak_rss_mib() or 0.0
    result = func()
    return max((_peak_rss_mib() or 0.0) - before, 0.0), result


class ReadingOrder:
    """Sphinx-Gallery sort key: the order in which a reader meets the operations.

    Named in conf.py by its dotted path; scripts not listed follow, by file name (a
    test fails on one).
    """

    ORDER = (
        "clone.py",
        "detach.py",
        "copy_.py",
        "new_tensor.py",
        "view.py",
        "from_numpy.py",
        "inplace_relu_memory.py",
        "indexed_writes.py",
        "module_to.py",
        "save_view.py",
        "share_memory.py",
    )

    def __init__(self, src_dir: str) -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str) -> tuple[int, str]:
        rank = self.ORDER.index(filename) if filename in self.ORDER else len(self.ORDER)
        return rank, filename

    def __repr__(self) -> str:  # Sphinx-Gallery caches on it: keep it stable
        return f"<{type(self).__name__}>"
