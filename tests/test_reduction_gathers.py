"""raise-reduction-gather (`--gmx-canonicalize`): a gather read inside a loop
nest with reduction loops becomes a gmx op feeding the nest; embedding_bag
against PyTorch eager.

- The decisions without IR: which loop dims the gathered tensor has, the
  coordinates over them.
- torch-mlir's `embedding_bag` as it exports it: linalg-on-tensors, mode sum
  without `include_last_offset` only (TorchToLinalg refuses mean, max and
  `include_last_offset`; TOSA and StableHLO have no lowering of it at all;
  with `per_sample_weights` the export silently drops the weights): raised
  into one gmx op, no read of the weight left in the nest, bit-exact against
  eager, static and dynamic, and an index past the table an IndexError.
- The loop nests TorchToLinalg's sum lowering extends to every mode
  (sum, mean, max; with and without `per_sample_weights` and
  `include_last_offset`), built here in its form: raised, against eager.
- Gathers fused into a `linalg.reduce` and into a reduction generic (two
  reads, of a source read transposed): raised, against numpy.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

import gmx.runtime
from gmx.dialect import OP_NAME
from gmx.passes.raising.gather_spec import Iota
from gmx.passes.raising.loop_gathers import IndexRead
from gmx.passes.raising.reduction_gathers import onto, read_dims
from gmx.tools.experiments.frontends import FrontendError, torch_export
from gmx.tools.experiments.pipelines import run_pipeline

# --- decisions, without IR -----------------------------------------------------------------------


def test_read_dims_are_the_loop_dims_the_coordinates_use():
    # embedding_bag: weight[indices[j], k] over (bag, j, k)
    assert read_dims([IndexRead(None, (("loop", 1),)), Iota(2)]) == [1, 2]
    # a 2-D index tensor read at (b, j), the column k: all three
    assert read_dims([IndexRead(None, (("loop", 0), ("loop", 1))), Iota(2)]) == [0, 1, 2]
    # a constant position of a tuple adds no dim
    assert read_dims([IndexRead(None, (("loop", 2), ("at", 1)))]) == [2]


def test_onto_renumbers_the_coordinates():
    read = IndexRead(None, (("loop", 1), ("at", 0)))
    moved = onto([read, Iota(2)], [1, 2])
    assert moved[0].dims == (("loop", 0), ("at", 0)) and moved[1] == Iota(1)


# --- torch-mlir's export --------------------------------------------------------------------------

WEIGHT = torch.randn(10, 4, generator=torch.Generator().manual_seed(0))
INDICES = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
OFFSETS = torch.tensor([0, 3, 3, 5])  # bag 1 empty


def embedding_bag(mode: str = "sum", include_last_offset: bool = False, weights: bool = False):
    def forward(w, i, o, *p):
        return torch.nn.functional.embedding_bag(i, w, o, mode=mode, include_last_offset=include_last_offset,
                                                 per_sample_weights=p[0] if p else None)
    return forward


@functools.lru_cache(maxsize=None)
def export(output_type: str = "linalg-on-tensors", mode: str = "sum", include_last_offset: bool = False,
           weights: bool = False) -> str:
    offsets = torch.cat([OFFSETS, torch.tensor([8])]) if include_last_offset else OFFSETS
    inputs = (WEIGHT, INDICES, offsets) + ((torch.rand(8),) if weights else ())
    return torch_export(embedding_bag(mode, include_last_offset), inputs, output_type=output_type)


def assert_raised(counts, what: str) -> None:
    """One gmx op; the nest's one extract left is its read of the offsets."""
    assert counts[OP_NAME] == 1, f"{what}: {counts[OP_NAME]} gmx ops"
    assert counts["tensor.extract"] == 1, f"{what}: the weight is still read in the nest"


@pytest.mark.parametrize("indices, offsets", [
    (INDICES, OFFSETS),
    (torch.tensor([9, 9, 0, 0, 7, 7, 7, 1]), torch.tensor([0, 0, 1, 8])),  # repeats, an empty first and last bag
])
def test_exported_sum_raises_and_matches_eager(indices, offsets):
    fused = run_pipeline(export(), ["gmx-canonicalize"])
    assert_raised(fused.counts, "embedding_bag sum")
    result = gmx.runtime.run(fused.text, WEIGHT.numpy(), indices.numpy(), offsets.numpy())
    expected = embedding_bag()(WEIGHT, indices, offsets).numpy()
    np.testing.assert_array_equal(result, expected)


