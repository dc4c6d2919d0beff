"""raise-stablehlo-gather's decision, without IR: `plan_dims` and
`absorb_iota_coordinates` on dimension numbers, and the plan checked
against an independent evaluation of StableHLO's gather (numpy, written
from the spec) through `gmx.reference.gather_multiaxis` in mode "clip".
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gmx.passes.patterns import NoMatch
from gmx.passes.raising.stablehlo_dims import GatherDims, Slot, absorb_iota_coordinates, gmx_shapes, plan_dims
from gmx.passes.raising.stablehlo_indices import unit_view_shapes
from gmx.reference import gather_multiaxis
from stablehlo_oracle import index_vector, vector_last


def stablehlo_gather(operand: np.ndarray, indices: np.ndarray, dims: GatherDims) -> np.ndarray:
    """StableHLO's gather, element by element as its spec defines it."""
    ivd = dims.index_vector_dim
    if ivd == indices.ndim:
        indices = indices[..., None]
    batch_dims = [d for d in range(indices.ndim) if d != ivd]
    offset_operand = [d for d in range(operand.ndim)
                      if d not in dims.collapsed_slice_dims and d not in dims.operand_batching_dims]
    rank = len(batch_dims) + len(offset_operand)
    batch_positions = [p for p in range(rank) if p not in dims.offset_dims]
    out_shape = [0] * rank
    for p, b in zip(batch_positions, batch_dims):
        out_shape[p] = indices.shape[b]
    for p, d in zip(dims.offset_dims, offset_operand):
        out_shape[p] = dims.slice_sizes[d]
    out = np.zeros(out_shape, operand.dtype)
    for o in itertools.product(*map(range, out_shape)):
        batch = [o[p] for p in batch_positions]
        vector = index_vector(indices, ivd, batch)
        start = [0] * operand.ndim
        for j, d in enumerate(dims.start_index_map):
            start[d] = int(np.clip(vector[j], 0, operand.shape[d] - dims.slice_sizes[d]))
        for d, b in zip(dims.operand_batching_dims, dims.start_indices_batching_dims):
            start[d] = batch[batch_dims.index(b)]
        full = list(start)
        for p, d in zip(dims.offset_dims, offset_operand):
            full[d] += o[p]
        out[o] = operand[tuple(full)]
    return out


def gmx_of_plan(operand: np.ndarray, indices: np.ndarray, dims: GatherDims) -> np.ndarray:
    """The gather as the plan computes it: reshapes and one gmx op in mode clip."""
    index_shape = list(indices.shape)
    plan = plan_dims(dims, list(operand.shape), index_shape)
    input_shape, indices_shape = gmx_shapes(plan, list(operand.shape), index_shape)
    indices = vector_last(indices, dims.index_vector_dim)  # a unit dim or already last
    result = gather_multiaxis(operand.reshape(input_shape), indices.reshape(indices_shape), list(plan.axes), mode="clip")
    return result.reshape([n for n, s in zip(result.shape, plan.slots) if s.in_result])


RNG = np.random.default_rng(14)
CASES = {
    # torch.index_select(x, 1, i) as torch-mlir emits it
    "index_select": ((4, 5, 6), (7,), GatherDims((0, 2), (1,), (), (), (1,), 1, (4, 1, 6))),
    # embedding: w[i], i of rank 2 with the vector dim last
    "embedding": ((10, 4), (2, 3, 1), GatherDims((2,), (0,), (), (), (0,), 2, (1, 4))),
    # jnp.take(x, i, axis=1): the offset dim before the batch dim
    "take_axis1": ((4, 6), (5, 1), GatherDims((0,), (1,), (), (), (1,), 1, (4, 1))),
    # x[i, :, j]: two collapsed dims around an offset dim
    "advanced_noncontiguous": ((3, 4, 5), (2, 2), GatherDims((1,), (0, 2), (), (), (0, 2), 1, (1, 4, 1))),
    # permuted start_index_map
    "permuted_map": ((3, 4, 5), (2, 2), GatherDims((1,), (0, 2), (), (), (2, 0), 1, (1, 4, 1))),
    # take_along_axis: batching dims
    "take_along_axis": ((4, 6), (4, 3, 1), GatherDims((), (1,), (0,), (0,), (1,), 2, (1, 1))),
    # vmap(lambda r, k: r[k]): an indexed offset dim of slice 1
    "vmap_row": ((4, 6), (4, 1), GatherDims((1,), (), (0,), (0,), (1,), 1, (1, 1))),
    # the index vector implicit (index_vector_dim = rank of the indices)
    "implicit_vector": ((10, 4), (6,), GatherDims((1,), (0,), (), (), (0,), 1, (1, 4))),
    # the index vector first, of size 1
    "unit_vector_first": ((10, 4), (1, 6), GatherDims((1,), (0,), (), (), (0,), 0, (1, 4))),
    # gathering along a unit dim
    "along_unit_dim": ((4, 1, 5), (4, 3, 5, 1), GatherDims((), (1,), (0, 2), (0, 2), (1,), 3, (1, 1, 1))),
    # a collapsed, unindexed unit dim
    "collapsed_unit": ((1, 6, 3), (4, 1), GatherDims((1,), (0, 1), (), (), (1,), 1, (1, 1, 3))),
}


