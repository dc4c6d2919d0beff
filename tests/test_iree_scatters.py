"""gmx.scatter_multiaxis on the `iree` backend (one iree_linalg_ext.scatter,
`passes/lowering/iree_scatter.py`) against the reference and the engine:
the same bits (float sums: np.add.at's), the same errors, nothing written
outside the result; compiled for CUDA without a GPU. One module per group
of cases: IREE compiles take about a second each."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

import gmx.runtime  # noqa: E402
from gmx.passes.lowering.gather_plan import plan_gather  # noqa: E402
from gmx.passes.lowering.iree_scatter import batch_rank, coordinate_bits, drops_into_padding  # noqa: E402
from gmx.dialect.modes import Mode, OpKind, modes_of  # noqa: E402
from gmx.reference import scatter_multiaxis  # noqa: E402
from gmx.runtime.iree_backend import compile_vmfb  # noqa: E402
from gmx.runtime.iree_lowering import lower_for_iree  # noqa: E402

from gather_programs import assert_identical  # noqa: E402
from scatter_programs import Case, case_arguments, random_case, scatter_module, takes  # noqa: E402

IREE = {"backend": "iree", "device": "local-task"}
FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")
SWEEPS = 4 if FULL else 1  # cases per (dtype, mode, reduction)
MODES = modes_of(OpKind.SCATTER)  # every mode the mode table gives scatters
REDUCTIONS = ("none", "add", "mul", "max", "min")


def run_cases(cases, seed: int, spread: int = 0, index_dtype=np.int64, checked: bool = True):
    """Compile `cases` as one module for IREE; run it on random arguments
    (indices up to `spread` outside their axis, except in "raise" mode);
    compare each result with the reference's."""
    rng = np.random.default_rng(seed)
    program = gmx.runtime.compile(scatter_module(cases, index_dtype), checked=checked, **IREE)
    arguments = [case_arguments(rng, case, 0 if case.mode == "raise" else spread) for case in cases]
    arguments = [(x, i.astype(index_dtype), u) for x, i, u in arguments]
    wants = [scatter_multiaxis(x, i, u, c.axes, mode=c.mode, reduction=c.reduction)
             for c, (x, i, u) in zip(cases, arguments)]
    results = program(*[a for triple in arguments for a in triple])
    results = results if isinstance(results, tuple) else (results,)
    for case, (x, i, u), got, want in zip(cases, arguments, results, wants):
        try:
            assert_identical(got, want)
        except AssertionError as error:
            raise AssertionError(f"{case}\nindices={i!r}") from error
    return arguments, results


def test_random_sweep():
    """Every mode and reduction on f32 and i32 (and f64 with
    GMX_FULL_CORPUS=1), random ranks, axes, broadcasts, many duplicates;
    "raise" on indices in range, the others up to 3 outside. One module
    (IREE compiles dominate)."""
    rng = np.random.default_rng(2)
    dtypes = (np.float32, np.float64, np.int32) if FULL else (np.float32, np.int32)
    cases = [random_case(rng, dtype, mode, reduction) for dtype in dtypes
             for mode in MODES for reduction in REDUCTIONS if takes(dtype, reduction) for _ in range(SWEEPS)]
    run_cases(cases, seed=1, spread=3)


# Float sums over many duplicates (np.add.at's order), rows and elements.
LARGER = [
    Case((64, 128), (3000, 1), (3000, 128), (0,), reduction="add"),
    Case((16, 96), (16, 96), (16, 96), (1,), reduction="add"),
    Case((7, 33), (5000, 1), (5000, 33), (0,)),
    Case((100,), (20000,), (1,), (0,), reduction="add", dtype=np.float64),
]


