"""gmx.reference.gather_multiaxis: the numpy reference of docs/semantics.md."""

from __future__ import annotations

import math
import re
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from gmx.dialect.shapes import GatherShapeError
from gmx.reference import gather_multiaxis
from worked_examples import SHAPE_EXAMPLES

HYPOTHESIS = settings(derandomize=True, max_examples=60, deadline=None)


def definition(x: np.ndarray, idx: np.ndarray, axes) -> np.ndarray:
    """docs/semantics.md#semantics written out literally, one output element at a time."""
    r, c = x.ndim, max(len(axes), 1)
    logical = idx.shape[:-1] + (idx.shape[-1] // c,) if r else ()
    out_shape = tuple(
        logical[d] if d in axes or logical[d] != 1 else x.shape[d] for d in range(r)
    )
    out = np.empty(out_shape, x.dtype)
    for o in np.ndindex(out_shape):
        p = [o[d] if x.shape[d] > 1 else 0 for d in range(r)]
        q = [o[d] if logical[d] > 1 else 0 for d in range(r)]
        for j, axis in enumerate(axes):
            v = int(idx[tuple(q[:-1]) + (q[-1] * c + j,)])
            p[axis] = v + x.shape[axis] if v < 0 else v
        out[o] = x[tuple(p)]
    return out


def coordinates(rng, logical_shape, axes, sizes) -> np.ndarray:
    """Random tuples (values in [-size, size) per axis), folded into the last dim."""
    c = max(len(axes), 1)
    cols = [rng.integers(-s, s, size=logical_shape) for s in sizes] or [
        np.zeros(logical_shape, np.int64)
    ]
    tuples = np.stack(cols, axis=-1)
    return tuples.reshape(*logical_shape[:-1], logical_shape[-1] * c)


def arange(shape, dtype=np.int64) -> np.ndarray:
    return np.arange(math.prod(shape)).astype(dtype).reshape(shape)


# --- worked examples --------------------------------------------------------


@pytest.mark.parametrize("ex", SHAPE_EXAMPLES, ids=lambda ex: ex.name)
def test_shape_examples(ex):
    rng = np.random.default_rng(0)
    x = arange(ex.input_shape)
    logical = ex.indices_shape[:-1] + (ex.indices_shape[-1] // len(ex.axes),)
    sizes = [ex.input_shape[a] for a in ex.axes]
    idx = coordinates(rng, logical, ex.axes, sizes)
    assert idx.shape == ex.indices_shape
    out = gather_multiaxis(x, idx, ex.axes)
    assert out.shape == ex.output_shape
    assert_array_equal(out, definition(x, idx, ex.axes))


# --- axes -------------------------------------------------------------------


def test_non_contiguous_axes_match_advanced_indexing():
    x = arange((3, 4, 5))
    i = np.array([2, 0, 1, 2, 0, 1])  # dim 0
    j = np.array([4, 3, 0, 1, 2, 4])  # dim 2
    # axes [2, 0]: coordinate 0 indexes dim 2, coordinate 1 indexes dim 0.
    idx = np.stack([j, i], axis=-1).reshape(6, 1, 2)
    out = gather_multiaxis(x, idx, [2, 0])
    assert out.shape == (6, 4, 1)
    assert_array_equal(out[:, :, 0], x[i, :, j])


def test_permuted_axes():
    x = arange((3, 4))
    rows, cols = np.array([[2, 0], [1, 1]]), np.array([[3, 0], [2, 1]])
    yx = np.stack([rows, cols], -1).reshape(2, 4)
    xy = np.stack([cols, rows], -1).reshape(2, 4)
    assert_array_equal(gather_multiaxis(x, yx, [0, 1]), x[rows, cols])
    assert_array_equal(gather_multiaxis(x, xy, [1, 0]), x[rows, cols])


def test_all_axes_rank3_permuted():
    x = arange((2, 3, 4))
    a, b, c = np.array([1, 0, 1]), np.array([2, 0, 1]), np.array([3, 3, 0])
    idx = np.stack([c, a, b], -1).reshape(3, 1, 3)  # axes [2, 0, 1]
    out = gather_multiaxis(x, idx, (2, 0, 1))
    assert out.shape == (3, 1, 1)
    assert_array_equal(out.ravel(), x[a, b, c])


def test_axes_as_numpy_array():
    x, idx = arange((3, 4)), np.array([[1, 2]])
    assert_array_equal(gather_multiaxis(x, idx, np.array([1])), x[:, [1, 2]])


# --- broadcasting ----------------------------------------------------------


def test_broadcast_input_dim_1_against_indices():
    x = arange((1, 4))
    idx = np.array([[3, 0], [1, 1], [2, 3]])
    out = gather_multiaxis(x, idx, [1])
    assert out.shape == (3, 2)
    assert_array_equal(out, x[0][idx])


def test_broadcast_indices_dim_1_against_input():
    x = arange((3, 4))
    idx = np.array([[3, 0, 2]])
    out = gather_multiaxis(x, idx, [1])
    assert out.shape == (3, 3)
    assert_array_equal(out, x[:, idx[0]])


def test_broadcast_both_ways_multiaxis():
    x = arange((2, 1, 5, 3))  # dim 1 broadcast from indices, dim 3 from input
    idx = np.array([[[[4, 1]], [[0, 0]], [[2, 1]]]])  # logical [1, 3, 1, 1]
    out = gather_multiaxis(x, idx, [2, 0])
    assert out.shape == (1, 3, 1, 3)
    assert_array_equal(out, definition(x, idx, [2, 0]))
    assert_array_equal(out[0, :, 0, :], x[[1, 0, 1], 0, [4, 0, 2], :])


def test_empty_axes_is_broadcast():
    x = arange((3, 1))
    out = gather_multiaxis(x, np.zeros((1, 4), np.int32), [])
    assert_array_equal(out, np.broadcast_to(x, (3, 4)))


def test_no_broadcast_temporary_of_input():
    # A broadcast copy of x to (1000, 1000, 8) would take 64 MB; the result
    # takes 8 MB.
    x = arange((1000, 1, 8), np.float64)
    idx = np.arange(1000).reshape(1, 1000, 1) % 8
    tracemalloc.start()
    try:
        out = gather_multiaxis(x, idx, [2])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.shape == (1000, 1000, 1)
    assert peak < 2 * out.nbytes
    assert_array_equal(out[:, :, 0], x[:, 0, idx[0, :, 0]])


# --- rank 0, empty dims, results ---------------------------------------------


def test_rank0_is_copy():
    x = np.array(2.5)
    out = gather_multiaxis(x, np.array(7), [])
    assert out.shape == () and out.dtype == x.dtype and out == x
    assert not np.shares_memory(out, x)


def test_rank0_rejects_axes():
    with pytest.raises(GatherShapeError, match="out of range"):
        gather_multiaxis(np.array(1), np.array(0), [0])


def test_result_is_new_array():
    x = arange((2, 3))
    out = gather_multiaxis(x, np.array([[0, 1, 2]]), [1])
    assert not np.shares_memory(out, x)


@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, output_shape",
    [
        ((0, 3), (0, 1), [1], (0, 1)),  # empty broadcast dim on both sides
        ((0, 3), (1, 2), [1], (0, 2)),  # empty input dim, broadcast indices
        ((2, 3), (2, 0), [1], (2, 0)),  # no index along the axis
        ((2, 0), (2, 0), [1], (2, 0)),  # empty axis, no index
        ((2, 3), (0, 0), [0, 1], (0, 0)),  # no tuple at all
    ],
)
def test_empty_dims(input_shape, indices_shape, axes, output_shape):
    x = arange(input_shape)
    out = gather_multiaxis(x, np.zeros(indices_shape, np.int64), axes)
    assert out.shape == output_shape and out.dtype == x.dtype


# --- index values ----------------------------------------------------------


def test_negative_indices_wrap_once():
    x = arange((2, 4))
    out = gather_multiaxis(x, np.array([[-1, -4, 0]]), [1])
    assert_array_equal(out, x[:, [3, 0, 0]])


@pytest.mark.parametrize(
    "idx, axes, message",
    [
        ([[4]], [1], "index 4 is out of bounds for axis 1 with size 4"),
        ([[-5]], [1], "index -5 is out of bounds for axis 1 with size 4"),
        ([[0, 2]], [1, 0], "index 2 is out of bounds for axis 0 with size 2"),
        ([[-3, 0]], [0, 1], "index -3 is out of bounds for axis 0 with size 2"),
    ],
)
def test_out_of_range_index(idx, axes, message):
    with pytest.raises(IndexError, match=f"^{message}$"):
        gather_multiaxis(arange((2, 4)), np.array(idx), axes)


def test_out_of_range_on_empty_axis():
    message = "index 0 is out of bounds for axis 1 with size 0"
    with pytest.raises(IndexError, match=message):
        gather_multiaxis(arange((2, 0)), np.zeros((2, 1), np.int64), [1])


def test_out_of_range_uint8_reports_value():
    with pytest.raises(IndexError, match="index 200 is out of bounds for axis 0"):
        gather_multiaxis(arange((4,)), np.array([1, 200], np.uint8), [0])


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
              np.uint32, np.uint64],
)
def test_index_dtypes(dtype):
    x = arange((3, 5))
    values = [[4, 0, 2]] if np.dtype(dtype).kind == "u" else [[-1, 0, 2]]
    out = gather_multiaxis(x, np.array(values, dtype), [1])
    assert_array_equal(out, x[:, [4, 0, 2]])


