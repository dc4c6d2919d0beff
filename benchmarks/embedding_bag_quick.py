"""A quick measurement of embedding_bag (mode sum) as torch-mlir exports it
to linalg-on-tensors, with and without raise-reduction-gather, against torch
eager (not a timed test). TorchToLinalg's loop nest runs over (bag, index,
column) and reads `weight[indices[j], k]` inside it; raised, the rows are
gathered once by a gmx op (checked or not) and the nest reads them in
order; unraised, the read stays fused in the nest (no check). Every output
is checked against torch's first; each row shows medians of interleaved
calls and the ratios.

    .venv/bin/python -m gmx.benchmarks.embedding_bag_quick [--threads N] [--repeat R]
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

from gmx.runtime import compile
from gmx.tools.experiments.frontends import torch_export
from gmx.tools.experiments.pipelines import run_pipeline
from gmx.tools.experiments.timing import measure

from .quick_cli import run_from_command_line


@dataclass(frozen=True)
class Case:
    rows: int  # the table's
    dim: int
    indices: int
    bags: int

    @property
    def name(self) -> str:
        return f"table {self.rows}x{self.dim}, {self.indices} indices in {self.bags} bags"


CASES = (Case(100000, 64, 2048, 128), Case(1000, 128, 512, 16), Case(50000, 32, 8192, 1024))


def arguments(case: Case, rng) -> tuple:
    weight = rng.standard_normal((case.rows, case.dim)).astype(np.float32)
    indices = rng.integers(0, case.rows, case.indices)
    offsets = np.sort(rng.integers(0, case.indices, case.bags))
    offsets[0] = 0
    return weight, indices, offsets


def run(threads: int | None, repeat: int) -> None:
    import torch

    if threads:
        torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    print(f"threads: gmx {threads or 'default'}, torch {torch.get_num_threads()}; medians of {repeat} calls")
    for case in CASES:
        args = arguments(case, rng)
        tensors = [torch.from_numpy(a) for a in args]

        def eager(w, i, o):
            return torch.nn.functional.embedding_bag(i, w, o, mode="sum")

        text = torch_export(eager, tensors, output_type="linalg-on-tensors")
        raised = run_pipeline(text, ["gmx-canonicalize"]).text
        programs = {"unraised": compile(text, threads=threads), "raised": compile(raised, threads=threads),
                    "raised unchecked": compile(raised, checked=False, threads=threads)}
        want = eager(*tensors).numpy()
        for program in programs.values():
            np.testing.assert_allclose(program(*args), want, rtol=1e-5, atol=1e-5)
        calls = {name: (lambda p=p: p(*args)) for name, p in programs.items()}
        calls["torch"] = lambda: eager(*tensors)
        times = {name: statistics.median(s) * 1e3 for name, s in measure(calls, (), repeat).items()}
        print(f"{case.name}\n  unraised {times['unraised']:.2f} ms, raised {times['raised']:.2f} ms "
              f"(unchecked {times['raised unchecked']:.2f}), torch {times['torch']:.3f} ms; "
              f"unraised/raised {times['unraised'] / times['raised']:.2f}, "
              f"unraised/raised unchecked {times['unraised'] / times['raised unchecked']:.2f}, "
              f"raised/torch {times['raised'] / times['torch']:.0f}", flush=True)


def main() -> None:
    run_from_command_line(__doc__, run)


if __name__ == "__main__":
    main()
