"""The thread count of a gmx.runtime call: the OpenMP threads its
parallel loops run on (`openmp`), as the API and the tools take it."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its affinity), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def check_threads(threads) -> int:
    """`threads` as a count of threads (None: the usable cores)."""
    if threads is None:
        return usable_cores()
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be a positive int or None, got {threads!r} ({type(threads).__name__})")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    return threads