@pytest.mark.parametrize("name", CASES)
def test_plan_computes_stablehlo_gather(name):
    operand_shape, index_shape, dims = CASES[name]
    operand = RNG.standard_normal(operand_shape).astype(np.float32)
    indices = RNG.integers(-3, 9, index_shape)
    np.testing.assert_array_equal(gmx_of_plan(operand, indices, dims), stablehlo_gather(operand, indices, dims))


def test_plan_pairs_a_collapsed_axis_with_a_batch_dim():
    """index_select: no unit dim inserted, none collapsed after."""
    plan = plan_dims(CASES["index_select"][2], [4, 5, 6], [7])
    assert plan.slots == (Slot(0, None), Slot(1, 0), Slot(2, None)) and plan.axes == (1,)


def test_plan_inserts_a_unit_dim_where_no_batch_dim_fits():
    """x[i, :, j]: dim 2 comes after the offset dim 1, the batch dim before it."""
    plan = plan_dims(CASES["advanced_noncontiguous"][2], [3, 4, 5], [2, 2])
    assert plan.slots == (Slot(0, 0), Slot(1, None), Slot(2, None, in_result=False)) and plan.axes == (0, 2)


def test_iota_components_become_batching_dims():
    """torch.gather(x, 1, i) on 4x5x6: concatenate(iota0, i, iota2)."""
    dims = GatherDims((), (0, 1, 2), (), (), (0, 1, 2), 3, (1, 1, 1))
    absorbed = absorb_iota_coordinates(dims, {0: 0, 2: 2}, [4, 5, 6], [4, 3, 6, 3])
    assert absorbed == GatherDims((), (1,), (2, 0), (2, 0), (1,), 3, (1, 1, 1))
    plan = plan_dims(absorbed, [4, 5, 6], [4, 3, 6, 1])
    assert plan.slots == (Slot(0, 0), Slot(1, 1), Slot(2, 2)) and plan.axes == (1,)


def test_an_iota_smaller_than_its_dim_stays_a_coordinate():
    dims = GatherDims((), (0, 1), (), (), (0, 1), 2, (1, 1))
    assert absorb_iota_coordinates(dims, {0: 0}, [5, 6], [3, 2, 2]) == dims


@pytest.mark.parametrize("dims, operand, index, why", [
    (GatherDims((1,), (0,), (), (), (0,), 1, (1, 2)), [10, 4], [6, 1], "a window"),  # slice 2 of 4
    (GatherDims((0, 1), (), (), (), (0,), 1, (3, 4)), [10, 4], [6, 1], "a window"),  # indexed, slice 3
    (GatherDims((0, 1), (), (), (), (0,), 1, (10, 4)), [10, 4], [6, 1], "full extent"),  # a start ignored
    (GatherDims((1,), (0,), (), (), (0,), 1, (1, 4)), [10, None], [6, 1], "a window"),  # ? dim, slice 4
    (GatherDims((0,), (1,), (), (), (), 1, (1, 1)), [3, 4], [5, 0], "nothing is gathered"),
    (GatherDims((0,), (1,), (), (), (1,), 0, (4, 1)), [4, 6], [2, 5], "a transpose"),  # vector first, size 2
    # vmap over dim 1 of the operand, batch dim first in the result: operand order 1, 0
    (GatherDims((1,), (), (1,), (0,), (0,), 1, (1, 1)), [4, 6], [6, 1], "a transpose"),
])
def test_plan_refuses(dims, operand, index, why):
    with pytest.raises(NoMatch, match=why):
        plan_dims(dims, operand, index)


def test_unit_view_shapes():
    assert unit_view_shapes([None, None], [None, None, 1])
    assert unit_view_shapes([1, 6], [6, 1])
    assert not unit_view_shapes([None, 3], [3, None])
