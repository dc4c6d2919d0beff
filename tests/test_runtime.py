"""gmx.runtime: compiled gather_multiaxis against the numpy reference, exactly.

Every comparison is exact: results must have the reference's dtype and shape
and the same bytes (floats compared bit for bit, so NaN payloads, -0.0 and
subnormals count). The number of distinct compiled programs is kept bounded
(each compile is ~0.05 s).
"""

from __future__ import annotations

import gc
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from gmx.reference import gather_multiaxis
from gmx.runtime import CompileError, compile, memref, run
from gather_programs import (
    ELEMENT_TYPES,
    GATHER_LINE,
    assert_identical,
    distinct_values,
    gather_module,
    random_bits,
    random_indices,
)
from worked_examples import GATHER_TABLE, SHAPE_EXAMPLES, WITH_INTERMEDIATE

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

HYPOTHESIS = settings(derandomize=True, max_examples=40, deadline=None)


def check_against_reference(program, x, idx, axes):
    want = gather_multiaxis(x, idx, axes)
    got = program(x, idx)
    assert_identical(got, want)
    return got


# --- the worked examples' intermediate values ------------------------------------


@pytest.mark.parametrize("example", WITH_INTERMEDIATE, ids=lambda e: e.name)
def test_worked_example_intermediate(example):
    mid = example.intermediate
    x = example.input.reshape(mid.input_shape)
    idx = example.indices.reshape(mid.indices_shape)
    program = compile(gather_module(mid.input_shape, mid.indices_shape, mid.axes,
                                    x.dtype, idx.dtype))
    got = program(x, idx)
    assert_identical(got, example.expected.reshape(mid.output_shape))


@pytest.mark.parametrize("row", GATHER_TABLE, ids=lambda r: r.name)
def test_gather_table_rows(row):
    """The gatherBlocks table's reshaped shapes, random data, every index value."""
    mid = row.intermediate
    rng = np.random.default_rng(len(row.name))
    x = distinct_values(rng, mid.input_shape, np.int32)
    size = mid.input_shape[row.axis]
    idx = rng.integers(-size, size, size=mid.indices_shape)
    program = compile(gather_module(mid.input_shape, mid.indices_shape, mid.axes,
                                    np.int32, np.int64))
    got = check_against_reference(program, x, idx, mid.axes)
    assert got.shape == mid.output_shape