def test_exported_sum_index_out_of_range_is_index_error():
    """Undefined in the export (a bare tensor.extract), reported once raised."""
    fused = run_pipeline(export(), ["gmx-canonicalize"])
    assert_raised(fused.counts, "embedding_bag sum")
    bad = INDICES.numpy().copy()
    bad[4] = 10
    with pytest.raises(IndexError, match=r"index 10 is out of bounds for axis 0 with size 10"):
        gmx.runtime.run(fused.text, WEIGHT.numpy(), bad, OFFSETS.numpy())
    # eager refuses it too, with one of two errors of its own (which one varies from call to call)
    with pytest.raises(RuntimeError, match=r"index_size|not in the valid range"):
        embedding_bag()(WEIGHT, torch.from_numpy(bad), OFFSETS)


def test_exported_dynamic_sum_runs_at_two_sizes():
    text = torch_export(embedding_bag(), (WEIGHT, INDICES, OFFSETS), [None, {0: "n"}, {0: "b"}],
                        output_type="linalg-on-tensors")
    fused = run_pipeline(text, ["gmx-canonicalize"])
    assert_raised(fused.counts, "dynamic embedding_bag sum")
    run = gmx.runtime.compile(fused.text)
    for indices, offsets in ((INDICES, OFFSETS), (torch.randint(0, 10, (13,)), torch.tensor([0, 2, 9]))):
        expected = embedding_bag()(WEIGHT, indices, offsets).numpy()
        np.testing.assert_array_equal(run(WEIGHT.numpy(), indices.numpy(), offsets.numpy()), expected)


@pytest.mark.xfail(strict=True, reason="TorchToLinalg drops per_sample_weights: the export is the unweighted sum")
def test_exported_per_sample_weights():
    text = export(weights=True)
    fused = run_pipeline(text, ["gmx-canonicalize"])
    assert_raised(fused.counts, "embedding_bag sum with weights")
    weights = torch.rand(8, generator=torch.Generator().manual_seed(1))
    result = gmx.runtime.run(fused.text, WEIGHT.numpy(), INDICES.numpy(), OFFSETS.numpy(), weights.numpy())
    expected = torch.nn.functional.embedding_bag(INDICES, WEIGHT, OFFSETS, per_sample_weights=weights).numpy()
    np.testing.assert_allclose(result, expected, rtol=1e-6)


@pytest.mark.parametrize("output_type, mode, include_last_offset", [
    ("linalg-on-tensors", "mean", False),  # "Unimplemented: Mean and Max mode are not supported yet"
    ("linalg-on-tensors", "max", False),
    ("linalg-on-tensors", "sum", True),  # "Unimplemented: include last offset is not yet supported"
    ("tosa", "sum", False),  # no TorchToTosa pattern for aten.embedding_bag.padding_idx
    ("stablehlo", "sum", False),  # nor a TorchToStablehlo one
])
@pytest.mark.xfail(strict=True, raises=FrontendError, reason="torch-mlir 20261001 cannot lower embedding_bag here")
def test_forms_torch_mlir_does_not_export(output_type, mode, include_last_offset):
    export(output_type, mode, include_last_offset)


# --- every mode, in TorchToLinalg's form -----------------------------------------------------------


