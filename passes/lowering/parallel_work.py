"""Whether a loop's work is worth the threads: a pure function of its
trip count and innermost iterations, which `gmx-parallel-loops` applies to
the loops it keeps parallel, and the plans to the parallel strategies
whose work the pass cannot count (a scatter's ranges of targets, each
walking a run-time number of updates: `scatter_plan`).
"""

from __future__ import annotations

# Innermost iterations a loop nest must run to be split across threads:
# below, waking the threads costs more than the loop.
PARALLEL_MIN_ITERATIONS = 1 << 16


def runs_in_parallel(trip_count: int | None, iterations: int | None) -> bool:
    """Whether a loop of `trip_count` iterations (None: known at run time
    only) doing `iterations` innermost iterations in all (None: unknown)
    is split across threads: at least two iterations, and enough work."""
    if trip_count is not None and trip_count < 2:
        return False
    return iterations is None or iterations >= PARALLEL_MIN_ITERATIONS
