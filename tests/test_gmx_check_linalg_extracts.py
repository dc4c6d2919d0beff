"""--gmx-check-linalg-extracts: in checked mode, an element a linalg.generic's
body reads at a position the data gives (an unraised gather, such as
torch-mlir's embedding_bag, whose reduction over the bag raise-linalg-gather
does not raise) is read only inside its tensor; else gmx's located
IndexError (the extract, the dim, the value, the dim's size). Before, such
a read went out of bounds silently: garbage, NaN, or SIGSEGV. Bad cases
run in a worker process, so that a crash shows as a signal.

The fuzz class draws linalg programs of random shapes (static and dynamic
dims, positions from the data, from loop indices and constants, a
reduction loop always, so that no raising applies) and hostile index
values; each gives exactly the reference's result, or an IndexError
naming the first bad position (row-major), never a wrong value or a
signal. GMX_FULL_CORPUS=1 draws more batches.
"""

from __future__ import annotations

import os
import re
import signal

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from fuzz_worker import run_in_worker
from gmx.benchmarks.unraised_extracts import bag

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")
BATCH = 25

# embedding_bag's sum, as torch-mlir's linalg-on-tensors writes it: every
# bag reads every index's row (a reduction over j), keeping its own.
BAG = bag(V=100, D=8, N=6, B=3)
BAD_ROWS = [100, 101, -1, 100000, 1 << 40, -(1 << 63)]


def _bag_reference(weight, indices, offsets):
    ends = [*offsets[1:], len(indices)]
    return np.stack([weight[indices[s:e]].sum(0) for s, e in zip(offsets, ends)]).astype(np.float32)


def _worker(cases, tmp_path):
    results, done = run_in_worker(cases, tmp_path)
    name = signal.Signals(-done.returncode).name if done.returncode < 0 else done.returncode
    assert done.returncode == 0, f"the worker died ({name}):\n{done.stderr[-2000:]}"
    return results


def test_bag_in_range_and_out(tmp_path):
    weight = np.random.default_rng(0).random((100, 8), dtype=np.float32)
    offsets = np.array([0, 2, 4], np.int64)
    good = np.array([1, 99, 0, 5, 6, 7], np.int64)
    cases = [{"text": BAG, "arrays": (weight, good, offsets)}]
    for bad in BAD_ROWS:
        cases.append({"text": BAG, "arrays": (weight, np.array([1, 2, bad, 4, 5, 6], np.int64), offsets)})
    results = _worker(cases, tmp_path)
    assert results[0][0] == "ok"
    np.testing.assert_allclose(results[0][1], _bag_reference(weight, good, offsets), rtol=1e-6)
    for bad, (kind, message) in zip(BAD_ROWS, results[1:]):
        assert (kind, message) == ("IndexError", f"-:30:10: index {bad} is out of bounds for axis 0 with size 100")


def test_bag_unchecked_has_no_check():
    """Checked, the unraised reads are error sites; checked=false: no
    scan, no report (the read is the program's own)."""
    from gmx.runtime import compile

    assert compile(BAG).sites == ["-:21:18", "-:30:10"]  # the next offset's read, the row's
    assert compile(BAG, checked=False).sites == []


DONATED = """#one = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<4x3xf32>, %table: tensor<5x3xf32>, %at: tensor<4xi64>) -> tensor<4x3xf32> {
  %r = linalg.generic {indexing_maps = [#row, #one], iterator_types = ["parallel", "parallel"]}
      ins(%at : tensor<4xi64>) outs(%x : tensor<4x3xf32>) {
  ^bb0(%a: i64, %out: f32):
    %p = arith.index_cast %a : i64 to index
    %k = linalg.index 1 : index
    %v = tensor.extract %table[%p, %k] : tensor<5x3xf32>
    %s = arith.addf %v, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
"""