@pytest.mark.parametrize("example", SHAPE_EXAMPLES, ids=lambda e: e.name)
def test_shape_examples(example):
    rng = np.random.default_rng(7)
    x = distinct_values(rng, example.input_shape, np.float32)
    logical = example.indices_shape[:-1] + (
        example.indices_shape[-1] // max(len(example.axes), 1),)
    idx = random_indices(rng, example.input_shape, logical, example.axes)
    program = compile(gather_module(example.input_shape, example.indices_shape,
                                    example.axes, np.float32, np.int64))
    got = check_against_reference(program, x, idx, example.axes)
    assert got.shape == example.output_shape


# --- random shapes, axes, broadcasting and values --------------------------------


@st.composite
def gather_cases(draw, dynamic: bool = False):
    """(input shape, logical indices shape, axes, dtype, index dtype, seed,
    dynamic input dims, dynamic indices dims)."""
    r = draw(st.integers(1, 4))
    k = draw(st.integers(0, r))
    axes = tuple(draw(st.permutations(range(r)))[:k])
    input_shape, logical = [], []
    for d in range(r):
        if d in axes:
            input_shape.append(draw(st.integers(1, 4)))
            logical.append(draw(st.integers(1, 3)))
        else:
            # equal, input 1 vs indices > 1, indices 1 vs input > 1
            kind = draw(st.sampled_from(["equal", "input_is_1", "indices_is_1"]))
            n = draw(st.integers(1, 3)) if kind == "equal" else draw(st.integers(2, 3))
            input_shape.append(1 if kind == "input_is_1" else n)
            logical.append(1 if kind == "indices_is_1" else n)
    dtype = draw(st.sampled_from([np.float32, np.int32, np.int64, np.float64]))
    index_dtype = draw(st.sampled_from([np.int32, np.int64]))
    seed = draw(st.integers(0, 2**32 - 1))
    dyn_input = dyn_indices = ()
    if dynamic:
        dyn_input = tuple(sorted(draw(st.sets(st.integers(0, r - 1)))))
        dyn_indices = tuple(sorted(draw(st.sets(st.integers(0, r - 1), min_size=1))))
    return (tuple(input_shape), tuple(logical), axes, dtype, index_dtype, seed,
            dyn_input, dyn_indices)


def _run_case(case):
    input_shape, logical, axes, dtype, index_dtype, seed, dyn_input, dyn_indices = case
    rng = np.random.default_rng(seed)
    x = distinct_values(rng, input_shape, dtype)
    idx = random_indices(rng, input_shape, logical, axes, index_dtype)
    program = compile(gather_module(input_shape, idx.shape, axes, dtype, index_dtype,
                                    dyn_input, dyn_indices))
    check_against_reference(program, x, idx, axes)


@HYPOTHESIS
@given(gather_cases())
def test_random_static(case):
    _run_case(case)


@HYPOTHESIS
@given(gather_cases(dynamic=True))
def test_random_dynamic(case):
    _run_case(case)


@pytest.mark.parametrize(
    "input_shape, logical, axes",
    [
        ((1, 5, 3), (4, 1, 2), (2,)),  # input 1 vs indices 4 on dim 0, reverse on dim 1
        ((6, 1, 4), (1, 3, 2), (0, 2)),  # permutation-free, both directions
        ((3, 1, 4, 2), (2, 5, 1, 3), (3, 0)),  # permuted, non-contiguous axes
        ((2, 3, 4), (2, 3, 1), (1, 2, 0)),  # every dim an axis, permuted
        ((1, 3), (4, 1), ()),  # no axes: pure broadcast, index values ignored
    ],
)
@pytest.mark.parametrize("dynamic", [False, True])
def test_broadcast_both_ways(input_shape, logical, axes, dynamic):
    rng = np.random.default_rng(1)
    x = distinct_values(rng, input_shape, np.float32)
    idx = random_indices(rng, input_shape, logical, axes)
    r = len(input_shape)
    dims = tuple(range(r)) if dynamic else ()
    program = compile(gather_module(input_shape, idx.shape, axes, np.float32,
                                    np.int64, dims, dims))
    check_against_reference(program, x, idx, axes)


def test_dynamic_program_reused_for_several_shapes():
    """One `?x?x?` program; run-time broadcasting decided per call."""
    axes = (2, 0)
    program = compile(gather_module((1, 1, 1), (1, 1, 2), axes,
                                    dyn_input=(0, 1, 2), dyn_indices=(0, 1, 2)))
    rng = np.random.default_rng(3)
    for input_shape, logical in [
        ((4, 5, 6), (3, 1, 2)),
        ((4, 1, 6), (3, 5, 2)),
        ((4, 5, 6), (3, 5, 1)),
        ((1, 1, 1), (2, 2, 2)),
        ((4, 5, 6), (0, 5, 2)),
    ]:
        x = distinct_values(rng, input_shape, np.float32)
        idx = random_indices(rng, input_shape, logical, axes)
        check_against_reference(program, x, idx, axes)


def test_non_contiguous_arguments():
    """Views with negative strides and Fortran order are accepted as values."""
    axes = (1, 0)
    program = compile(gather_module((3, 4), (3, 2), axes, np.float64))
    rng = np.random.default_rng(5)
    base = distinct_values(rng, (8, 6), np.float64)
    x = base[::-2, 1:5][1:]  # shape (3, 4), negative strides
    assert x.shape == (3, 4) and not x.flags.c_contiguous
    idx = random_indices(rng, (3, 4), (3, 1), axes)  # shape (3, 2)
    idx_f = np.asfortranarray(idx)
    idx_rev = idx[::-1].copy()[::-1]
    assert not idx_f.flags.c_contiguous and not idx_rev.flags.c_contiguous
    want = gather_multiaxis(x, idx, axes)
    assert_identical(program(x, idx_f), want)
    assert_identical(program(np.asfortranarray(x), idx_rev), want)
    assert_identical(program(x.copy(), idx), want)
    # zero strides (a read-only broadcast view) and read-only arrays
    row = np.broadcast_to(x[0], (3, 4))
    frozen = idx.copy()
    frozen.flags.writeable = False
    assert_identical(program(row, frozen), gather_multiaxis(row.copy(), idx, axes))


# --- element and index dtypes ------------------------------------------------------


@pytest.mark.parametrize("dtype", list(ELEMENT_TYPES), ids=str)
def test_element_dtypes(dtype):
    """Every element type, arbitrary bit patterns, bit-exact results."""
    axes = (2, 0)
    input_shape, logical = (3, 4, 5), (2, 1, 3)
    rng = np.random.default_rng(11)
    x = random_bits(rng, input_shape, dtype)
    idx = random_indices(rng, input_shape, logical, axes)
    program = compile(gather_module(input_shape, idx.shape, axes, dtype))
    got = check_against_reference(program, x, idx, axes)
    assert got.shape == (2, 4, 3)


@pytest.mark.parametrize(
    "dtype", [np.bool_, ml_dtypes.bfloat16, np.float16, np.complex128, np.int8],
    ids=lambda d: np.dtype(d).name)
def test_element_dtypes_dynamic_broadcast(dtype):
    """Narrow and wide element types through run-time broadcasting, i8 indices."""
    axes = (2,)
    dims = (0, 1, 2)
    program = compile(gather_module((1, 3, 4), (2, 1, 2), axes, dtype, np.int8, dims, dims))
    rng = np.random.default_rng(12)
    x = random_bits(rng, (1, 3, 4), dtype)
    idx = random_indices(rng, (1, 3, 4), (2, 1, 2), axes, np.int8)
    got = check_against_reference(program, x, idx, axes)
    assert got.shape == (2, 3, 2)


def test_float_special_values():
    x = np.array([np.nan, -0.0, np.inf, -np.inf, 5e-324, -np.nan], np.float64)
    x = np.concatenate([x, np.frombuffer(np.uint64(0x7FF0000000000001).tobytes(), np.float64)])
    idx = np.arange(-7, 7).reshape(14)  # every element twice, negatives too
    program = compile(gather_module((7,), (14,), (0,), np.float64))
    check_against_reference(program, x, idx, (0,))


@pytest.mark.parametrize(
    "index_dtype, values",
    [
        (np.int8, [-128, -100, -1, 0, 1, 99, 127]),  # sign-extended, not zero-extended
        (np.int16, [-300, -129, -1, 0, 128, 255, 299]),
        (np.int32, [-300, -1, 0, 299, 256, -256, 1]),
        (np.int64, [-300, -1, 0, 299, 2, -2, 150]),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else None,
)
def test_index_dtypes(index_dtype, values):
    """Axis of size 300: i8 values must be read as signed (-1 -> 299)."""
    rng = np.random.default_rng(2)
    x = distinct_values(rng, (300, 2), np.int32)
    idx = np.array(values, index_dtype).reshape(7, 1)
    program = compile(gather_module((300, 2), (7, 1), (0,), np.int32, index_dtype))
    got = check_against_reference(program, x, idx, (0,))
    assert_array_equal(got[:, 0], x[np.array(values) % 300, 0])


def test_unsigned_indices_are_rejected_for_signless_i8():
    """uint8 200 would be read as i8 -56: the runtime refuses, callers cast."""
    rng = np.random.default_rng(4)
    x = distinct_values(rng, (130, 3), np.float32)
    values = np.array([0, 1, 64, 127, 5], np.uint8).reshape(5, 1)
    program = compile(gather_module((130, 3), (5, 1), (0,), np.float32, np.int8))
    with pytest.raises(TypeError, match="must be int8.*got dtype uint8"):
        program(x, values)
    assert_identical(program(x, values.astype(np.int8)), gather_multiaxis(x, values, (0,)))


def test_wide_index_values_do_not_overflow():
    """Values far outside any axis, in the widest type, are errors (no wrap-around)."""
    program = compile(gather_module((4, 2), (1, 1), (0,), np.float32, np.int64))
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    for v in [2**62, -(2**63), 2**63 - 1, 4, -5, 2**32, 2**32 + 1, -(2**32) + 1]:
        with pytest.raises(IndexError, match=rf"index {v} is out of bounds for axis 0 with size 4"):
            program(x, np.array([[v]], np.int64))


# --- out-of-range index values -------------------------------------------------------


def _index_error_program(dynamic: bool):
    # axes [1, 0]: coordinate 0 indexes dim 1 (size 5), coordinate 1 dim 0 (size 4)
    dims = (0, 1) if dynamic else ()
    return compile(gather_module((4, 5), (3, 2), (1, 0), np.float32, np.int64, dims, dims))


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize(
    "bad_pair, axis, value, size",
    [
        ((1, 4), 0, 4, 4),  # positive, just past the end of dim 0
        ((1, -5), 0, -5, 4),  # too negative for dim 0
        ((5, 0), 1, 5, 5),  # positive on dim 1
        ((-6, 0), 1, -6, 5),  # too negative on dim 1
        ((1000, 0), 1, 1000, 5),
    ],
)
def test_out_of_range_index(dynamic, bad_pair, axis, value, size):
    program = _index_error_program(dynamic)
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    good = np.array([[0, 0], [4, 3], [-1, -4]], np.int64)
    bad = good.copy()
    bad[1] = bad_pair
    with pytest.raises(IndexError) as info:
        program(x, bad)
    message = str(info.value)
    assert f"axis {axis}" in message, message
    assert re.search(rf"(?<![\d-]){value}(?!\d)", message), message
    assert f"size {size}" in message, message
    # located at the gather op: `<name>:<line>:<col>`
    assert re.search(rf":{GATHER_LINE}:\d+", message), message
    # the process is alive and the same program still works
    check_against_reference(program, x, good, (1, 0))


def test_out_of_range_via_run():
    src = gather_module((3,), (2,), (0,), np.int32)
    with pytest.raises(IndexError, match="axis 0"):
        run(src, np.arange(3, dtype=np.int32), np.array([0, 3]))
    assert_identical(run(src, np.arange(3, dtype=np.int32), np.array([2, -3])),
                     np.array([2, 0], np.int32))


def test_many_out_of_range_values():
    """Many bad values at once: one IndexError, then normal service."""
    program = _index_error_program(False)
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    with pytest.raises(IndexError, match="out of bounds"):
        program(x, np.full((3, 2), 99, np.int64))
    check_against_reference(program, x, np.zeros((3, 2), np.int64), (1, 0))


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_unchecked_same_result_on_valid_data(dynamic):
    dims = (0, 1, 2) if dynamic else ()
    axes = (2, 0)
    src = gather_module((4, 5, 6), (3, 1, 4), axes, np.float32, np.int32, dims, dims)
    checked, unchecked = compile(src), compile(src, checked=False)
    assert checked is not unchecked
    rng = np.random.default_rng(9)
    x = distinct_values(rng, (4, 5, 6), np.float32)
    idx = random_indices(rng, (4, 5, 6), (3, 1, 2), axes, np.int32)
    assert_identical(unchecked(x, idx), checked(x, idx))
    assert_identical(unchecked(x, idx), gather_multiaxis(x, idx, axes))


# --- tiled lowerings ----------------------------------------------------------------
# Large static gathers take other paths (convert_gmx_to_linalg): row tiles
# scan and gather TILE_INDICES index values at a time; column tiles sort the rows
# by the slab they read and walk a kept dim read far apart (x[i, :, j]); elementwise gathers check while they
# gather; rows of large outputs are copied with streaming vector stores. Both modes must still equal the reference, and a bad index
# anywhere must still be reported, with its value.

TILED = [
    pytest.param((64, 50, 8), (64, 1024, 1), (1,), id="row-tiles"),
    pytest.param((64, 8), (64, 1024), (1,), id="elementwise-checked-while-gathering"),
    # 4 MiB of output: rows copied with streaming stores (gmx-stream-row-copies)
    pytest.param((5000, 256), (4096, 1), (0,), id="streamed-rows"),
    pytest.param((8, 96, 32), (40, 1, 2), (0, 2), id="column-tiles"),
    pytest.param((8, 40, 32), (40, 1, 2), (0, 2), id="column-tiles-of-10"),
    pytest.param((6, 64, 40), (7, 1, 2), (2, 0), id="column-tiles-permuted-axes"),
    pytest.param((4, 6, 16, 32), (5, 6, 1, 2), (0, 3), id="column-tiles-kept-dim-in-slab"),
    pytest.param((1, 64, 32), (5, 1, 1), (2,), id="column-tiles-one-slab"),
]


@pytest.mark.parametrize("input_shape, indices_shape, axes", TILED)
def test_tiled_gathers(input_shape, indices_shape, axes):
    src = gather_module(input_shape, indices_shape, axes)
    rng = np.random.default_rng(4)
    x = distinct_values(rng, input_shape, np.float32)
    logical = indices_shape[:-1] + (indices_shape[-1] // len(axes),)
    idx = random_indices(rng, input_shape, logical, axes)
    for checked in (True, False):
        check_against_reference(compile(src, checked=checked), x, idx, axes)
    bad = idx.copy()
    bad.reshape(-1)[-1] = 10**6  # the last coordinate: the last tile
    with pytest.raises(IndexError, match=f"index 1000000 is out of bounds for axis {axes[-1]}"):
        compile(src)(x, bad)


def test_column_tiles_of_an_exported_advanced_index():
    """x[i, :, j] as torch-mlir exports it (its two index tensors cast to
    i32 and concatenated into tuples): after gmx-canonicalize, column tiles
    (the rows sorted by slab, scalar copy loops), equal to numpy in both
    modes; a bad pair is still reported checked."""
    from gmx.tools.experiments.contenders import Fused, check, make_case
    from gmx.tools.experiments.pipelines import run_pipeline
    from gmx.tools.experiments.variants import make_study

    case = make_case(make_study("advanced-index", shape=(8, 64, 32), indices_shape=(40,), pattern=("i", ":", "j")))
    lowered = run_pipeline(case.text, ["gmx-canonicalize", "convert-gmx-to-linalg"]).text
    assert "loop_annotation" in lowered  # the column-tiled copy loops
    run = check([Fused("gmx"), Fused("gmx unchecked", checked=False)], case)
    assert [r.status for r in run.results.values()] == ["equal", "equal"], [r.line() for r in run.results.values()]
    x, i, j = case.inputs
    bad = j.copy()
    bad[17] = 32
    with pytest.raises(IndexError, match="index 32 is out of bounds for axis 2 with size 32"):
        compile(run_pipeline(case.text, ["gmx-canonicalize"]).text)(x, i, bad)


# --- indices narrowed by a cast --------------------------------------------------------
# torch-mlir casts i64 indices to i32 for tosa.gather; the lowering reads the
# i64 tensor and truncates where it reads. The program's meaning is the
# cast's: 2**32 + 1 truncates to 1 (a valid row), 2**32 + 7 to 7 (reported
# as 7, the value the gather sees).

NARROWED = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = tosa.cast %i : (tensor<2xi64>) -> tensor<2xi32>
  %1 = tensor.expand_shape %0 [[0, 1]] output_shape [2, 1] : tensor<2xi32> into tensor<2x1xi32>
  %2 = "gmx.gather_multiaxis"(%x, %1) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
"""


@pytest.mark.parametrize("checked", [True, False], ids=["checked", "unchecked"])
def test_indices_narrowed_by_a_cast_keep_its_meaning(checked):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    program = compile(NARROWED, checked=checked)
    idx = np.array([2**32 + 1, -1], np.int64)
    assert_identical(program(x, idx), x[[1, -1]])


def test_indices_narrowed_by_a_cast_report_the_narrowed_value():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 4"):
        compile(NARROWED)(x, np.array([0, 2**32 + 7], np.int64))


# --- shapes incompatible at run time ---------------------------------------------------


def test_runtime_broadcast_mismatch():
    # input ?x3, indices 4x3, axes [1]: dim 0 must be 4 or 1 at run time
    program = compile(gather_module((4, 3), (4, 3), (1,), np.float32, np.int64, dyn_input=(0,)))
    idx = np.array([[0, 1, 2]] * 4, np.int64)
    with pytest.raises(ValueError, match=r"dim 0.*(2.*4|4.*2)"):
        program(np.zeros((2, 3), np.float32), idx)
    for rows in (1, 4):
        x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        check_against_reference(program, x, idx, (1,))


def test_runtime_broadcast_zero_against_three():
    program = compile(gather_module((4, 3), (3, 3), (1,), np.float32, np.int64, dyn_input=(0,)))
    with pytest.raises(ValueError, match="dim 0"):
        program(np.zeros((0, 3), np.float32), np.zeros((3, 3), np.int64))


def test_runtime_broadcast_mismatch_both_dynamic():
    program = compile(gather_module((1, 1, 1), (1, 1, 1), (1,), np.int32, np.int64,
                                    (0, 1, 2), (0, 1, 2)))
    x = np.zeros((2, 3, 4), np.int32)
    with pytest.raises(ValueError):
        program(x, np.zeros((3, 1, 4), np.int64))  # dim 0: 2 vs 3
    with pytest.raises(ValueError):
        program(x, np.zeros((2, 1, 5), np.int64))  # dim 2: 4 vs 5
    check_against_reference(program, x, np.zeros((2, 1, 4), np.int64), (1,))


def test_runtime_empty_axis_with_nonempty_output():
    program = compile(gather_module((1, 3), (1, 3), (0,), np.float32, np.int64,
                                    (0,), (0,)))
    message = "axis 0 has size 0: every index into it is out of bounds"
    with pytest.raises(IndexError, match=message):
        program(np.zeros((0, 3), np.float32), np.zeros((2, 3), np.int64))
    # the same with static shapes (the verifier accepts it; the run fails cleanly,
    # as the reference and numpy do)
    static = compile(gather_module((0, 3), (2, 3), (0,), np.float32, np.int64))
    with pytest.raises(IndexError):
        gather_multiaxis(np.zeros((0, 3), np.float32), np.zeros((2, 3), np.int64), (0,))
    with pytest.raises(IndexError, match=message):
        static(np.zeros((0, 3), np.float32), np.zeros((2, 3), np.int64))
    # nothing to gather and nothing asked for: fine
    got = program(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int64))
    assert_identical(got, np.zeros((0, 3), np.float32))


def test_runtime_indices_last_dim_not_multiple():
    program = compile(gather_module((2, 3), (2, 2), (1, 0), np.float32, np.int64,
                                    dyn_indices=(1,)))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(ValueError, match="multiple"):
        program(x, np.zeros((2, 3), np.int64))
    check_against_reference(program, x, np.array([[2, 1, 0, 0], [1, 1, -1, -2]]), (1, 0))


# --- arguments and compile errors --------------------------------------------------------

SIMPLE = gather_module((4, 3), (2, 3), (0,), np.float32, np.int64)


def test_wrong_argument_count():
    program = compile(SIMPLE)
    x = np.zeros((4, 3), np.float32)
    with pytest.raises(TypeError):
        program(x)
    with pytest.raises(TypeError):
        program(x, np.zeros((2, 3), np.int64), x)


@pytest.mark.parametrize(
    "x_dtype, i_dtype",
    [(np.float64, np.int64), (np.int32, np.int64), (np.float32, np.int32),
     (np.float32, np.float64), (np.float32, np.uint32), (np.float16, np.int64)],
)
def test_wrong_argument_dtype(x_dtype, i_dtype):
    program = compile(SIMPLE)
    with pytest.raises(TypeError):
        program(np.zeros((4, 3), x_dtype), np.zeros((2, 3), i_dtype))


@pytest.mark.parametrize(
    "x_shape, i_shape",
    [((3, 3), (2, 3)), ((4, 3), (2, 4)), ((4, 3, 1), (2, 3)), ((12,), (2, 3)), ((4, 3), (6,))],
)
def test_wrong_argument_shape(x_shape, i_shape):
    program = compile(SIMPLE)
    with pytest.raises(ValueError):
        program(np.zeros(x_shape, np.float32), np.zeros(i_shape, np.int64))


def test_uint64_rejected_for_i64_indices():
    program = compile(SIMPLE)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with pytest.raises(TypeError, match="must be int64.*got dtype uint64"):
        program(x, np.array([[3, 0, 1], [2, 2, 0]], np.uint64))


def test_compile_error_parse():
    with pytest.raises(CompileError) as info:
        compile("func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n  return %y : tensor<3xf32>\n}\n")
    message = str(info.value)
    assert re.search(r":\d+:\d+", message) or "error" in message, message
    assert "error" in message


def test_compile_error_verifier():
    bad = SIMPLE.replace("-> tensor<2x3xf32>", "-> tensor<2x4xf32>", 1)  # wrong result type
    bad = bad.replace("return %r : tensor<2x3xf32>", "return %r : tensor<2x4xf32>")
    bad = bad.replace(") -> tensor<2x3xf32> {", ") -> tensor<2x4xf32> {")
    assert bad != SIMPLE
    with pytest.raises(CompileError) as info:
        compile(bad)
    assert re.search(r":\d+:\d+: error", str(info.value)), str(info.value)


def test_compile_error_missing_entry():
    with pytest.raises(CompileError, match="nope"):
        compile(SIMPLE, entry="nope")
    with pytest.raises(CompileError):
        run(SIMPLE, np.zeros((4, 3), np.float32), np.zeros((2, 3), np.int64), entry="nope")


def test_compile_error_is_not_cached_as_success():
    with pytest.raises(CompileError):
        compile("this is not mlir")
    with pytest.raises(CompileError):
        compile("this is not mlir")


# --- results: ownership, tuples, pass-through, strided slices ------------------------------


def test_results_are_new_writable_arrays():
    program = compile(SIMPLE)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = np.array([[3, 0, 1], [2, 2, 0]])
    first = program(x, idx)
    assert first.flags.writeable and first.flags.c_contiguous
    assert not np.shares_memory(first, x)
    want = first.copy()
    first[...] = -1
    second = program(x, idx)
    assert not np.shares_memory(first, second)
    assert_identical(second, want)
    assert_identical(x, np.arange(12, dtype=np.float32).reshape(4, 3))  # input untouched


DYNAMIC_ROWS = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<?x3xi64>) -> tensor<?x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<?x3xi64>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""


def test_static_results_are_aligned_numpy_arrays_the_code_writes(monkeypatch):
    """An entry with static results takes destinations: the runtime
    allocates each result (64-byte aligned) and the code writes it; nothing
    is adopted from the compiled code."""
    adopted = []
    monkeypatch.setattr(memref, "adopt_results", lambda *a: adopted.append(a))
    program = compile(SIMPLE)
    assert program.destinations
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    results = [program(x, np.array([[3, 0, 1], [2, 2, 0]])) for _ in range(3)]
    for result in results:
        assert_identical(result, np.array([[9, 1, 5], [6, 7, 2]], np.float32))
        assert memref.data_pointer(result) % memref.ALIGNMENT == 0 and result.flags.c_contiguous
    assert adopted == []


def test_an_output_buffer_is_reused_only_once_nothing_views_it():
    """A loop that drops each result writes the same warm buffer; a result,
    a view of it or a memoryview still alive keeps its buffer its own."""
    program = compile(SIMPLE)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = np.array([[3, 0, 1], [2, 2, 0]])
    want = np.array([[9, 1, 5], [6, 7, 2]], np.float32)
    address = memref.data_pointer(program(x, idx))  # dropped at once
    assert memref.data_pointer(program(x, idx)) == address
    for keep in (lambda r: r, lambda r: r[1:], lambda r: r.T, memoryview):
        kept = keep(program(x, idx))
        fresh = program(x, idx)
        assert not np.shares_memory(np.asarray(kept), fresh)
        fresh[...] = -1
        assert_identical(np.asarray(kept), np.asarray(keep(want)))
        del kept, fresh


def test_result_buffers_are_adopted_and_freed_once_after_the_last_view(monkeypatch):
    """Results of dynamic shape view the buffers the compiled code allocated
    (no copy); each allocation is freed exactly once, when no array refers
    to it any more."""
    gc.collect()  # results of earlier tests, freed before counting starts
    freed = []
    real_free = memref._Allocation._free
    monkeypatch.setattr(memref._Allocation, "_free", staticmethod(lambda p: (freed.append(p), real_free(p))))
    program = compile(DYNAMIC_ROWS)
    assert not program.destinations
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    result = program(x, np.array([[3, 0, 1], [2, 2, 0]]))
    view = result[1:]
    del result
    gc.collect()
    assert freed == []
    assert_identical(view, np.array([[6, 7, 2]], np.float32))
    del view
    gc.collect()
    assert len(freed) == 1


def test_returning_an_argument_copies_it():
    program = compile("func.func @main(%x: tensor<2x3xi16>) -> tensor<2x3xi16> {\n"
                      "  return %x : tensor<2x3xi16>\n}\n")
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    got = program(x)
    assert_identical(got, x)
    assert not np.shares_memory(got, x)
    got[0, 0] = 100
    assert x[0, 0] == 0


def test_returning_a_constant_twice():
    program = compile("func.func @main() -> tensor<3xi32> {\n"
                      "  %c = arith.constant dense<[1, 2, 3]> : tensor<3xi32>\n"
                      "  return %c : tensor<3xi32>\n}\n")
    first = program()
    first[:] = 0
    assert_identical(program(), np.array([1, 2, 3], np.int32))


def test_several_results_as_tuple():
    src = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>) {
  %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r, %x, %r, %i : tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>
}
"""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = np.array([[3, 0, 1], [2, 2, -1]])
    got = run(src, x, idx)
    assert isinstance(got, tuple) and len(got) == 4
    want = gather_multiaxis(x, idx, (0,))
    assert_identical(got[0], want)
    assert_identical(got[1], x)
    assert_identical(got[2], want)
    assert_identical(got[3], idx)
    assert not np.shares_memory(got[0], got[2])
    assert not np.shares_memory(got[1], x)
    assert not np.shares_memory(got[3], idx)


def test_no_results():
    got = run("func.func @main(%x: tensor<2xf32>) {\n  return\n}\n", np.zeros(2, np.float32))
    assert got == ()


def test_strided_extract_slice_result():
    src = """func.func @main(%x: tensor<5x7xf64>) -> tensor<2x3xf64> {
  %s = tensor.extract_slice %x[1, 1] [2, 3] [2, 2] : tensor<5x7xf64> to tensor<2x3xf64>
  return %s : tensor<2x3xf64>
}
"""
    x = np.arange(35, dtype=np.float64).reshape(5, 7)
    got = run(src, x)
    assert_identical(got, x[1:5:2, 1:7:2].copy())
    assert not np.shares_memory(got, x)


def test_strided_slice_of_a_gather():
    src = """func.func @main(%x: tensor<4x6xi32>, %i: tensor<5x6xi64>) -> tensor<2x3xi32> {
  %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x6xi32>, tensor<5x6xi64>) -> tensor<5x6xi32>
  %s = tensor.extract_slice %r[0, 1] [2, 3] [3, 2] : tensor<5x6xi32> to tensor<2x3xi32>
  return %s : tensor<2x3xi32>
}
"""
    rng = np.random.default_rng(8)
    x = distinct_values(rng, (4, 6), np.int32)
    idx = rng.integers(-4, 4, size=(5, 6))
    got = run(src, x, idx)
    assert_identical(got, gather_multiaxis(x, idx, (0,))[0:4:3, 1:6:2].copy())


# --- caching, rank 0, empty ---------------------------------------------------------------


def test_compile_is_cached():
    src = gather_module((3, 2), (1, 2), (0,), np.int8)
    assert compile(src) is compile(src)
    assert compile(src, "main") is compile(src, entry="main")
    assert compile(src, checked=False) is compile(src, checked=False)
    assert compile(src) is not compile(src, checked=False)


def test_rank0_gather_returns_input():
    src = gather_module((), (), (), np.float64, np.int64)
    assert "array<i64>" in src and "tensor<f64>" in src
    program = compile(src)
    for value, index in [(2.5, 0), (-0.0, 12345), (np.inf, -7)]:
        x = np.array(value, np.float64)
        got = program(x, np.array(index, np.int64))
        assert_identical(got, gather_multiaxis(x, np.array(index), ()))
        assert got.shape == ()
        assert not np.shares_memory(got, x)


@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, dynamic",
    [
        ((4, 3), (0, 3), (0,), False),  # no tuples
        ((4, 0), (2, 1), (0,), False),  # empty non-axis dim from the input
        ((4, 3), (2, 0), (1, 0), False),  # empty last dim, c = 2
        ((0, 3), (0, 3), (0,), False),  # empty axis dim, empty output
        ((4, 3), (0, 3), (0,), True),
        ((4, 0), (2, 1), (0,), True),
        ((0, 1), (2, 0), (0,), True),  # empty axis, but the output is empty too
    ],
)
def test_empty_output(input_shape, indices_shape, axes, dynamic):
    dims = tuple(range(len(input_shape))) if dynamic else ()
    program = compile(gather_module(input_shape, indices_shape, axes, np.float32,
                                    np.int64, dims, dims))
    x = np.zeros(input_shape, np.float32)
    idx = np.zeros(indices_shape, np.int64)
    got = check_against_reference(program, x, idx, axes)
    assert got.size == 0


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_out_of_range_index_with_empty_output(dynamic):
    dims = (0, 1) if dynamic else ()
    program = compile(gather_module((4, 0), (2, 1), (0,), np.float32, np.int64, dims, dims))
    x = np.zeros((4, 0), np.float32)
    idx = np.array([[9], [0]], np.int64)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        gather_multiaxis(x, idx, (0,))
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 4"):
        program(x, idx)


# --- several gathers, threads, ir.Module input ------------------------------------------


def test_index_error_names_the_gather_that_read_it():
    src = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %j: tensor<4x2xi64>) -> (tensor<2x3xf32>, tensor<4x2xf32>) {
  %a = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %b = "gmx.gather_multiaxis"(%x, %j) {axes = array<i64: 1>} : (tensor<4x3xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return %a, %b : tensor<2x3xf32>, tensor<4x2xf32>
}
"""
    program = compile(src)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    i, j = np.array([[3, 0, 1], [-4, 2, -1]]), np.array([[0, 2], [1, -3], [2, 2], [-1, 0]])
    with pytest.raises(IndexError, match=r":3:\d+: index 3 is out of bounds for axis 1 with size 3"):
        program(x, i, j + 3 * (j == 0))
    with pytest.raises(IndexError, match=r":2:\d+: index 4 is out of bounds for axis 0 with size 4"):
        program(x, i + 4 * (i == 0), j)
    a, b = program(x, i, j)
    assert_identical(a, gather_multiaxis(x, i, (0,)))
    assert_identical(b, gather_multiaxis(x, j, (1,)))


def test_errors_stay_with_their_thread():
    import threading

    program = compile(SIMPLE)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    problems = []

    def work(k):
        for n in range(60):
            bad = (n + k) % 2 == 0
            idx = np.full((2, 3), 7 if bad else k % 4, np.int64)
            try:
                got = program(x, idx)
            except IndexError as error:
                if not bad:
                    problems.append(("spurious error", k, n, str(error)))
            else:
                if bad:
                    problems.append(("missing error", k, n))
                elif not np.array_equal(got, np.stack([x[k % 4]] * 2)):
                    problems.append(("wrong result", k, n))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []


def test_compile_accepts_an_ir_module():
    from gmx.dialect import make_context
    from gmx.dialect.mlir import ir

    src = gather_module((4, 3), (2, 6), (1, 0), np.int16, np.int64)
    x = np.arange(12, dtype=np.int16).reshape(4, 3)
    idx = np.array([[2, 3, 0, -1, -3, 0], [1, 1, 1, 2, 0, 0]])
    with make_context():
        module = ir.Module.parse(src)
        program = compile(module)
    assert_identical(program(x, idx), gather_multiaxis(x, idx, (1, 0)))
    assert_identical(run(src, x, idx, checked=False), gather_multiaxis(x, idx, (1, 0)))
