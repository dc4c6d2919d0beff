"""A KV-cache update with and without donation, against torch's in-place
`index_copy_` (`python -m gmx.benchmarks.donation [--quick]`).

One token's keys `[B, H, 1, D]` are written into a cache `[B, H, S, D]` at
a position read from a tensor (`tensor.insert_slice`, the position by
`tensor.extract` + `arith.index_cast`). Donated (`compile(..., donate=(0,))`)
the call writes the token into the caller's cache and returns it; not
donated it returns a new cache, a copy of the whole cache plus the token.
Every contender is checked against numpy first; the table shows medians of
interleaved calls (`timing.measure`). Each call writes the same token at
the same position, so a donated cache (and torch's) is the same after
every call: the calls may share their inputs.
"""

from __future__ import annotations

import argparse

import numpy as np

from gmx.runtime import compile
from gmx.tools.experiments.tables import fmt_ratio, markdown_table
from gmx.tools.experiments.timing import measure, median_ms

SHAPES = {"full": (8, 32, 4096, 128), "quick": (2, 4, 64, 16)}


def kv_update_text(shape: tuple[int, int, int, int]) -> str:
    """The update of `shape`'s cache at the position `%pos`."""
    b, h, s, d = shape
    cache, token = f"tensor<{b}x{h}x{s}x{d}xf32>", f"tensor<{b}x{h}x1x{d}xf32>"
    return (
        f"func.func @main(%cache: {cache}, %token: {token}, %pos: tensor<i64>) -> {cache} {{\n"
        "  %p = tensor.extract %pos[] : tensor<i64>\n"
        "  %i = arith.index_cast %p : i64 to index\n"
        f"  %r = tensor.insert_slice %token into %cache[0, 0, %i, 0] [{b}, {h}, 1, {d}] [1, 1, 1, 1] "
        f": {token} into {cache}\n"
        f"  return %r : {cache}\n}}\n"
    )


def contenders(shape: tuple, pos: int) -> tuple[dict, np.ndarray]:
    """The calls to time (each returning the updated cache), and the
    expected cache."""
    import torch

    rng = np.random.default_rng(0)
    cache = rng.standard_normal(shape, dtype=np.float32)
    token = rng.standard_normal((*shape[:2], 1, shape[3]), dtype=np.float32)
    expected = cache.copy()
    expected[:, :, pos] = token[:, :, 0]
    text = kv_update_text(shape)
    donated, copied = compile(text, donate=(0,)), compile(text)
    position = np.array(pos, np.int64)
    mine, theirs = cache.copy(), torch.from_numpy(cache.copy())
    token_t, position_t = torch.from_numpy(token), torch.tensor([pos])
    calls = {
        "gmx donated": lambda: donated(mine, token, position),
        "gmx copied": lambda: copied(cache, token, position),
        "torch index_copy_": lambda: theirs.index_copy_(2, position_t, token_t).numpy(),
    }
    return calls, expected


def measure_kv_update(size: str = "full", repeat: int = 15, warmup: int = 2) -> dict[str, float]:
    """Milliseconds per call (median) of each contender, checked first."""
    shape = SHAPES[size]
    calls, expected = contenders(shape, pos=shape[2] // 2 + 1)
    for name, call in calls.items():
        if not np.array_equal(call(), expected):
            raise AssertionError(f"kv-cache update: {name} differs from numpy")
    samples = measure(calls, (), repeat, warmup)
    return {name: median_ms(s) for name, s in samples.items()}


def markdown(times: dict[str, float], shape: tuple) -> str:
    base = times["torch index_copy_"]
    head = ["contender", "ms/call", "/ torch index_copy_"]
    rows = [[name, f"{ms:.3f}", fmt_ratio(ms / base)] for name, ms in times.items()]
    title = f"KV-cache update, cache {list(shape)} f32 ({np.prod(shape) * 4 / 2**20:,.0f} MiB)"
    return "\n".join([title, "", *markdown_table(head, rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small cache (a smoke test)")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    size = "quick" if args.quick else "full"
    print(markdown(measure_kv_update(size, args.repeat), SHAPES[size]))


if __name__ == "__main__":
    main()
