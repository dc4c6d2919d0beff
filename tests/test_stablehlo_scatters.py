"""raise-stablehlo-scatter's and raise-tensor-scatter's decisions, without IR
where they have none: `scatter_as_gather` and `plan_dims` on dimension
numbers, checked against an independent evaluation of StableHLO's scatter
(numpy, element by element as its spec defines it: an update whose
position is outside the operand is skipped) through
`gmx.reference.scatter_multiaxis` in mode "drop"; the update computations
read as reductions; `tensor.scatter` raised and evaluated against its
definition.
"""

from __future__ import annotations

import numpy as np
import pytest

import gmx.runtime

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.dialect.reductions import Reduction
from gmx.passes.patterns import NoMatch
from gmx.passes.raising.stablehlo_dims import ScatterDims, gmx_shapes, plan_dims, scatter_as_gather
from gmx.passes.raising.stablehlo_scatters import region_reduction
from gmx.passes.raising.tensor_scatters import tensor_scatter_dims
from gmx.reference import scatter_multiaxis
from gmx.tools.experiments.pipelines import run_pipeline
from stablehlo_oracle import index_vector, interpret_raised, scatters_lowered, vector_last


def stablehlo_scatter(operand: np.ndarray, indices: np.ndarray, updates: np.ndarray, dims: ScatterDims,
                      combine=None) -> np.ndarray:
    """StableHLO's scatter, update element by update element in row-major
    order (the one order gmx takes of those the spec allows), as its spec
    defines it (`combine(current, update)`; None: the update)."""
    result = operand.copy()
    ivd = dims.index_vector_dim
    if ivd == indices.ndim:
        indices = indices[..., None]
    update_scatter_dims = [d for d in range(updates.ndim) if d not in dims.update_window_dims]
    window_operand = [d for d in range(operand.ndim)
                      if d not in dims.inserted_window_dims and d not in dims.input_batching_dims]
    index_batch = [d for d in range(indices.ndim) if d != ivd]
    for u in np.ndindex(*updates.shape):
        batch = [u[d] for d in update_scatter_dims]
        vector = index_vector(indices, ivd, batch)
        full = [0] * operand.ndim
        for j, d in enumerate(dims.scatter_dims_to_operand_dims):
            full[d] = int(vector[j])
        for d, b in zip(dims.input_batching_dims, dims.scatter_indices_batching_dims):
            full[d] = batch[index_batch.index(b)]
        for w, d in zip(dims.update_window_dims, window_operand):
            full[d] += u[w]
        if all(0 <= full[d] < operand.shape[d] for d in range(operand.ndim)):
            result[tuple(full)] = updates[u] if combine is None else combine(result[tuple(full)], updates[u])
    return result


def gmx_of_plan(operand: np.ndarray, indices: np.ndarray, updates: np.ndarray, dims: ScatterDims,
                reduction: str = "none") -> np.ndarray:
    """The scatter as the plan computes it: reshapes and one gmx scatter in
    mode drop (negative indices sent out of range first, as the pattern does)."""
    gather = scatter_as_gather(dims, operand.ndim, list(updates.shape))
    index_shape = list(indices.shape)
    plan = plan_dims(gather, list(operand.shape), index_shape)
    input_shape, indices_shape = gmx_shapes(plan, list(operand.shape), index_shape)
    indices = vector_last(indices, dims.index_vector_dim)
    indices = np.where(indices < 0, np.iinfo(indices.dtype).max, indices)
    kept = iter(updates.shape)
    update_shape = [next(kept) if s.in_result else 1 for s in plan.slots]
    result = scatter_multiaxis(operand.reshape(input_shape), indices.reshape(indices_shape),
                               updates.reshape(update_shape), list(plan.axes), mode="drop", reduction=reduction)
    return result.reshape(operand.shape)