@pytest.mark.parametrize("donate", [(), (0,)])
def test_donated_output_unchanged_on_error(donate):
    """x[i] += table[at[i]] into a donated x: on a bad row, IndexError and x as it was."""
    from gmx.runtime import compile

    program = compile(DONATED, donate=donate)
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    x = np.ones((4, 3), np.float32)
    np.testing.assert_array_equal(program(x.copy(), table, np.array([4, 0, 1, 2], np.int64)), table[[4, 0, 1, 2]] + 1)
    before = x.copy()
    with pytest.raises(IndexError, match=r"^-:9:10: index 5 is out of bounds for axis 0 with size 5$"):
        program(x, table, np.array([4, 0, 5, 2], np.int64))
    np.testing.assert_array_equal(x, before)


# A tosa.gather upstream's tosa-to-linalg already lowered (before gmx-run):
# an all-parallel gather, unraised since no --gmx-canonicalize ran.
UPSTREAM_GATHER = """#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @main(%arg0: tensor<1x5x2xf32>, %arg1: tensor<1x3xi32>) -> tensor<1x3x2xf32> {
  %0 = tensor.empty() : tensor<1x3x2xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<1x3xi32>) outs(%0 : tensor<1x3x2xf32>) {
  ^bb0(%in: i32, %out: f32):
    %2 = linalg.index 0 : index
    %3 = arith.index_cast %in : i32 to index
    %4 = linalg.index 2 : index
    %extracted = tensor.extract %arg0[%2, %3, %4] : tensor<1x5x2xf32>
    linalg.yield %extracted : f32
  } -> tensor<1x3x2xf32>
  return %1 : tensor<1x3x2xf32>
}
"""


def test_gather_upstream_lowered(tmp_path):
    values = np.arange(10, dtype=np.float32).reshape(1, 5, 2)
    cases = [{"text": UPSTREAM_GATHER, "arrays": (values, np.array([[0, 4, 1]], np.int32))}]
    cases += [{"text": UPSTREAM_GATHER, "arrays": (values, np.array([[0, bad, 1]], np.int32))}
              for bad in (5, -1, (1 << 31) - 1)]
    results = _worker(cases, tmp_path)
    assert results[0][0] == "ok"
    np.testing.assert_array_equal(results[0][1], values[:, [0, 4, 1]])
    for bad, result in zip((5, -1, (1 << 31) - 1), results[1:]):
        assert result == ("IndexError", f"-:10:18: index {bad} is out of bounds for axis 1 with size 5")


# -- embedding_bag as torch-mlir exports it ------------------------------------

# What torch-mlir (20261001) exports to linalg-on-tensors: mode "sum"
# without include_last_offset, with or without per_sample_weights (which its
# lowering ignores: the weighted sum is the unweighted one, a torch-mlir
# bug); "mean", "max" and include_last_offset fail to legalize there.
BAG_VARIANTS = [("sum", False, False), ("sum", True, False)]


def _bag_export(mode: str, weighted: bool, last: bool):
    torch = pytest.importorskip("torch")
    from gmx.tools.experiments.frontends import torch_export

    def bag(weight, indices, offsets, *weights):
        return torch.nn.functional.embedding_bag(indices, weight, offsets, mode=mode, include_last_offset=last,
                                                 per_sample_weights=weights[0] if weights else None)

    rng = np.random.default_rng(1)
    weight = rng.random((100, 8), dtype=np.float32)
    indices = np.array([1, 2, 3, 4, 5, 6], np.int64)
    offsets = np.array([0, 2, 4, 6] if last else [0, 2, 4], np.int64)
    extra = (rng.random(6, dtype=np.float32),) if weighted else ()
    text = torch_export(bag, [weight, indices, offsets, *extra], output_type="linalg-on-tensors")
    return bag, text, weight, indices, offsets, extra


