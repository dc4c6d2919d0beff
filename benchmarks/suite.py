"""What gmx-bench runs: the benchmarked gathers, each one of a variant's
`benchmarks` in the one registry (`gmx.tools.experiments.variants`), so
that a new benchmark is one edit there; and the contenders of its table
(`default_contenders`).

A `Benchmark` is a variant with one of its `BenchmarkShapes` ("full": >= 4M
outputs, "quick": a smoke test); `case(size)` is the Case every contender
runs: the study's inputs, the reference's result and its frontend program,
exported at static shapes (shapes are baked into the program). What
torch-mlir emits, e.g. for `torch.gather(x, 1, idx)`:

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
from gmx.tools.experiments.contenders import Case, Fused, Jax, Memcpy, Numpy, OnnxRuntime, Torch, Unfused, make_case
from gmx.tools.experiments.iree_contenders import Iree, iree_contenders
from gmx.tools.experiments.variants import REGISTRY, BenchmarkKind, BenchmarkShapes, Study, make_study

@dataclass(frozen=True)
class Benchmark:
    """Variant `variant` at one of its BenchmarkShapes."""

    variant: str  # a key of REGISTRY
    shapes: BenchmarkShapes

    @property
    def name(self) -> str:
        return self.shapes.name

    @property
    def kind(self) -> BenchmarkKind:
        return self.shapes.kind

    @property
    def linearised(self) -> bool:
        return self.shapes.linearised

    def study(self, size: str) -> Study:
        shape, indices_shape = {"full": self.shapes.full, "quick": self.shapes.quick}[size]
        return make_study(self.variant, shape=shape, indices_shape=indices_shape, **self.shapes.options)

    def case(self, size: str) -> Case:
        return make_case(self.study(size))


# Every entry's benchmarks, gathers and scatters (not only `VARIANTS`, gmx-study --all's sweep).
BENCHMARKS = tuple(Benchmark(name, shapes) for name, variant in REGISTRY.items() for shapes in variant.benchmarks)


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


def default_contenders(threads: int | None = None, backend: str = "engine", device: str | None = None) -> list:
    """The contenders of the table, in column order; gmx's calls run on
    `threads` threads (None: the usable cores), or, with `backend` "iree",
    gmx and gmx unchecked on IREE's `device` (None: its default), and no
    other IREE contender (they would repeat them) nor gmx donated (the
    engine's in-place scatter)."""
    import torch

    default_threads = torch.get_num_threads()  # before any contender changes it
    if backend == "iree":
        device = device or Iree.device  # IREE's default device
        gmx = [Iree("gmx", device, checked=True), Iree("gmx unchecked", device, checked=False)]
    else:
        gmx = [Fused("gmx", checked=True, threads=threads), Fused("gmx unchecked", checked=False, threads=threads),
               # a scatter's in-place form (its data donated), against torch in-place; absent for the gathers
               Fused("gmx donated", checked=True, threads=threads, in_place=True)]
    return [
        *gmx,
        Unfused("unfused", checked=True, threads=threads),
        Numpy("numpy"),
        Torch("torch 1t", threads=1),
        Torch("torch", threads=default_threads),
        Torch("torch in-place 1t", threads=1, in_place=True),  # x.scatter_, x.index_add_, ... (scatters)
        Torch("torch in-place", threads=default_threads, in_place=True),
        OnnxRuntime("ort 1t", threads=1),
        OnnxRuntime("ort", threads=usable_cores()),  # its own default counts physical cores
        Jax("jax"),  # the scatters' x.at[...] under jax.jit, XLA's default threads
        Memcpy("memcpy", threads=threads or usable_cores()),
        # with the [iree] extra: gmx iree cpu (and, with a GPU, gmx iree cuda, torch cuda)
        *(iree_contenders() if backend == "engine" else []),
    ]