def test_int8_wrap_does_not_overflow():
    x = arange((300,))
    out = gather_multiaxis(x, np.array([-128, 127], np.int8), [0])
    assert_array_equal(out, [172, 127])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, bool, np.str_])
def test_non_integer_indices_rejected(dtype):
    idx = np.zeros((2, 1), dtype)
    with pytest.raises(TypeError, match=re.escape(f"integer dtype, got {idx.dtype}")):
        gather_multiaxis(arange((2, 2)), idx, [1])


# --- element dtypes ----------------------------------------------------------


@pytest.mark.parametrize(
    "dtype",
    [np.float16, np.float32, np.float64, bool, np.int8, np.uint16, np.int64,
     np.complex64, np.complex128, "bfloat16"],
)
def test_element_dtypes(dtype):
    if dtype == "bfloat16":
        dtype = pytest.importorskip("ml_dtypes").bfloat16
    x = (arange((3, 4)) % 7).astype(dtype)
    if x.dtype.kind == "c":
        x = (x + 1j * x[::-1]).astype(dtype)
    idx = np.array([[3, 0], [1, 1], [2, 3]])
    out = gather_multiaxis(x, idx, [1])
    assert out.dtype == x.dtype
    assert_array_equal(out, np.stack([x[r, idx[r]] for r in range(3)]))