@pytest.mark.parametrize("mode,weighted,last", BAG_VARIANTS)
def test_exported_embedding_bag(tmp_path, mode, weighted, last):
    """Indices 101, -1 and 100000 into a 100-row table: IndexError each
    time, naming the row and the table's size (before: garbage, or SIGSEGV)."""
    import torch

    bag, text, weight, indices, offsets, extra = _bag_export(mode, weighted, last)
    cases = [{"text": text, "arrays": (weight, indices, offsets, *extra)}]
    for bad in (101, -1, 100000):
        hostile = indices.copy()
        hostile[2] = bad
        cases.append({"text": text, "arrays": (weight, hostile, offsets, *extra)})
    results = _worker(cases, tmp_path)
    assert results[0][0] == "ok", results[0]
    if not weighted:  # torch-mlir's lowering drops the weights (see BAG_VARIANTS)
        want = bag(*(torch.from_numpy(a) for a in (weight, indices, offsets, *extra))).numpy()
        np.testing.assert_allclose(results[0][1], want, rtol=1e-5)
    for bad, (kind, message) in zip((101, -1, 100000), results[1:]):
        assert kind == "IndexError" and message.endswith(f"index {bad} is out of bounds for axis 0 with size 100"), (
            kind, message)


# -- fuzzing: random linalg programs reading at data positions -----------------

HOSTILE = [-1, 1, 7, 100000, 1 << 31, -(1 << 31), (1 << 31) - 1, 1 << 40, -(1 << 63), (1 << 63) - 1]
INDEX_TYPES = {"i32": np.int32, "i64": np.int64}


@st.composite
def extract_cases(draw):
    """(table shape, dynamic table dims, output loops, reduction loop size,
    per table dim its position's kind, index type, hostile share, seed)."""
    k = draw(st.integers(1, 3))
    table = tuple(draw(st.integers(1, 5)) for _ in range(k))
    dynamic = tuple(sorted(draw(st.sets(st.integers(0, k - 1)))))
    loops = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 2))))
    kinds = [draw(st.sampled_from(["data", "data", "loop", "constant"])) for _ in range(k)]
    if "data" not in kinds:
        kinds[draw(st.integers(0, k - 1))] = "data"
    return (table, dynamic, loops, draw(st.integers(1, 4)), tuple(kinds), draw(st.sampled_from(sorted(INDEX_TYPES))),
            draw(st.sampled_from([0.0, 0.2, 1.0])), draw(st.integers(0, 2**32 - 1)))


def extract_program(table, dynamic, loops, reduction, kinds, index_type) -> str:
    """out[o...] = sum over r of table[p_0, ..., p_k-1]: p_d the data's
    index_d[o..., r], loop o_(d mod m) modulo the dim, or 0."""
    m = len(loops)
    dims = ", ".join(f"d{n}" for n in range(m + 1))
    outs = ", ".join(f"d{n}" for n in range(m))
    shape = "x".join(["?" if d in dynamic else str(n) for d, n in enumerate(table)])
    iteration = "x".join(str(n) for n in (*loops, reduction))
    result = "x".join(str(n) for n in loops)
    data = [d for d, kind in enumerate(kinds) if kind == "data"]
    iterators = ", ".join(['"parallel"'] * m + ['"reduction"'])
    arguments = ", ".join([f"%table: tensor<{shape}xi32>",
                           *(f"%i{d}: tensor<{iteration}x{index_type}>" for d in data)])
    lines = [f"#all = affine_map<({dims}) -> ({dims})>", f"#out = affine_map<({dims}) -> ({outs})>",
             f"func.func @main({arguments}) -> tensor<{result}xi32> {{",
             "  %c0 = arith.constant 0 : index", "  %zero = arith.constant 0 : i32",
             f"  %e = tensor.empty() : tensor<{result}xi32>",
             f"  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<{result}xi32>) -> tensor<{result}xi32>",
             f"  %r = linalg.generic {{indexing_maps = [{', '.join(['#all'] * len(data) + ['#out'])}], "
             f"iterator_types = [{iterators}]}}"
             + (f" ins({', '.join(f'%i{d}' for d in data)} : {', '.join(f'tensor<{iteration}x{index_type}>' for _ in data)})"
                if data else "")
             + f" outs(%init : tensor<{result}xi32>) {{",
             f"  ^bb0({', '.join([*(f'%v{d}: {index_type}' for d in data), '%acc: i32'])}):"]
    positions = []
    for d, kind in enumerate(kinds):
        if kind == "data":
            lines.append(f"    %p{d} = arith.index_cast %v{d} : {index_type} to index")
        elif kind == "loop":
            lines += [f"    %l{d} = linalg.index {d % m} : index",
                      f"    %n{d} = arith.constant {table[d]} : index",
                      f"    %p{d} = arith.remui %l{d}, %n{d} : index"]
        else:
            lines.append(f"    %p{d} = arith.constant 0 : index")
        positions.append(f"%p{d}")
    lines += [f"    %x = tensor.extract %table[{', '.join(positions)}] : tensor<{shape}xi32>",
              "    %s = arith.addi %x, %acc : i32", "    linalg.yield %s : i32",
              f"  }} -> tensor<{result}xi32>", f"  return %r : tensor<{result}xi32>", "}"]
    return "\n".join(lines) + "\n"