def test_duplicates_in_row_major_order_and_unique_indices():
    """Float sums over many duplicates (np.add.at's bits); unique_indices
    (a promise kept: a permutation of the rows)."""
    run_cases(LARGER, seed=3)
    cases = [Case((64, 3), (64, 1), (64, 3), (0,), reduction=r, unique=True) for r in ("none", "add")]
    rng = np.random.default_rng(7)
    program = gmx.runtime.compile(scatter_module(cases), **IREE)
    x, u = rng.standard_normal((64, 3)).astype(np.float32), rng.standard_normal((64, 3)).astype(np.float32)
    i = rng.permutation(64)[:, None]
    for case, got in zip(cases, program(x, i, u, x, i, u)):
        assert_identical(got, scatter_multiaxis(x, i, u, (0,), reduction=case.reduction))


def test_narrow_indices_unchecked():
    """i32 indices; unchecked, "wrap", "clip" and "drop" as checked."""
    rng = np.random.default_rng(5)
    cases = [random_case(rng, np.float32, mode, reduction) for mode in MODES[1:] for reduction in ("none", "add")]
    run_cases(cases, seed=6, spread=2, index_dtype=np.int32, checked=False)


def aligned(array: np.ndarray) -> np.ndarray:
    """A copy of `array` on 64 bytes (what IREE imports in place)."""
    memory = np.empty(array.nbytes + 64, np.uint8)
    start = -memory.ctypes.data % 64
    copy = memory[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


def test_index_error_is_the_engines_and_nothing_is_written():
    """The engine's IndexError word for word (site, first bad index, axis,
    size, count); no argument written, a donated one neither."""
    case = Case((5, 3), (4, 1), (4, 3), (0,), reduction="add")
    text = scatter_module([case])
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    i, u = np.array([[1], [7], [2], [-9]]), np.ones((4, 3), np.float32)
    messages = []
    for options in ({}, IREE, {**IREE, "donate": (0,)}):
        arrays = [aligned(a) for a in (x, i, u)]
        with pytest.raises(IndexError) as raised:
            gmx.runtime.compile(text, **options)(*arrays)
        messages.append(str(raised.value))
        for a, b in zip(arrays, (x, i, u)):
            assert_identical(a, b)
    assert messages[0] == messages[1] == messages[2]
    assert "(2 indices out of bounds)" in messages[0]


def test_index_error_on_the_second_axis_is_the_engines():
    """x[i, :, j] = v with a bad j: the axis and size of the bad value."""
    case = Case((4, 5, 6), (3, 1, 2), (3, 5, 1), (0, 2))
    rng = np.random.default_rng(4)
    x, i, u = case_arguments(rng, case)
    i[1, 0, 1] = 6
    messages = []
    for options in ({}, IREE):
        with pytest.raises(IndexError) as raised:
            gmx.runtime.compile(scatter_module([case]), **options)(x, i, u)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert "index 6 is out of bounds for axis 2 with size 6" in messages[0]


def test_empty_axis_errors_as_the_engine():
    cases = [Case((0, 3), (2, 1), (2, 3), (0,)), Case((0, 3), (2, 1), (2, 3), (0,), mode="drop")]
    x, i, u = np.zeros((0, 3), np.float32), np.zeros((2, 1), np.int64), np.ones((2, 3), np.float32)
    errors = []
    for options in ({}, IREE):
        with pytest.raises(IndexError) as raised:
            gmx.runtime.compile(scatter_module(cases[:1]), **options)(x, i, u)
        errors.append(str(raised.value))
    assert errors[0] == errors[1]
    assert_identical(gmx.runtime.compile(scatter_module(cases[1:]), **IREE)(x, i, u), x)


def test_rank_0():
    text = """func.func @main(%x: tensor<f32>, %i: tensor<i64>, %u: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64>, reduction = "add"} : (tensor<f32>, tensor<i64>, tensor<f32>) -> tensor<f32>
  %s = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64>} : (tensor<f32>, tensor<i64>, tensor<f32>) -> tensor<f32>
  return %r, %s : tensor<f32>, tensor<f32>
}
"""
    x, i, u = np.array(1, np.float32), np.array(0, np.int64), np.array(2, np.float32)
    for got, want in zip(gmx.runtime.compile(text, **IREE)(x, i, u), gmx.runtime.compile(text)(x, i, u)):
        assert_identical(got, want)


def test_no_updates_is_the_input():
    cases = [Case((3, 4), (0, 1), (0, 4), (0,), reduction="add"), Case((3, 4), (0, 1), (0, 4), (0,), mode="drop")]
    x, i, u = np.ones((3, 4), np.float32), np.zeros((0, 1), np.int64), np.ones((0, 4), np.float32)
    for got in gmx.runtime.compile(scatter_module(cases), **IREE)(x, i, u, x, i, u):
        assert_identical(got, x)


def test_donated_input_is_written_after_the_call():
    case = Case((6, 4), (5, 1), (5, 4), (0,), reduction="add")
    rng = np.random.default_rng(11)
    x, i, u = (aligned(a) for a in case_arguments(rng, case))
    want = scatter_multiaxis(x, i, u, (0,), reduction="add")
    program = gmx.runtime.compile(scatter_module([case]), donate=(0,), **IREE)
    got = program(x, i, u)
    assert got is x
    assert_identical(x, want)


def test_arguments_in_iree_memory_are_not_written():
    """IREE imports 64-byte aligned arguments in place and writes a
    scatter into its input's memory: not the caller's."""
    case = Case((6, 4), (5, 1), (5, 4), (0,), reduction="add")
    x, i, u = (aligned(a) for a in case_arguments(np.random.default_rng(12), case))
    before = x.copy()
    got = gmx.runtime.compile(scatter_module([case]), **IREE)(x, i, u)
    assert_identical(got, scatter_multiaxis(before, i, u, (0,), reduction="add"))
    assert_identical(x, before)


@pytest.mark.parametrize(("shapes", "axes", "rank"), [
    (((4096, 1024), (4096, 1024)), (1,), 2),  # torch.scatter: every dim a batch dim
    (((50000, 128), (8192, 1)), (0,), 1),  # index_add of rows: a row slice
    (((64, 30, 8), (10, 1, 2)), (2, 0), 3),  # x[i, :, j] = v
    (((5, 7), (5, 1)), (), 1),  # no axes: at least one batch dim
])
def test_batch_rank(shapes, axes, rank):
    assert batch_rank(plan_gather(*shapes, list(axes))) == rank


def test_coordinates_are_i32_where_positions_fit():
    assert coordinate_bits((50000, 128)) == 32
    assert coordinate_bits((2**31 - 2, 1)) == 32  # its padding row too
    assert coordinate_bits((2**31 - 1, 1)) == 64
    assert coordinate_bits(()) == 32


def test_only_the_skipping_modes_write_into_padding():
    shapes = ((5, 3), (4, 1), [0])
    assert [drops_into_padding(plan_gather(*shapes, mode=m)) for m in Mode if m is not Mode.FILL] == \
        [m in (Mode.DROP, Mode.SKIP) for m in Mode if m is not Mode.FILL]


def test_compiles_for_cuda():
    """The GPU path, without a GPU: rows and elements, checked."""
    cases = [LARGER[0], LARGER[1], Case((8, 4), (6, 1), (6, 4), (0,), mode="drop", reduction="max")]
    lowered = lower_for_iree(scatter_module(cases), "main", True, cpu=False)
    assert compile_vmfb(lowered, "cuda")[:16]


def test_jax_scatters_raised_from_stablehlo_equal_the_engines():
    """JAX's `.at[]` scatters (StableHLO raised into gmx.scatter_multiaxis
    by --gmx-canonicalize), indices out of range both ways, duplicated:
    IREE's results are the engine's."""
    pytest.importorskip("jax")
    import jax.numpy as jnp

    from gmx.tools.experiments.frontends import jax_to_stablehlo
    from gmx.tools.experiments.pipelines import run_pipeline

    def program(x, i, u):
        return (jnp.asarray(x).at[i].add(u), jnp.asarray(x).at[i].set(u, mode="drop"),
                jnp.asarray(x).at[i].max(u, mode="clip"))

    rng = np.random.default_rng(29)
    x, u = rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal((6, 4)).astype(np.float32)
    i = np.array([1, -2, 7, 1, -9, 3], np.int64)
    text = run_pipeline(jax_to_stablehlo(program, [x, i, u]), ["gmx-canonicalize"]).text
    assert text.count('"gmx.scatter_multiaxis"') == 3
    engine, iree = gmx.runtime.compile(text)(x, i, u), gmx.runtime.compile(text, **IREE)(x, i, u)
    for got, want in zip(iree, engine):
        assert_identical(got, want)


def test_scatter_in_a_loop_is_a_located_error():
    """A checked scatter must be in the entry's body to report (as a gather)."""
    text = """func.func @main(%x: tensor<5x3xf32>, %i: tensor<4x1xi64>, %u: tensor<4x3xf32>) -> tensor<5x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<5x3xf32>) {
    %s = "gmx.scatter_multiaxis"(%acc, %i, %u) {axes = array<i64: 0>, reduction = "add"}
           : (tensor<5x3xf32>, tensor<4x1xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>
    scf.yield %s : tensor<5x3xf32>
  }
  return %r : tensor<5x3xf32>
}
"""
    with pytest.raises(gmx.runtime.CompileError, match=r"-:6:10: error: this scatter is inside 'scf.for'"):
        gmx.runtime.compile(text, **IREE)


def test_dynamic_scatter_is_refused_as_on_the_engine():
    text = """func.func @main(%x: tensor<?x3xf32>, %i: tensor<?x1xi64>, %u: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<?x3xf32>, tensor<?x1xi64>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
"""
    for options in ({}, IREE):
        with pytest.raises(gmx.runtime.CompileError, match=r"-:2:8: error: 'gmx.scatter_multiaxis' has no lowering: "
                                                           "dynamic shapes are not lowered yet"):
            gmx.runtime.compile(text, **options)


# The real-program corpus's entries with a gmx scatter (raised from
# StableHLO); the slower one only with GMX_FULL_CORPUS=1.
CORPUS = ("unpad_pad@stablehlo", *(("segment_means@stablehlo",) if FULL else ()))


@pytest.mark.parametrize("name", CORPUS)
def test_real_programs_with_scatters_equal_their_reference(name):
    pytest.importorskip("torch")
    from gmx.tools.experiments import corpus_base, models
    from gmx.tools.experiments.pipelines import run_pipeline

    program = models.MODELS[name]
    built = program.build()
    fused = run_pipeline(corpus_base.export(built, form=program.form), ["gmx-canonicalize"]).text
    assert '"gmx.scatter_multiaxis"' in fused
    got = gmx.runtime.run(fused, *built.inputs, **IREE)
    assert corpus_base.matches(got, corpus_base.reference(built), program.tolerance) is None


INSERT_ROW = """func.func @main(%x: tensor<8x4xf32>, %u: tensor<1x4xf32>) -> tensor<8x4xf32> {
  %r = tensor.insert_slice %u into %x[3, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
"""


def test_an_insert_into_an_argument_leaves_the_callers_array():
    """IREE writes an insert_slice into its destination's memory, an
    imported argument's too: that argument is copied, the others not."""
    lowered = lower_for_iree(INSERT_ROW, "main", True)
    assert lowered.written_arguments == {0}
    x, u = aligned(np.zeros((8, 4), np.float32)), aligned(np.ones((1, 4), np.float32))
    want = x.copy()
    want[3] = 1
    assert_identical(gmx.runtime.compile(INSERT_ROW, **IREE)(x, u), want)
    assert_identical(x, np.zeros((8, 4), np.float32))


def test_written_arguments_of_scatters():
    case = Case((6, 4), (5, 1), (5, 4), (0,), reduction="add")
    assert lower_for_iree(scatter_module([case]), "main", True).written_arguments == {0}
    drop = Case((6, 4), (5, 1), (5, 4), (0,), mode="drop")  # into a padded copy
    assert lower_for_iree(scatter_module([drop]), "main", True).written_arguments == set()
