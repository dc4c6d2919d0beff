"""Does splitting a gather's outer output dim over two threads pay here?

    python -m gmx.benchmarks.thread_split

The experiment behind issue 4's stretch goal, not a feature: gmx compiles
one single-threaded function, so each variant is compiled twice, for the
whole output and for half its rows, and the two halves are called at once
from a 2-thread pool (a ctypes call releases the GIL). The halves stay two
arrays: shipping this would need an entry that writes into a caller's
buffer, so that both halves fill one output. Printed: medians of interleaved
rounds (random order), the speed-up of two threads, PyTorch at its default
thread count, and the page faults per call (ru_minflt): glibc gives each
thread its own arena and returns a large freed block to the kernel, so a
worker thread's output is faulted in again on every call. Forcing one arena
(MALLOC_ARENA_MAX=1) moves those faults to every call, one thread included.
"""

from __future__ import annotations

import resource
import statistics
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import gmx.runtime
from gmx.tools.study.frontends import gmx_program

from .timing import measure, median_ms


def _cases(rng):
    """(name, x, indices, axes, output shape, x split along dim 0?, torch forward)."""
    import torch

    x = rng.random((256, 256, 64), dtype=np.float32)
    yield "torch.gather", x, rng.integers(0, 256, (256, 256, 64)), [1], (256, 256, 64), True, \
        lambda a, i: torch.gather(a, 1, i)
    x = rng.random((50000, 256), dtype=np.float32)
    yield "index_select", x, rng.integers(0, 50000, (16384, 1)), [0], (16384, 256), False, \
        lambda a, i: torch.index_select(a, 0, i[:, 0])
    x = rng.random((64, 4096, 64), dtype=np.float32)
    yield "x[i, :, j]", x, rng.integers(0, 64, (1024, 1, 2)), [0, 2], (1024, 4096, 1), False, \
        lambda a, i: a[i[:, 0, 0], :, i[:, 0, 1]]


def _time(calls: dict, repeat: int = 15, warmup: int = 3) -> dict:
    """name -> (median ms, median page faults per call), timed by `measure`."""
    faults = {name: [] for name in calls}

    def counting(name, fn):
        def run():
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            fn()
            faults[name].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)

        return run

    samples = measure({n: counting(n, fn) for n, fn in calls.items()}, (), repeat, warmup)
    return {n: (median_ms(samples[n]), statistics.median(faults[n][warmup:])) for n in calls}


def main() -> None:
    import torch

    pool = ThreadPoolExecutor(2)
    rng = np.random.default_rng(0)
    print("| variant | gmx 1 thread ms | gmx 2 threads ms | torch default ms | 1 thread / 2 threads "
          "| faults per call, 1 / 2 threads |")
    print("|---|---|---|---|---|---|")
    for name, x, idx, axes, out_shape, split_x, forward in _cases(rng):
        whole = gmx.runtime.compile(gmx_program(("f32", x.shape), ("i64", idx.shape), axes))
        half_rows = out_shape[0] // 2
        xs = (x[:half_rows], x[half_rows:]) if split_x else (x, x)
        ids = (idx[:half_rows], idx[half_rows:]) if idx.shape[0] == out_shape[0] else (idx, idx)
        xs, ids = [np.ascontiguousarray(a) for a in xs], [np.ascontiguousarray(a) for a in ids]
        half = gmx.runtime.compile(gmx_program(("f32", xs[0].shape), ("i64", ids[0].shape), axes))
        expected = whole(x, idx)
        assert np.array_equal(np.concatenate([half(xs[0], ids[0]), half(xs[1], ids[1])]), expected)
        tx, ti = torch.from_numpy(x), torch.from_numpy(idx)
        calls = {
            "1t": lambda: whole(x, idx),
            "2t": lambda: [f.result() for f in [pool.submit(half, xs[k], ids[k]) for k in range(2)]],
            "torch": lambda: forward(tx, ti),
        }
        t = _time(calls)
        print(f"| {name} | {t['1t'][0]:.2f} | {t['2t'][0]:.2f} | {t['torch'][0]:.2f} | "
              f"{t['1t'][0] / t['2t'][0]:.2f}x | {t['1t'][1]:.0f} / {t['2t'][1]:.0f} |")


if __name__ == "__main__":
    main()
