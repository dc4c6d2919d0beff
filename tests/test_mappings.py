"""gmx.reference.mappings: every known gather as reshapes onto gather_multiaxis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from gmx.dialect.shapes import GatherShapeError
from gmx.reference import (
    ReshapePlan,
    apply_plan,
    gather_elements,
    gather_elements_plan,
    gather_multiaxis,
    gather_nd,
    gather_nd_plan,
    onnx_gather,
    onnx_gather_plan,
    torch_take,
    torch_take_plan,
)
from worked_examples import EXAMPLES, GATHER_TABLE, WITH_INTERMEDIATE

HYPOTHESIS = settings(derandomize=True, max_examples=60, deadline=None)

OPS = {"gather": onnx_gather, "gather_elements": gather_elements,
       "gather_nd": gather_nd}
PLANS = {"gather": onnx_gather_plan, "gather_elements": gather_elements_plan,
         "gather_nd": gather_nd_plan}


def by_name(ex):
    return ex.name


def arange(shape) -> np.ndarray:
    return np.arange(math.prod(shape)).reshape(shape)


# --- worked examples --------------------------------------------------------


@pytest.mark.parametrize("ex", EXAMPLES, ids=by_name)
def test_worked_example_op_form(ex):
    out = OPS[ex.op](ex.input, ex.indices, **ex.attrs)
    assert out.dtype == ex.input.dtype
    assert out.shape == ex.expected.shape
    assert_array_equal(out, ex.expected)


@pytest.mark.parametrize("ex", WITH_INTERMEDIATE, ids=by_name)
def test_worked_example_intermediate_form(ex):
    """The example's own intermediate values, run as they stand."""
    mid = ex.intermediate
    out = gather_multiaxis(
        ex.input.reshape(mid.input_shape), ex.indices.reshape(mid.indices_shape),
        mid.axes,
    )
    assert out.shape == mid.output_shape
    assert_array_equal(out, ex.expected.reshape(mid.output_shape))


@pytest.mark.parametrize("ex", EXAMPLES, ids=by_name)
def test_worked_example_plan(ex):
    """Our plan (placement may differ from the example's) gives the same result."""
    plan = PLANS[ex.op](ex.input.shape, ex.indices.shape, **ex.attrs)
    assert plan.result_shape == ex.expected.shape
    assert math.prod(plan.output_shape) == ex.expected.size
    assert_array_equal(apply_plan(plan, ex.input, ex.indices), ex.expected)


def test_gather_scalar_proposal_slip():
    # The proposal lists indices shape [2,1] / output shape [2,2] for the
    # scalar index example (input [[1,2],[3,4]], indices 1, axis 0 -> [3,4]):
    # copied from the example after it. One scalar cannot be reshaped to
    # [2,1]; its own Gather table ("(P, Q) ( ) 0 -> (P,Q) (1,1) (1,Q)")
    # gives [1,1] / [1,2], which worked_examples.py records and we check here.
    ex = next(e for e in EXAMPLES if e.name == "gather_scalar")
    assert ex.indices.size == 1 != math.prod((2, 1))
    assert ex.intermediate.indices_shape == (1, 1)
    assert ex.intermediate.output_shape == (1, 2)
    assert onnx_gather_plan((2, 2), (), 0) == ReshapePlan(
        (2, 2), (1, 1), (1, 2), (0,), (2,)
    )


@pytest.mark.parametrize("row", GATHER_TABLE, ids=lambda row: row.name)
def test_gather_table(row):
    x = arange(row.input_shape)
    idx = (arange(row.indices_shape) * 7) % row.input_shape[row.axis]
    expected = np.take(x, idx, axis=row.axis)
    assert expected.shape == row.result_shape
    mid = row.intermediate
    out = gather_multiaxis(
        x.reshape(mid.input_shape), idx.reshape(mid.indices_shape), mid.axes
    )
    assert out.shape == mid.output_shape
    assert_array_equal(out, expected.reshape(mid.output_shape))
    assert_array_equal(onnx_gather(x, idx, row.axis), expected)


# --- plans: the documented placement rule --------------------------------------