def loop_nest(mode: str, include_last_offset: bool, weights: bool, n: int = 8, bags: int = 4) -> str:
    """embedding_bag as TorchToLinalg lowers mode sum (one generic over
    (bag, index j, column k), `weight[indices[j], k]` added where
    offsets[bag] <= j < the next offset), extended as it would extend it: a
    per-sample weight multiplies the row; max reduces with maximumf from
    -inf; mean and max finish with a generic over (bag, k) dividing by the
    bag's size or putting 0 in an empty bag (eager's values)."""
    offsets = bags + 1 if include_last_offset else bags
    p_arg = f", %p: tensor<{n}xf32>" if weights else ""
    p_in, p_type, p_map, p_block = (", %p", f", tensor<{n}xf32>", ", affine_map<(d0, d1, d2) -> (d1)>",
                                    ", %pw: f32") if weights else ("", "", "", "")
    init = "0xFF800000" if mode == "max" else "0.000000e+00"
    combine = "arith.maximumf" if mode == "max" else "arith.addf"
    row = "%row = arith.mulf %e, %pw : f32" if weights else "%row = arith.addf %e, %zero : f32"

    def next_offset(indent: str) -> str:
        if include_last_offset:
            return f"{indent}%next = tensor.extract %o[%b1i] : tensor<{offsets}xi64>\n"
        return (f"{indent}%last = arith.cmpi eq, %b1, %cbags : i64\n"
                f"{indent}%at = arith.select %last, %c0, %b1i : index\n"
                f"{indent}%nx = tensor.extract %o[%at] : tensor<{offsets}xi64>\n"
                f"{indent}%next = arith.select %last, %cn, %nx : i64\n")

    bag_start = (f"  %ob = tensor.extract_slice %o[0] [{bags}] [1] : tensor<{offsets}xi64> to tensor<{bags}xi64>\n"
                 if include_last_offset else "")
    ob = "%ob" if include_last_offset else "%o"
    text = f"""func.func @main(%w: tensor<10x4xf32>, %i: tensor<{n}xi64>, %o: tensor<{offsets}xi64>{p_arg}) -> tensor<{bags}x4xf32> {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1 : i64
  %cbags = arith.constant {bags} : i64
  %cn = arith.constant {n} : i64
  %init = arith.constant {init} : f32
{bag_start}  %0 = tensor.empty() : tensor<{bags}x4xf32>
  %1 = linalg.fill ins(%init : f32) outs(%0 : tensor<{bags}x4xf32>) -> tensor<{bags}x4xf32>
  %2 = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>{p_map}, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}} ins(%i, {ob}{p_in} : tensor<{n}xi64>, tensor<{bags}xi64>{p_type}) outs(%1 : tensor<{bags}x4xf32>) {{
  ^bb0(%in: i64, %off: i64{p_block}, %out: f32):
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %one : i64
    %b1i = arith.index_cast %b1 : i64 to index
{next_offset("    ")}    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %ge = arith.cmpi sle, %off, %j64 : i64
    %lt = arith.cmpi slt, %j64, %next : i64
    %in_bag = arith.andi %ge, %lt : i1
    %r = arith.index_cast %in : i64 to index
    %k = linalg.index 2 : index
    %e = tensor.extract %w[%r, %k] : tensor<10x4xf32>
    {row}
    %s = {combine} %row, %out : f32
    %y = arith.select %in_bag, %s, %out : f32
    linalg.yield %y : f32
  }} -> tensor<{bags}x4xf32>
"""
    if mode == "sum":
        return text + f"  return %2 : tensor<{bags}x4xf32>\n}}\n"
    finish = ("%f = arith.sitofp %count : i64 to f32\n    %f1 = arith.maximumf %f, %fone : f32\n"
              "    %res = arith.divf %acc, %f1 : f32" if mode == "mean" else
              "%empty = arith.cmpi eq, %count, %czero : i64\n    %res = arith.select %empty, %zero, %acc : f32")
    return text + f"""  %3 = tensor.empty() : tensor<{bags}x4xf32>
  %4 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins({ob}, %2 : tensor<{bags}xi64>, tensor<{bags}x4xf32>) outs(%3 : tensor<{bags}x4xf32>) {{
  ^bb0(%off: i64, %acc: f32, %out: f32):
    %fone = arith.constant 1.000000e+00 : f32
    %czero = arith.constant 0 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %one : i64
    %b1i = arith.index_cast %b1 : i64 to index
{next_offset("    ")}    %count = arith.subi %next, %off : i64
    {finish}
    linalg.yield %res : f32
  }} -> tensor<{bags}x4xf32>
  return %4 : tensor<{bags}x4xf32>
}}
"""


# (mode, include_last_offset, per_sample_weights): eager takes weights in mode sum only
MODES = [("sum", False, False), ("sum", True, False), ("sum", False, True), ("sum", True, True),
         ("mean", False, False), ("mean", True, False), ("max", False, False), ("max", True, False)]


