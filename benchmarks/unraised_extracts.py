"""The cost of checking unraised element reads (--gmx-check-linalg-extracts):
medians of interleaved calls, unchecked, checked without the stage
("before": the lowering as it was) and checked with it ("after"), and
their ratios to unchecked. Programs: an embedding_bag's sum as torch-mlir
writes it (each bag reads every index's row), the worst case (a table read
at a position every loop gives: the scan reads every index once more), and
with `--corpus` the real-program corpus's linalg-on-tensors programs
(`tools/experiments/models.py`) after --gmx-canonicalize (those with no
unraised read compile the same either way), with `--unraised` as exported
(every gather unraised, as gmx.runtime.compile gets them from torch-mlir).
Every result is compared across the three first.

    .venv/bin/python -m gmx.benchmarks.unraised_extracts [--corpus] [--unraised] [--repeat R] [NAME...]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import gmx.runtime
from gmx.passes.lowering import gmx_lower_to_llvm
from gmx.tools.experiments.timing import measure

STAGE = "gmx-check-linalg-extracts"


def _compiled(text: str, checked: bool, with_stage: bool):
    """The program compiled with or without the stage (a distinct text: the runtime caches by text)."""
    levels = gmx_lower_to_llvm.LEVELS
    after = levels["linalg"]
    if not with_stage:
        levels["linalg"] = tuple(s for s in after if s.name != STAGE)
        text += "\n// without the stage\n"
    try:
        return gmx.runtime.compile(text, checked=checked)
    finally:
        levels["linalg"] = after


def bag(V: int, D: int, N: int, B: int) -> str:
    """embedding_bag(mode="sum") as torch-mlir writes it: V rows of D, N indices, B bags."""
    return f"""#index = affine_map<(d0, d1, d2) -> (d1)>
#offset = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @main(%weight: tensor<{V}x{D}xf32>, %indices: tensor<{N}xi64>, %offsets: tensor<{B}xi64>) -> tensor<{B}x{D}xf32> {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : i64
  %cB = arith.constant {B} : i64
  %cN = arith.constant {N} : i64
  %e = tensor.empty() : tensor<{B}x{D}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<{B}x{D}xf32>) -> tensor<{B}x{D}xf32>
  %r = linalg.generic {{indexing_maps = [#index, #offset, #out], iterator_types = ["parallel", "reduction", "parallel"]}}
      ins(%indices, %offsets : tensor<{N}xi64>, tensor<{B}xi64>) outs(%init : tensor<{B}x{D}xf32>) {{
  ^bb0(%i: i64, %start: i64, %acc: f32):
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %next = arith.addi %b64, %c1 : i64
    %nexti = arith.index_cast %next : i64 to index
    %last = arith.cmpi eq, %next, %cB : i64
    %at = arith.select %last, %c0, %nexti : index
    %following = tensor.extract %offsets[%at] : tensor<{B}xi64>
    %end = arith.select %last, %cN, %following : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %from = arith.cmpi sle, %start, %j64 : i64
    %to = arith.cmpi slt, %j64, %end : i64
    %mine = arith.andi %from, %to : i1
    %p = arith.index_cast %i : i64 to index
    %k = linalg.index 2 : index
    %w = tensor.extract %weight[%p, %k] : tensor<{V}x{D}xf32>
    %s = arith.addf %w, %acc : f32
    %v = arith.select %mine, %s, %acc : f32
    linalg.yield %v : f32
  }} -> tensor<{B}x{D}xf32>
  return %r : tensor<{B}x{D}xf32>
}}
"""

def dense(V: int, M: int, N: int, R: int) -> str:
    """out[i, j] = sum over r of table[idx[i, j, r]]: the position depends on every loop (the scan's worst case)."""
    return f"""#all = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @main(%table: tensor<{V}xf32>, %idx: tensor<{M}x{N}x{R}xi64>) -> tensor<{M}x{N}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %r = linalg.generic {{indexing_maps = [#all, #out], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%idx : tensor<{M}x{N}x{R}xi64>) outs(%init : tensor<{M}x{N}xf32>) {{
  ^bb0(%i: i64, %acc: f32):
    %p = arith.index_cast %i : i64 to index
    %w = tensor.extract %table[%p] : tensor<{V}xf32>
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}
"""

def synthetic() -> dict:
    rng = np.random.default_rng(0)
    return {
        "embedding_bag 10000x64, 512 idx, 64 bags": (
            bag(10000, 64, 512, 64), (rng.random((10000, 64), dtype=np.float32), rng.integers(0, 10000, 512),
                                       np.arange(0, 512, 8))),
        "worst case: 1e5 table, 256x256x8 idx": (
            dense(100000, 256, 256, 8), (rng.random(100000, dtype=np.float32), rng.integers(0, 100000, (256, 256, 8)))),
    }


def corpus(raised: bool, names: list[str]) -> dict:
    """The corpus's linalg-on-tensors programs (`names`, or those in the
    suite), after --gmx-canonicalize if `raised`, else as exported (every
    gather a tensor.extract in a generic, as gmx.runtime.compile gets it
    from torch-mlir)."""
    from gmx.tools.experiments import corpus_base, models
    from gmx.tools.experiments.pipelines import run_pipeline

    found = {}
    for name, program in models.MODELS.items():
        if program.form != "linalg" or not (name in names or not names and program.in_suite):
            continue
        built = program.build()
        text = corpus_base.export(built, form=program.form)
        if raised:
            text = run_pipeline(text, ["gmx-canonicalize"]).text
        found[f"{name}{'' if raised else ' (unraised)'}"] = (text, tuple(built.inputs))
    return found


def _same(outputs: list) -> bool:
    first = [np.asarray(o) for o in (outputs[0] if isinstance(outputs[0], tuple) else (outputs[0],))]
    for other in outputs[1:]:
        other = [np.asarray(o) for o in (other if isinstance(other, tuple) else (other,))]
        if not all(np.array_equal(a, b, equal_nan=True) for a, b in zip(first, other)):
            return False
    return True


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="store_true", help="also the real-program corpus's linalg programs, raised")
    parser.add_argument("--unraised", action="store_true", help="also those programs as exported (nothing raised)")
    parser.add_argument("names", nargs="*", help="corpus programs (default: those in the suite)")
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args(argv)
    cases = synthetic()
    if args.corpus:
        cases.update(corpus(True, args.names))
    if args.unraised:
        cases.update(corpus(False, args.names))
    print(f"{'program':42} {'unchecked ms':>12} {'before ms':>10} {'after ms':>10} {'before':>7} {'after':>7}")
    for name, (text, arrays) in cases.items():
        calls = {"unchecked": _compiled(text, False, True), "before": _compiled(text, True, False),
                 "after": _compiled(text, True, True)}
        if not _same([c(*arrays) for c in calls.values()]):
            print(f"{name:42} results differ")
            continue
        m = {k: statistics.median(v) * 1e3 for k, v in measure(calls, arrays, args.repeat).items()}
        print(f"{name:42} {m['unchecked']:12.3f} {m['before']:10.3f} {m['after']:10.3f} "
              f"{m['before'] / m['unchecked']:6.2f}x {m['after'] / m['unchecked']:6.2f}x", flush=True)


if __name__ == "__main__":
    main()