RNG = np.random.default_rng(29)
CASES = {
    # index_put / index_add: whole rows at each index
    "rows": ((5, 4), (3, 1), (3, 4), ScatterDims((1,), (0,), (), (), (0,), 1)),
    # torch-mlir's element-wise scatter: every dim inserted, a tuple per update
    "elementwise": ((5, 4), (3, 4, 2), (3, 4), ScatterDims((), (0, 1), (), (), (0, 1), 2)),
    # x.at[:, i]: the window dim before the scatter dim
    "columns": ((4, 6), (5, 1), (4, 5), ScatterDims((0,), (1,), (), (), (1,), 1)),
    # x.at[i, :, j], a permuted map
    "two_axes_permuted": ((3, 4, 5), (2, 2), (2, 4), ScatterDims((1,), (0, 2), (), (), (2, 0), 1)),
    # lax.scatter with batching dims
    "batching": ((6, 4), (6, 2, 1), (6, 2), ScatterDims((), (1,), (0,), (0,), (1,), 2)),
    # the index vector implicit
    "implicit_vector": ((10, 4), (6,), (6, 4), ScatterDims((1,), (0,), (), (), (0,), 1)),
    # vmap(lambda r, k, v: r.at[k].set(v)): an indexed window dim of size 1
    "vmap_row": ((4, 6), (4, 1), (4, 1), ScatterDims((1,), (), (0,), (0,), (1,), 1)),
    # several update batch dims (segment_sum over a 2-d segment map)
    "two_batch_dims": ((5, 3), (2, 4, 1), (2, 4, 3), ScatterDims((2,), (0,), (), (), (0,), 2)),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("reduction", ["none", "add"])
def test_plan_computes_stablehlo_scatter(name, reduction):
    operand_shape, index_shape, updates_shape, dims = CASES[name]
    operand = RNG.standard_normal(operand_shape).astype(np.float32)
    updates = RNG.standard_normal(updates_shape).astype(np.float32)
    indices = RNG.integers(-7, 9, index_shape)  # out of range both ways, negative, duplicated
    combine = None if reduction == "none" else np.add
    want = stablehlo_scatter(operand, indices, updates, dims, combine)
    np.testing.assert_array_equal(gmx_of_plan(operand, indices, updates, dims, reduction), want)


def test_scatter_as_gather_slice_sizes():
    gather = scatter_as_gather(CASES["columns"][3], 2, [4, 5])
    assert gather.slice_sizes == (4, 1) and gather.offset_dims == (0,) and gather.collapsed_slice_dims == (1,)
    assert scatter_as_gather(CASES["batching"][3], 2, [6, 2]).slice_sizes == (1, 1)


@pytest.mark.parametrize("dims, operand, updates, index, why", [
    (ScatterDims((1,), (0,), (), (), (0,), 1), [6, 4], [3, 2], [3, 1], "a window"),  # 2 of 4 columns
    (ScatterDims((1, 2), (), (), (), (0,), 1), [6, 4], [3, 6, 4], [3, 1], "full extent"),  # indexed whole dim
])
def test_plan_refuses_scatters(dims, operand, updates, index, why):
    with pytest.raises(NoMatch, match=why):
        plan_dims(scatter_as_gather(dims, len(operand), updates), operand, index)


REGION = """
func.func @f(%x: tensor<4x{t}>, %i: tensor<2x1xi32>, %u: tensor<2x{t}>) -> tensor<4x{t}> {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}}> ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    {body}
  }}) : (tensor<4x{t}>, tensor<2x1xi32>, tensor<2x{t}>) -> tensor<4x{t}>
  return %0 : tensor<4x{t}>
}}
"""


def _reduction(body: str, element: str = "f32") -> Reduction:
    with make_context():
        module = ir.Module.parse(REGION.format(t=element, body=body))
        scatter = module.body.operations[0].regions[0].blocks[0].operations[0]
        return region_reduction(scatter.regions[0], ir.RankedTensorType(scatter.operands[0].type).element_type)


@pytest.mark.parametrize("body, element, reduction", [
    ("stablehlo.return %b : tensor<f32>", "f32", Reduction.NONE),
    ("%s = stablehlo.add %a, %b : tensor<f32>\n stablehlo.return %s : tensor<f32>", "f32", Reduction.ADD),
    ("%s = stablehlo.multiply %b, %a : tensor<i32>\n stablehlo.return %s : tensor<i32>", "i32", Reduction.MUL),
    ("%s = stablehlo.maximum %b, %a : tensor<f32>\n stablehlo.return %s : tensor<f32>", "f32", Reduction.MAX),
    ("%s = stablehlo.minimum %a, %b : tensor<f32>\n stablehlo.return %s : tensor<f32>", "f32", Reduction.MIN),
    ("%s = stablehlo.or %a, %b : tensor<i1>\n stablehlo.return %s : tensor<i1>", "i1", Reduction.MAX),
    ("%s = stablehlo.and %a, %b : tensor<i1>\n stablehlo.return %s : tensor<i1>", "i1", Reduction.MIN),
])
def test_update_computations_as_reductions(body, element, reduction):
    assert _reduction(body, element) is reduction


@pytest.mark.parametrize("body, element, why", [
    ("stablehlo.return %a : tensor<f32>", "f32", "keeps the current value"),
    ("%s = stablehlo.subtract %a, %b : tensor<f32>\n stablehlo.return %s : tensor<f32>", "f32", "subtract"),
    ("%s = stablehlo.add %a, %a : tensor<f32>\n stablehlo.return %s : tensor<f32>", "f32", "two arguments"),
    ("%s = stablehlo.add %a, %b : tensor<i1>\n stablehlo.return %s : tensor<i1>", "i1", "not defined on i1"),
    ("%s = stablehlo.or %a, %b : tensor<i32>\n stablehlo.return %s : tensor<i32>", "i32", "stablehlo.or"),
    ("%s = stablehlo.add %a, %b : tensor<f32>\n %t = stablehlo.add %s, %b : tensor<f32>\n"
     " stablehlo.return %t : tensor<f32>", "f32", "2 ops"),
])
def test_other_update_computations_stay(body, element, why):
    with pytest.raises(NoMatch, match=why):
        _reduction(body, element)


# --- tensor.scatter ----------------------------------------------------------------------------


def tensor_scatter(source: np.ndarray, dest: np.ndarray, indices: np.ndarray, scatter_dims: list[int]) -> np.ndarray:
    """`tensor.scatter` as TensorOps.td defines it: `source[b, s]` written at
    the position whose scattered dims are the tuple `indices[b]`."""
    result = dest.copy()
    batch_shape = indices.shape[:-1]
    kept = [d for d in range(dest.ndim) if d not in scatter_dims]
    rank_reducing = source.ndim != len(batch_shape) + dest.ndim
    for b in np.ndindex(*batch_shape):
        slab = source[b]
        if not rank_reducing:
            slab = slab.reshape([dest.shape[d] for d in kept])
        for s in np.ndindex(*[dest.shape[d] for d in kept]):
            position = [0] * dest.ndim
            for j, d in enumerate(scatter_dims):
                position[d] = int(indices[b][j])
            for k, d in enumerate(kept):
                position[d] = s[k]
            result[tuple(position)] = slab[s]
    return result


TENSOR_SCATTER = """
func.func @main(%u: tensor<{s}xf32>, %x: tensor<{d}xf32>, %i: tensor<{i}xi32>) -> tensor<{d}xf32> {{
  %r = tensor.scatter %u into %x[%i] scatter_dims({dims}) unique : (tensor<{s}xf32>, tensor<{d}xf32>, tensor<{i}xi32>) -> tensor<{d}xf32>
  return %r : tensor<{d}xf32>
}}
"""


@pytest.mark.parametrize("source, dest, index, scatter_dims", [
    ((3, 5), (4, 5, 6), (3, 2), [0, 2]),  # rank-reducing, two scattered dims
    ((2, 3, 1, 5), (8, 5), (2, 3, 1), [0]),  # rank-preserving, two batch dims
    ((3, 4, 1), (4, 6), (3, 1), [1]),  # rank-preserving, a column each
])
def test_raised_tensor_scatter_is_tensor_scatter(source, dest, index, scatter_dims):
    text = TENSOR_SCATTER.format(s="x".join(map(str, source)), d="x".join(map(str, dest)),
                                 i="x".join(map(str, index)), dims="[" + ", ".join(map(str, scatter_dims)) + "]")
    raised = run_pipeline(text, ["gmx-canonicalize"]).text
    assert "tensor.scatter" not in raised and raised.count('"gmx.scatter_multiaxis"') == 1
    x = RNG.standard_normal(dest).astype(np.float32)
    u = RNG.standard_normal(source).astype(np.float32)
    # unique tuples, as tensor.scatter promises
    count = int(np.prod(index[:-1]))
    flat = RNG.permutation(int(np.prod([dest[d] for d in scatter_dims])))[:count]
    tuples = np.stack(np.unravel_index(flat, [dest[d] for d in scatter_dims]), axis=-1).astype(np.int32)
    indices = tuples.reshape(index)
    np.testing.assert_array_equal(interpret_raised(raised, u, x, indices)[0], tensor_scatter(u, x, indices, scatter_dims))


def test_tensor_scatter_dims():
    assert tensor_scatter_dims([4, 5, 6], 1, [0, 2], True).offset_dims == (1,)
    assert tensor_scatter_dims([4, 5, 6], 1, [1], False).slice_sizes == (4, 1, 6)


def test_tensor_scatter_runs_without_canonicalize():
    """gmx-run's lowering raises a tensor.scatter in its first stage (upstream
    lowers none): the program runs as written, an index out of range an IndexError."""
    if not scatters_lowered():
        pytest.skip("--gmx-lower-to-llvm does not lower gmx.scatter_multiaxis yet")
    text = TENSOR_SCATTER.format(s="3x5", d="4x5x6", i="3x2", dims="[0, 2]")
    u, x = np.arange(15, dtype=np.float32).reshape(3, 5), np.zeros((4, 5, 6), np.float32)
    indices = np.array([[0, 1], [3, 5], [2, 0]], np.int32)
    np.testing.assert_array_equal(gmx.runtime.run(text, u, x, indices), tensor_scatter(u, x, indices, [0, 2]))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        gmx.runtime.run(text, u, x, np.array([[0, 1], [4, 5], [2, 0]], np.int32))
