"""Interleaved wall-clock timing with time.perf_counter.

The machine is shared and noisy, so contenders are timed side by side: each
round calls every contender once, in an order rotated from round to round,
and the median over rounds is reported. Garbage is collected once before
the first round and the collector stays off until the last: a collection
between rounds makes the next call several times slower (cold caches), which
biased whichever contender ran first.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Mapping


def rotated(names: list[str], shift: int) -> list[str]:
    """`names` rotated left by `shift` (so no contender always runs first)."""
    shift %= max(len(names), 1)
    return names[shift:] + names[:shift]


def time_call(fn: Callable, args: tuple) -> float:
    """Seconds one `fn(*args)` takes (its result is dropped after timing)."""
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def measure(calls: Mapping[str, Callable], args: tuple, repeat: int, warmup: int = 2) -> dict[str, list[float]]:
    """Per name, the seconds of `repeat` interleaved calls after `warmup` rounds."""
    names = list(calls)
    samples: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    gc.disable()
    try:
        for round_ in range(warmup + repeat):
            for name in rotated(names, round_):
                seconds = time_call(calls[name], args)
                if round_ >= warmup:
                    samples[name].append(seconds)
    finally:
        gc.enable()
    return samples


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3
