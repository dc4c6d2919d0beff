"""What gmx-bench runs: the benchmarked gathers, variants of the one
registry (`gmx.tools.experiments.variants`) at fixed shapes per size, and
the contenders of its table (`default_contenders`).

A `Benchmark` names a variant and its options ("full": >= 4M outputs,
"quick": a smoke test); `case(size)` is the Case every contender runs: the
study's inputs, the reference's result and its frontend program, exported at
static shapes (shapes are baked into the program). What torch-mlir emits,
e.g. for `torch.gather(x, 1, idx)`:

    values = tosa.reshape x -> [1, X, 1]                  (fully flattened)
    coords = tosa.concat(iota_d0, cast(idx), iota_d2)     (iotas are tosa.const
    flat   = reduce_sum(mul(coords, strides), axis=1)      as large as the output)
    out    = reshape(tosa.gather values, flat)

`embedding` (`x[i]` on a table) is the exception: torch-mlir emits one plain
tosa.gather on the unflattened table, with no linearised index arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.runtime.threads import usable_cores
from gmx.tools.experiments.contenders import Case, Fused, Memcpy, Numpy, OnnxRuntime, Torch, Unfused, make_case
from gmx.tools.experiments.iree_contenders import iree_contenders
from gmx.tools.experiments.variants import Study, make_study

@dataclass(frozen=True)
class Benchmark:
    """A variant at fixed options: `shapes` maps a size to (data shape,
    indices shape); `options` are the rest (axis, pattern, ...)."""

    name: str
    variant: str  # a key of gmx.tools.experiments.variants.VARIANTS
    # elementwise: one index per output element; block: one index per row of
    # >= 64 contiguous elements (compared with memcpy); broadcast: indices
    # broadcast against the data (peak memory is measured).
    kind: str
    shapes: dict[str, tuple[tuple[int, ...], tuple[int, ...]]]
    options: dict
    linearised: bool = True  # the frontend program linearises the index

    def study(self, size: str) -> Study:
        shape, indices_shape = self.shapes[size]
        return make_study(self.variant, shape=shape, indices_shape=indices_shape, **self.options)

    def case(self, size: str) -> Case:
        return make_case(self.study(size))


BENCHMARKS = (
    Benchmark("gather_elements", "torch-gather", "elementwise",
              {"full": ((256, 256, 64), (256, 256, 64)), "quick": ((8, 16, 4), (8, 12, 4))}, {"axis": 1}),
    Benchmark("take_along_dim_bcast", "take-along-axis", "broadcast",
              {"full": ((256, 256, 64), (256, 256, 1)), "quick": ((8, 16, 4), (8, 12, 1))}, {"axis": 1}),
    Benchmark("index_select", "index-select", "block",
              {"full": ((50000, 256), (16384,)), "quick": ((100, 16), (64,))}, {"axis": 0}),
    Benchmark("onnx_gather_axis1", "index-select", "block",
              {"full": ((64, 4096, 64), (1024,)), "quick": ((4, 32, 8), (16,))}, {"axis": 1}),
    # an embedding as a lookup `w[idx]`: one plain row gather (torch-mlir
    # wraps negative indices first; F.embedding, the `embedding` variant, does not)
    Benchmark("embedding", "advanced-index", "block",
              {"full": ((50000, 128), (256, 128)), "quick": ((100, 8), (4, 6))}, {"pattern": ("i",)},
              linearised=False),
    Benchmark("advanced", "advanced-index", "elementwise",
              {"full": ((64, 4096, 64), (1024,)), "quick": ((8, 32, 8), (16,))}, {"pattern": ("i", ":", "j")}),
)


def benchmark_names() -> list[str]:
    return [b.name for b in BENCHMARKS]


def select(names: list[str] | None) -> list[Benchmark]:
    """The benchmarks named (all when None), in table order."""
    if not names:
        return list(BENCHMARKS)
    unknown = sorted(set(names) - set(benchmark_names()))
    if unknown:
        raise ValueError(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(benchmark_names())}")
    return [b for b in BENCHMARKS if b.name in names]


def thread_counts(threads: int) -> list[int]:
    """1, 2, 4, ... up to `threads`, and `threads`: the columns of the
    scaling table."""
    counts = [1]
    while counts[-1] * 2 < threads:
        counts.append(counts[-1] * 2)
    return counts + ([threads] if threads > 1 else [])


def scaling_contenders(threads: int) -> list:
    """gmx (checked) on each of `thread_counts(threads)`, and torch at its
    default thread count."""
    import torch

    default_threads = torch.get_num_threads()
    return [Fused(f"gmx {n}t", checked=True, threads=n) for n in thread_counts(threads)] + [
        Torch("torch", threads=default_threads)
    ]


def default_contenders(threads: int | None = None) -> list:
    """The contenders of the table, in column order; gmx's calls run on
    `threads` threads (None: the usable cores)."""
    import torch

    default_threads = torch.get_num_threads()  # before any contender changes it
    return [
        Fused("gmx", checked=True, threads=threads),
        Fused("gmx unchecked", checked=False, threads=threads),
        Unfused("unfused", checked=True, threads=threads),
        Numpy("numpy"),
        Torch("torch 1t", threads=1),
        Torch("torch", threads=default_threads),
        OnnxRuntime("ort 1t", threads=1),
        OnnxRuntime("ort", threads=usable_cores()),  # its own default counts physical cores
        Memcpy("memcpy", threads=threads or usable_cores()),
        *iree_contenders(),  # with the [iree] extra: gmx iree cpu (and, with a GPU, gmx iree cuda, torch cuda)
    ]