@pytest.mark.parametrize(
    "plan, expected",
    [
        (onnx_gather_plan((4, 3), (2, 2), 1),
         ReshapePlan((4, 3, 1), (1, 2, 2), (4, 2, 2), (1,), (4, 2, 2))),
        (onnx_gather_plan((4, 3), (2,), 0),
         ReshapePlan((4, 3), (2, 1), (2, 3), (0,), (2, 3))),
        (onnx_gather_plan((4, 3, 2), (5,), -2),
         ReshapePlan((4, 3, 2), (1, 5, 1), (4, 5, 2), (1,), (4, 5, 2))),
        (onnx_gather_plan((4, 3, 2), (), 1),
         ReshapePlan((4, 3, 2), (1, 1, 1), (4, 1, 2), (1,), (4, 2))),
        (gather_elements_plan((4, 3), (2, 3), -2),
         ReshapePlan((4, 3), (2, 3), (2, 3), (0,), (2, 3))),
        (torch_take_plan((4, 3), (2, 5)),
         ReshapePlan((12, 1), (2, 5), (2, 5), (0,), (2, 5))),
        (torch_take_plan((4, 3), ()),
         ReshapePlan((12,), (1,), (1,), (0,), ())),
        (gather_nd_plan((2, 2, 2), (2, 2)),
         ReshapePlan((2, 2, 2), (2, 1, 2), (2, 1, 2), (0, 1), (2, 2))),
        (gather_nd_plan((2, 2, 2), (5, 3)),
         ReshapePlan((2, 2, 2), (5, 1, 3), (5, 1, 1), (0, 1, 2), (5,))),
        (gather_nd_plan((3, 4), (2, 5, 6, 1)),  # more index dims than axes
         ReshapePlan((3, 1, 1, 4), (2, 5, 6, 1), (2, 5, 6, 4), (0,), (2, 5, 6, 4))),
        (gather_nd_plan((1, 3), (2, 1), 1),  # broadcast batch dim
         ReshapePlan((1, 3), (2, 1), (2, 1), (1,), (2,))),
        (gather_nd_plan((5, 3, 4), (1, 2, 1), 1),  # broadcast the other way
         ReshapePlan((5, 3, 4), (1, 2, 1), (5, 2, 4), (1,), (5, 2, 4))),
    ],
)
def test_plan_placement(plan, expected):
    assert plan == expected


# --- errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: onnx_gather(arange((2, 3)), [0], 2), GatherShapeError,
         r"axis 2 is out of range \[-2, 2\)"),
        (lambda: onnx_gather(arange((2, 3)), [0], -3), GatherShapeError,
         "axis -3"),
        (lambda: onnx_gather(np.array(5), [0], 0), GatherShapeError, "rank 0"),
        (lambda: onnx_gather(arange((2, 3)), [3], 0), IndexError,
         "index 3 is out of bounds for axis 0 with size 2"),
        (lambda: onnx_gather(arange((2, 3)), [0.5], 0), TypeError, "float64"),
        (lambda: gather_elements(arange((2, 3)), [[0, 1]], 2), GatherShapeError,
         "axis 2"),
        (lambda: gather_elements(arange((2, 3)), [[0], [1], [0]], 1),
         GatherShapeError, "not broadcastable"),
        (lambda: gather_elements(arange((2, 3)), [0, 1], 0), GatherShapeError,
         "same rank"),
        (lambda: gather_nd(arange((2, 3)), [[0, 0, 0]]), GatherShapeError,
         "tuple size"),
        (lambda: gather_nd(arange((2, 3)), np.zeros((2, 0), int)),
         GatherShapeError, "tuple size"),
        (lambda: gather_nd(arange((2, 3)), [[0], [1]], 2), GatherShapeError,
         "batch_dims 2"),
        (lambda: gather_nd(arange((2, 3)), [[0], [1]], -1), GatherShapeError,
         "batch_dims -1"),
        (lambda: gather_nd(arange((2, 3)), [[0], [1], [0]], 1), GatherShapeError,
         "not broadcastable"),
        (lambda: gather_nd(arange((2, 3)), [[1, 3]]), IndexError,
         "index 3 is out of bounds for axis 1 with size 3"),
        (lambda: torch_take(arange((2, 3)), [6]), IndexError,
         "index 6 is out of bounds for axis 0 with size 6"),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- randomized comparisons --------------------------------------------------------


def shapes(min_rank=1, max_rank=3, min_side=1, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_rank,
                    max_size=max_rank).map(tuple)


def index_array(draw, shape, size) -> np.ndarray:
    """int64 values in [-size, size) (negative ones included)."""
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).integers(-size, size, size=shape)


@st.composite
def elements_cases(draw):
    input_shape = draw(shapes(1, 4))
    r = len(input_shape)
    axis = draw(st.integers(-r, r - 1))
    indices_shape = tuple(
        draw(st.integers(0, 4)) if d == axis % r or n == 1
        else draw(st.sampled_from([n, 1]))
        for d, n in enumerate(input_shape)
    )
    idx = index_array(draw, indices_shape, input_shape[axis])
    return arange(input_shape), idx, axis


@HYPOTHESIS
@given(elements_cases())
def test_gather_elements_vs_take_along_axis(case):
    x, idx, axis = case
    assert_array_equal(gather_elements(x, idx, axis),
                       np.take_along_axis(x, idx, axis))


