"""How gmx.runtime splits one call across threads: pure decisions, and the
one pool of worker threads.

An entry lowered with row ranges (`runtime_abi`: `gmx.row_ranges = [R, T]`)
computes any range of its result's rows in tiles of T. A call on `threads`
threads is cut into `chunks(...)` ranges, a few per thread, which the
caller's thread and up to `threads - 1` workers of the pool take in turn
until none is left: on a busy machine a worker that starts late takes
fewer, so the call is never much slower than on one thread. A range must
be worth its share of the round trip to the pool (tens of microseconds),
so small outputs run whole on the caller's thread. The compiled code
releases the GIL while it runs (ctypes calls do), so ranges run at once.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

# Output bytes of a range, at least: below, handing it to a thread costs
# more than it saves.
MIN_CHUNK_BYTES = 256 << 10
# Ranges per thread, at most: enough that a thread that starts late leaves
# its share to the others.
CHUNKS_PER_THREAD = 4


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


def chunks(rows: int, tile: int, threads: int, output_bytes: int) -> list[tuple[int, int]]:
    """The row ranges [first, last) one call is cut into, in row order,
    covering [0, rows): one on one thread, else as many as
    CHUNKS_PER_THREAD per thread, the tiles (of `tile` rows) and
    MIN_CHUNK_BYTES shares of the output allow; the tiles are dealt
    evenly, the first ranges taking one more when they do not divide."""
    tiles = -(-rows // tile)
    per_thread = CHUNKS_PER_THREAD if threads > 1 else 1
    count = max(1, min(threads * per_thread, tiles, output_bytes // MIN_CHUNK_BYTES))
    ranges, first = [], 0
    for k in range(count):
        size = tiles // count + (1 if k < tiles % count else 0)
        last = min(rows, first + size * tile)
        ranges.append((first, last))
        first = last
    return ranges


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def pool(workers: int) -> ThreadPoolExecutor:
    """The process's worker threads, at least `workers` of them (a pool is
    replaced by a larger one when more are asked for; the old one finishes
    what it was given)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < workers:
            old, _pool = _pool, ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gmx-runtime")
            if old is not None:
                old.shutdown(wait=False)
        return _pool