# --- shape rules ---------------------------------------------------------------


@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, message",
    [
        ((2, 3), (2, 3, 1), [0], "same rank"),
        ((2, 3), (2, 3), [2], "axis 2 is out of range"),
        ((2, 3), (2, 3), [-1], "axis -1 is out of range"),
        ((2, 3), (2, 4), [1, 1], "unique"),
        ((2, 3), (2, 3), [0, 1], "multiple of the coordinate size 2"),
        # the proposal's broadcastShapeWith lets "the first one win" for
        # [2,1] vs [3,4]; docs/semantics.md#broadcasting makes it an error.
        ((2, 5), (3, 1), [1], "not broadcastable"),
        ((2, 3, 4), (3, 1, 2), [2], "non-axis dim 0"),
    ],
)
def test_shape_errors(input_shape, indices_shape, axes, message):
    with pytest.raises(GatherShapeError, match=message):
        gather_multiaxis(arange(input_shape), np.zeros(indices_shape, np.int64), axes)


def test_shape_error_is_value_error():
    with pytest.raises(ValueError):
        gather_multiaxis(arange((2,)), np.zeros((2, 2), np.int64), [0])


# --- randomized: against the literal definition --------------------------------


@st.composite
def gathers(draw):
    """(x, indices, axes) for any rank 1..4, axes subset in any order, broadcasting."""
    r = draw(st.integers(1, 4))
    axes = draw(st.permutations(range(r)))[: draw(st.integers(0, r))]
    input_shape, logical = [], []
    for d in range(r):
        n = draw(st.integers(1, 3)) if d in axes else draw(st.integers(0, 3))
        input_shape.append(n)
        if d in axes or n == 1:
            logical.append(draw(st.integers(0, 3)))
        else:
            logical.append(draw(st.sampled_from([n, 1])))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    sizes = [input_shape[a] for a in axes]
    idx = coordinates(rng, tuple(logical), axes, sizes)
    return arange(tuple(input_shape)), idx, axes


@HYPOTHESIS
@given(gathers())
def test_matches_definition(case):
    x, idx, axes = case
    assert_array_equal(gather_multiaxis(x, idx, axes), definition(x, idx, axes))