@pytest.mark.parametrize("mode, include_last_offset, weights", MODES)
def test_every_mode_raises_and_matches_eager(mode, include_last_offset, weights):
    fused = run_pipeline(loop_nest(mode, include_last_offset, weights), ["gmx-canonicalize"])
    assert fused.counts[OP_NAME] == 1, f"{fused.counts[OP_NAME]} gmx ops"
    # left: the nests' reads of the next offset (one per nest), not the weight
    assert fused.counts["tensor.extract"] == (1 if mode == "sum" else 2)
    offsets = torch.cat([OFFSETS, torch.tensor([8])]) if include_last_offset else OFFSETS
    weight_values = torch.rand(8, generator=torch.Generator().manual_seed(2)) if weights else None
    inputs = [WEIGHT, INDICES, offsets] + ([weight_values] if weights else [])
    result = gmx.runtime.run(fused.text, *[t.numpy() for t in inputs])
    expected = torch.nn.functional.embedding_bag(INDICES, WEIGHT, offsets, mode=mode,
                                                 include_last_offset=include_last_offset,
                                                 per_sample_weights=weight_values).numpy()
    np.testing.assert_allclose(result, expected, rtol=1e-6, atol=1e-7)
    bad = INDICES.numpy().copy()
    bad[-1] = 12
    with pytest.raises(IndexError, match=r"index 12 is out of bounds for axis 0 with size 10"):
        gmx.runtime.run(fused.text, *[t.numpy() for t in inputs[:1]], bad, *[t.numpy() for t in inputs[2:]])


@pytest.mark.parametrize("mode", ["mean", "max"])
def test_unraised_loop_nest_matches_eager(mode):
    """The reference itself: the nests as built compute eager's result
    without the pass (the raised ones are compared to PyTorch, not to these)."""
    text = loop_nest(mode, True, False)
    assert run_pipeline(text, []).counts[OP_NAME] == 0
    offsets = torch.cat([OFFSETS, torch.tensor([8])])
    result = gmx.runtime.run(text, WEIGHT.numpy(), INDICES.numpy(), offsets.numpy())
    expected = torch.nn.functional.embedding_bag(INDICES, WEIGHT, offsets, mode=mode, include_last_offset=True)
    np.testing.assert_allclose(result, expected.numpy(), rtol=1e-6, atol=1e-7)


# --- gathers fused into other reductions --------------------------------------------------------

FUSED = """
func.func @reduce_of_gather(%w: tensor<10x4xf32>, %i: tensor<8x4xi64>) -> tensor<4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%i : tensor<8x4xi64>) outs(%init : tensor<4xf32>) dimensions = [0]
    (%in: i64, %acc: f32) {
      %p = arith.index_cast %in : i64 to index
      %k = linalg.index 1 : index
      %e = tensor.extract %w[%p, %k] : tensor<10x4xf32>
      %s = arith.addf %e, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}
func.func @transposed_dot(%w: tensor<4x10xf32>, %a: tensor<6xi64>, %b: tensor<6xi64>) -> tensor<4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a, %b : tensor<6xi64>, tensor<6xi64>) outs(%init : tensor<4xf32>) {
  ^bb0(%ia: i64, %ib: i64, %out: f32):
    %p = arith.index_cast %ia : i64 to index
    %q = arith.index_cast %ib : i64 to index
    %k = linalg.index 1 : index
    %e = tensor.extract %w[%k, %p] : tensor<4x10xf32>
    %f = tensor.extract %w[%k, %q] : tensor<4x10xf32>
    %m = arith.mulf %e, %f : f32
    %s = arith.addf %m, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def test_gathers_fused_into_reductions_match_numpy():
    fused = run_pipeline(FUSED, ["gmx-canonicalize"])
    assert fused.counts[OP_NAME] == 3 and fused.counts["tensor.extract"] == 0
    assert fused.counts["linalg.reduce"] == 0
    rng = np.random.default_rng(3)
    w = rng.standard_normal((10, 4)).astype(np.float32)
    i = rng.integers(0, 10, (8, 4))
    result = gmx.runtime.run(fused.text, w, i, entry="reduce_of_gather")
    np.testing.assert_allclose(result, w[i, np.arange(4)].sum(0), rtol=1e-6)
    a, b = rng.integers(0, 10, 6), rng.integers(0, 10, 6)
    result = gmx.runtime.run(fused.text, w.T.copy(), a, b, entry="transposed_dot")
    np.testing.assert_allclose(result, (w[a] * w[b]).sum(0), rtol=1e-6)
    with pytest.raises(IndexError, match="index 10 is out of bounds"):
        gmx.runtime.run(fused.text, w.T.copy(), a, np.array([0, 1, 2, 3, 4, 10]), entry="transposed_dot")
