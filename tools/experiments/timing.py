"""Interleaved wall-clock timing with time.perf_counter.

The machine is shared and noisy, so contenders are timed side by side: each
round calls every contender once, in a fresh (seeded) random order, and the
median over rounds is reported. Random rather than rotated: a rotation keeps
the cyclic order, so each contender would always follow the same one and
inherit its cache state (a contender after a large write of ordinary stores
pays for evicting those dirty lines every time). Garbage is collected once before
the first round and the collector stays off until the last: a collection
between rounds makes the next call several times slower (cold caches), which
biased whichever contender ran first.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable, Mapping


def shuffled_rounds(names: list[str], rounds: int, seed: int = 0) -> list[list[str]]:
    """`rounds` orders of `names`, each a random permutation (reproducible)."""
    rng = random.Random(seed)
    return [rng.sample(names, len(names)) for _ in range(rounds)]


def time_call(fn: Callable, args: tuple) -> float:
    """Seconds one `fn(*args)` takes (its result is dropped after timing)."""
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def measure(calls: Mapping[str, Callable], args: tuple, repeat: int, warmup: int = 2,
            resets: Mapping[str, Callable] | None = None) -> dict[str, list[float]]:
    """Per name, the seconds of `repeat` interleaved calls after `warmup`
    rounds; `resets[name]()`, untimed, before each call of `name` (a call
    that writes its inputs, a donating one, gets them as they were)."""
    resets = resets or {}
    names = list(calls)
    samples: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    gc.disable()
    try:
        for round_, order in enumerate(shuffled_rounds(names, warmup + repeat)):
            for name in order:
                if name in resets:
                    resets[name]()
                seconds = time_call(calls[name], args)
                if round_ >= warmup:
                    samples[name].append(seconds)
    finally:
        gc.enable()
    return samples


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3