def materialise_extract(case) -> dict:
    table_shape, dynamic, loops, reduction, kinds, index_type, hostile, seed = case
    rng = np.random.default_rng(seed)
    dtype = INDEX_TYPES[index_type]
    table = rng.integers(-1000, 1000, size=table_shape, dtype=np.int32)
    iteration = (*loops, reduction)
    indices = {}
    for d, kind in enumerate(kinds):
        if kind != "data":
            continue
        values = rng.integers(0, table_shape[d], size=iteration)
        info = np.iinfo(dtype)
        salt = np.array([v if v not in (1, 7) else table_shape[d] + v - 1 for v in HOSTILE
                         if info.min <= v <= info.max], np.int64)
        bad = rng.random(iteration) < hostile
        indices[d] = np.where(bad, rng.choice(salt, size=iteration), values).astype(dtype)
    text = extract_program(table_shape, dynamic, loops, reduction, kinds, index_type)
    return {"text": text, "arrays": (table, *indices.values()), "case": case, "indices": indices}


def extract_reference(case: dict):
    """("ok", out) or ("IndexError", message of the first bad position, row-major)."""
    table_shape, _, loops, reduction, kinds, *_ = case["case"]
    out = np.zeros(loops, np.int32)
    for at in np.ndindex(*loops, reduction):
        position = []
        for d, kind in enumerate(kinds):
            if kind == "data":
                p = int(case["indices"][d][at])
                if not 0 <= p < table_shape[d]:
                    return "IndexError", f"index {p} is out of bounds for axis {d} with size {table_shape[d]}"
            else:
                p = at[d % len(loops)] % table_shape[d] if kind == "loop" else 0
            position.append(p)
        out[at[:-1]] += case["arrays"][0][tuple(position)]
    return "ok", out


def extract_mismatch(case: dict, result: tuple) -> str | None:
    kind, want = extract_reference(case)
    if kind == "IndexError":
        ok = result[0] == "IndexError" and re.search(rf": {want}( \(\d+ indices out of bounds\))?$", result[1])
        return None if ok else f"expected IndexError ({want}), got {result[0]}: {str(result[1])[:300]}"
    if result[0] != "ok":
        return f"expected a result, got {result[0]}: {result[1]}"
    return None if np.array_equal(result[1], want) else f"wrong result {result[1]!r}, expected {want!r}"


@settings(derandomize=True, max_examples=6 if FULL else 2, deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate])
@given(st.lists(extract_cases(), min_size=BATCH, max_size=BATCH))
def test_random_linalg_extracts_with_hostile_indices(tmp_path_factory, batch):
    cases = [materialise_extract(case) for case in batch]
    results, done = run_in_worker(cases, tmp_path_factory.mktemp("extracts"))
    if done.returncode != 0:
        crashed = [line for line in done.stderr.splitlines() if line.startswith("case ")][-1:]
        number = int(crashed[0].split()[1]) if crashed else 0
        name = signal.Signals(-done.returncode).name if done.returncode < 0 else done.returncode
        raise AssertionError(f"the worker died ({name}) on case {number}:\n{cases[number]['text']}"
                             f"{cases[number]['arrays']!r}\n{done.stderr[-2000:]}")
    problems = [(case, why) for case, result in zip(cases, results) if (why := extract_mismatch(case, result))]
    assert not problems, "\n\n".join(f"{why}\n{case['text']}{case['arrays']!r}" for case, why in problems[:3])