@st.composite
def take_cases(draw):
    input_shape = draw(shapes(1, 3))
    axis = draw(st.integers(-len(input_shape), len(input_shape) - 1))
    idx = index_array(draw, draw(shapes(0, 3, 0)), input_shape[axis])
    return arange(input_shape), idx, axis


@HYPOTHESIS
@given(take_cases())
def test_onnx_gather_vs_numpy_take(case):
    x, idx, axis = case
    assert_array_equal(onnx_gather(x, idx, axis), np.take(x, idx, axis=axis))


def gather_nd_loop(data, indices, b):
    """GatherND written out: one index tuple at a time, batch dims broadcast."""
    batch = np.broadcast_shapes(data.shape[:b], indices.shape[:b])
    n = indices.shape[-1]
    out = np.empty(batch + indices.shape[b:-1] + data.shape[b + n:], data.dtype)
    for pos in np.ndindex(out.shape[: indices.ndim - 1]):
        at_i = tuple(p if s > 1 else 0 for p, s in zip(pos[:b], indices.shape))
        at_d = tuple(p if s > 1 else 0 for p, s in zip(pos[:b], data.shape))
        coords = tuple(int(v) for v in indices[at_i + pos[b:]])
        out[pos] = data[at_d + coords]
    return out


@st.composite
def nd_cases(draw):
    input_shape = draw(shapes(1, 4))
    r = len(input_shape)
    b = draw(st.integers(0, r - 1))
    n = draw(st.integers(1, r - b))
    batch = tuple(
        draw(st.integers(1, 3)) if s == 1 else draw(st.sampled_from([s, 1]))
        for s in input_shape[:b]
    )
    shape = batch + draw(shapes(0, 2, 0, 3)) + (n,)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    sizes = np.array(input_shape[b : b + n])
    idx = rng.integers(-sizes, sizes, size=shape)
    return arange(input_shape), idx, b


@HYPOTHESIS
@given(nd_cases())
def test_gather_nd_vs_loop(case):
    x, idx, b = case
    assert_array_equal(gather_nd(x, idx, b), gather_nd_loop(x, idx, b))


@st.composite
def flat_take_cases(draw):
    input_shape = draw(shapes(0, 3))
    idx = index_array(draw, draw(shapes(0, 3, 0)), math.prod(input_shape))
    return arange(input_shape), idx


@HYPOTHESIS
@given(flat_take_cases())
def test_torch_take_vs_numpy(case):
    x, idx = case
    assert_array_equal(torch_take(x, idx), np.take(x.ravel(), idx))


# --- torch, when installed ----------------------------------------------------------


def test_gather_elements_vs_torch_gather():
    torch = pytest.importorskip("torch")

    @HYPOTHESIS
    @given(elements_cases())
    def check(case):
        # torch.gather does not broadcast: give it both operands broadcast.
        x, idx, axis = case
        out = gather_elements(x, idx, axis)
        x_shape = list(out.shape)
        x_shape[axis] = x.shape[axis]
        wrapped = np.where(idx < 0, idx + x.shape[axis], idx)
        expected = torch.gather(
            torch.tensor(np.broadcast_to(x, x_shape)), axis,
            torch.tensor(np.broadcast_to(wrapped, out.shape)),
        )
        assert_array_equal(out, expected.numpy())

    check()


def test_torch_take_vs_torch():
    torch = pytest.importorskip("torch")

    @HYPOTHESIS
    @given(flat_take_cases())
    def check(case):
        x, idx = case
        expected = torch.take(torch.tensor(x), torch.tensor(idx))
        assert_array_equal(torch_take(x, idx), expected.numpy())

    check()


# --- advanced indexing --------------------------------------------------------------


@pytest.mark.parametrize("dims", [(0,), (0, 2), (1, 2), (2,), (0, 1, 2), (2, 0)])
def test_advanced_index_vs_numpy(dims):
    """`x[i, :, j]` (index arrays broadcast together) as gather_multiaxis
    with `axes = dims`, where numpy's result is a reshape of it."""
    from gmx.reference import advanced_index

    rng = np.random.default_rng(len(dims))
    x = arange((4, 5, 6))
    shapes = [(2, 3), (3,), (1, 3)][: len(dims)]
    indices = [rng.integers(-x.shape[d], x.shape[d], s) for d, s in zip(dims, shapes)]
    key = [slice(None)] * 3
    for d, i in zip(dims, indices):
        key[d] = i
    if dims == (2, 0):
        with pytest.raises(GatherShapeError, match="a transpose"):
            advanced_index(x, dims, indices)
        return
    assert_array_equal(advanced_index(x, dims, indices), x[tuple(key)])
