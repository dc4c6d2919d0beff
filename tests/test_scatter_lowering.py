"""gmx.scatter_multiaxis through `--convert-gmx-to-linalg` and the engine,
against `gmx.reference.scatter_multiaxis` (np.add.at's bits for float
sums): a random sweep over ranks, axes, broadcasts, modes, reductions and
dtypes (many cases per compiled module: compiling dominates); the same
bits on any number of threads; "raise" errors before any write; the
plan's strategies (pure, without IR)."""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest

import gmx.runtime
from gather_programs import assert_identical, gather_module
from gmx.dialect.modes import OpKind, modes_of
from gmx.passes.lowering.scatter_plan import (
    SORTED_PARTS,
    Serial,
    Split,
    Targets,
    copies_input,
    plan_scatter,
    saves_tiles,
    scans_tile_by_tile,
    sorts_targets,
)
from gmx.reference import scatter_multiaxis
from gmx.runtime.compiler import CompileError
from scatter_programs import Case, case_arguments, random_case, scatter_module, takes

MODES = modes_of(OpKind.SCATTER)  # every mode the mode table gives scatters
REDUCTIONS = ("none", "add", "mul", "max", "min")
DTYPES = (np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int8, np.int16, np.int32, np.int64,
          np.bool_, np.complex64)
FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")
SWEEPS = 4 if FULL else 1  # cases per (dtype, mode, reduction)
# One dtype of each width and kind in the suite (every one with GMX_FULL_CORPUS=1)
SWEPT = DTYPES if FULL else (np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.int32, np.bool_, np.complex64)


def run_cases(cases, seed: int, threads: int | None = None, spread: int = 0, index_dtype=np.int64):
    """Compile `cases` as one module; run it on random arguments; compare
    each result with the reference's."""
    rng = np.random.default_rng(seed)
    program = gmx.runtime.compile(scatter_module(cases, index_dtype), threads=threads)
    arguments = [case_arguments(rng, case, spread) for case in cases]
    arguments = [(x, i.astype(index_dtype), u) for x, i, u in arguments]
    results = program(*[a for triple in arguments for a in triple])
    results = results if isinstance(results, tuple) else (results,)
    for case, (x, i, u), got in zip(cases, arguments, results):
        want = scatter_multiaxis(x, i, u, case.axes, mode=case.mode, reduction=case.reduction)
        try:
            assert_identical(got, want)
        except AssertionError as error:
            raise AssertionError(f"{case}\nindices={i!r}") from error


@pytest.mark.parametrize("dtype", SWEPT, ids=lambda d: np.dtype(d).name)
def test_random_sweep(dtype):
    """Every mode and reduction the dtype takes, in one module per dtype;
    "raise" on indices in range, the other modes up to 3 outside."""
    rng = np.random.default_rng(np.dtype(dtype).num)
    cases = [random_case(rng, dtype, mode, reduction)
             for mode in MODES for reduction in REDUCTIONS if takes(dtype, reduction)
             for _ in range(SWEEPS)]
    raising = [c for c in cases if c.mode == "raise"]
    run_cases(raising, seed=1)
    run_cases([c for c in cases if c.mode != "raise"], seed=2, spread=3)


# Shapes whose plans are each strategy (the random sweep's small shapes are
# serial): ranges of targets on one axis and on the second of two, ranges
# of the index tuples sorted by range, a split payload into one row, rows
# split (indices varying along them).
STRATEGY_SHAPES = {
    Targets(0, 2): ((6, 64), (9, 1), (9, 64), (0,)),
    Targets(2, 2): ((5, 70, 4), (30, 1, 2), (30, 70, 1), (2, 0)),
    Targets(0, 8, sorted=True): ((64, 256), (256, 1), (256, 256), (0,)),
    Split(1, 32): ((1, 96), (7, 1), (7, 96), (0,)),
    Split(0, 1): ((4, 9), (4, 5), (4, 5), (1,)),
}


def test_every_strategy_in_every_mode():
    """Each strategy in each mode and with each of none/add/max (every
    strategy x mode x reduction with GMX_FULL_CORPUS=1: the JIT of those
    48 scatters takes seconds)."""
    cases = []
    for s, (strategy, shapes) in enumerate(STRATEGY_SHAPES.items()):
        assert plan_scatter(*shapes).strategy == strategy
        cases += [Case(*shapes, mode=mode, reduction=reduction) for m, mode in enumerate(MODES)
                  for r, reduction in enumerate(("none", "add", "max")) if FULL or (s + m) % 3 == r]
    run_cases([c for c in cases if c.mode == "raise"], seed=8)
    run_cases([c for c in cases if c.mode != "raise"], seed=9, spread=3)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int8])
def test_narrow_indices(index_dtype):
    rng = np.random.default_rng(5)
    cases = [random_case(rng, np.float32, mode, reduction) for mode in MODES for reduction in ("none", "add")]
    run_cases([c for c in cases if c.mode == "raise"], seed=6, index_dtype=index_dtype)
    run_cases([c for c in cases if c.mode != "raise"], seed=6, spread=2, index_dtype=index_dtype)


def test_unique_indices_split_any_dim():
    """unique_indices (a promise kept here: a permutation of the rows)
    splits the scattered dim itself."""
    cases = [Case((64, 3), (64, 1), (64, 3), (0,), reduction=r, unique=True) for r in ("none", "add")]
    assert plan_scatter((64, 3), (64, 1), (64, 3), (0,), unique_indices=True).strategy == Split(0, 1)
    rng = np.random.default_rng(7)
    program = gmx.runtime.compile(scatter_module(cases), threads=2)
    x, u = rng.standard_normal((64, 3)).astype(np.float32), rng.standard_normal((64, 3)).astype(np.float32)
    i = rng.permutation(64)[:, None]
    for case, got in zip(cases, program(x, i, u, x, i, u)):
        assert_identical(got, scatter_multiaxis(x, i, u, (0,), reduction=case.reduction))


def test_unchecked_scatter_skips_indices_out_of_range():
    """checked=false: no scan, no report; an index outside its axis is
    still never written (skipped)."""
    case = Case((5, 3), (6, 1), (6, 3), (0,), reduction="add")
    program = gmx.runtime.compile(scatter_module([case]), checked=False)
    x, u = np.zeros((5, 3), np.float32), np.ones((6, 3), np.float32)
    i = np.array([[0], [9], [-1], [-7], [1 << 40], [0]])
    want = scatter_multiaxis(x, np.array([[0], [-1], [0]]), u[:3], [0], reduction="add")
    assert_identical(program(x, i, u), want)


# -- threads -------------------------------------------------------------------------

THREADED = [
    # torch.scatter along dim 1: rows split (owner-computes)
    Case((256, 512), (256, 512), (256, 512), (1,), reduction="add"),
    # scatter_add of edge messages into nodes: ranges of the nodes
    Case((1000, 64), (20000, 1), (20000, 64), (0,), reduction="add"),
    # index_add of rows into few rows, last wins: ranges of the rows
    Case((16, 128), (4096, 1), (4096, 128), (0,)),
    # the same with 1024-entry rows (MoE combine), last wins and sums:
    # ranges of the rows, the indices sorted by range first
    Case((16, 1024), (256, 1), (256, 1024), (0,)),
    Case((64, 512), (2048, 1), (2048, 512), (0,), reduction="add"),
    # x[i, :, j] += v, the payload between the two index dims (i, j vary
    # along G dims 0 and 2): sorted in row-major order of (dim 0, dim 2)
    Case((300, 256, 3), (64, 1, 16), (64, 256, 8), (0, 2), reduction="add"),
    # rows of a short payload: serial
    Case((300, 8), (20000, 1), (20000, 8), (0,), reduction="mul", dtype=np.float64),
    # into one row: its columns split
    Case((1, 256), (1000, 1), (1000, 256), (0,), reduction="add"),
    # rank 1: serial
    Case((100,), (70000,), (70000,), (0,), reduction="add"),
]


def test_plans_of_the_threaded_cases():
    plans = [plan_scatter(c.input_shape, c.indices_shape, c.updates_shape, c.axes, element_bits=64 if
                          c.dtype == np.float64 else 32).strategy for c in THREADED]
    assert plans == [Split(0, 1), Targets(0, 2), Targets(0, 4), Targets(0, 16, sorted=True),
                     Targets(0, 16, sorted=True), Targets(0, 8, sorted=True), Serial(), Split(1, 32), Serial()]


def test_same_bits_on_any_number_of_threads():
    """Float sums over many duplicates, split among 1, 2, 3, 4 and 16
    threads: the bits of np.add.at every time."""
    for threads in (1, 2, 3, 4, 16):
        run_cases(THREADED, seed=3, threads=threads)


# -- errors ----------------------------------------------------------------------------


def read_only(*arrays):
    for a in arrays:
        a.flags.writeable = False
    return arrays


def test_index_out_of_range_is_the_gathers_index_error_and_nothing_is_written():
    case = Case((5, 3), (4, 1), (4, 3), (0,), reduction="add")
    program = gmx.runtime.compile(scatter_module([case]))
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    i, u = np.array([[1], [7], [2], [-9]]), np.ones((4, 3), np.float32)
    before = [a.copy() for a in (x, i, u)]
    with pytest.raises(IndexError) as raised:
        program(*read_only(x, i, u))
    gather = gmx.runtime.compile(gather_module((5, 3), (4, 1), (0,)))
    with pytest.raises(IndexError) as gathered:
        gather(x, i)
    located = str(raised.value)
    assert located.startswith("-:2:") and located.split(": ", 1)[1] == str(gathered.value).split(": ", 1)[1]
    for a, b in zip((x, i, u), before):
        assert_identical(a, b)


def test_donated_input_is_the_result_updated_in_place_and_kept_on_an_error():
    case = Case((5, 3), (4, 1), (4, 3), (0,), reduction="add")
    program = gmx.runtime.compile(scatter_module([case]), donate=(0,))
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    i, u = np.array([[1], [4], [1], [-5]]), np.ones((4, 3), np.float32)
    want = scatter_multiaxis(x, i, u, (0,), reduction="add")
    assert program(x, *read_only(i, u)) is x
    assert_identical(x, want)
    with pytest.raises(IndexError):
        program(x, *read_only(np.array([[1], [7], [2], [0]]), u))
    assert_identical(x, want)


def test_input_not_donated_is_copied_once_into_the_result():
    case = Case((6, 4), (5, 1), (5, 4), (0,), reduction="max")
    program = gmx.runtime.compile(scatter_module([case]))
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    i, u = np.array([[5], [0], [5], [2], [-1]]), np.full((5, 4), 30, np.float32)
    before = x.copy()
    got = program(*read_only(x, i, u))
    assert_identical(got, scatter_multiaxis(before, i, u, (0,), reduction="max"))
    assert_identical(x, before)


def test_rows_scanned_tile_by_tile_report_as_the_gather_and_write_nothing_seen():
    """Rows split on a read-only input (each tile's indices scanned inside
    the split loop, `scans_tile_by_tile`): bad indices in two tiles are
    reported as the gather reports them (the first in row-major order),
    on any number of threads; the input is unchanged, and a donated
    input (its tiles saved first, `saves_tiles`; rows before the bad ones
    written, then restored) is kept as it was, on 1 and 2 threads."""
    case = Case((64, 9), (64, 5), (64, 5), (1,), reduction="max")
    assert plan_scatter(case.input_shape, case.indices_shape, case.updates_shape, case.axes).strategy == Split(0, 1)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((64, 9)).astype(np.float32)
    i, u = rng.integers(-9, 9, (64, 5)), rng.standard_normal((64, 5)).astype(np.float32)
    i[40, 3], i[7, 1] = 12, -10
    gather = gmx.runtime.compile(gather_module((64, 9), (64, 5), (1,)))
    with pytest.raises(IndexError) as gathered:
        gather(x, i)
    before = [a.copy() for a in (x, i, u)]
    for threads in (1, 2, 3, 16):
        program = gmx.runtime.compile(scatter_module([case]), threads=threads)
        with pytest.raises(IndexError) as raised:
            program(*read_only(*(a.copy() for a in (x, i, u))))
        assert str(raised.value).split(": ", 1)[1] == str(gathered.value).split(": ", 1)[1]
        good = np.where((i < -9) | (i >= 9), 0, i)
        assert_identical(program(x, good, u), scatter_multiaxis(x, good, u, (1,), reduction="max"))
    assert saves_tiles(plan_scatter(case.input_shape, case.indices_shape, case.updates_shape, case.axes), False, 64)
    for threads in (1, 2):
        donated = gmx.runtime.compile(scatter_module([case]), donate=(0,), threads=threads)
        mine = x.copy()
        with pytest.raises(IndexError) as raised:
            donated(mine, *read_only(i, u))
        assert str(raised.value).split(": ", 1)[1] == str(gathered.value).split(": ", 1)[1]
        for a, b in zip((mine, i, u), before):
            assert_identical(a, b)
        assert_identical(donated(mine, good, u), scatter_multiaxis(x, good, u, (1,), reduction="max"))


@pytest.mark.parametrize("strategy, fresh, tile_by_tile", [
    (Split(0, 1), True, True),  # torch.scatter's rows into a copy
    (Split(0, 1), False, False),  # into a donated input: scanned first
    (Targets(0, 2), True, False),  # each range reads every index
    (Serial(), True, False),
])
def test_scans_tile_by_tile(strategy, fresh, tile_by_tile):
    shapes = {Split(0, 1): ((64, 9), (64, 5), (64, 5), (1,)), Targets(0, 2): ((6, 64), (9, 1), (9, 64), (0,)),
              Serial(): ((100,), (50,), (50,), (0,))}[strategy]
    plan = plan_scatter(*shapes)
    assert plan.strategy == strategy
    assert scans_tile_by_tile(plan, fresh) is tile_by_tile
    assert not scans_tile_by_tile(plan_scatter(*shapes, checked=False), fresh)


@pytest.mark.parametrize("shapes, fresh, index_bits, saves", [
    (((64, 9), (64, 5), (64, 5), (1,)), False, 64, True),  # donated rows: 576 f32 saved, 320 i64 scanned
    (((64, 9), (64, 5), (64, 5), (1,)), False, 32, False),  # i32 indices: fewer bytes than the rows
    (((64, 9), (64, 5), (64, 5), (1,)), True, 64, False),  # a copy: tile by tile, nothing to save
    (((4, 8), (4, 3), (4, 3), (1,)), False, 64, False),  # 32 f32 against 12 i64: scanned first
    (((6, 64), (9, 1), (9, 64), (0,)), False, 64, False),  # Targets: a range's writes are not a tile's
])
def test_saves_tiles(shapes, fresh, index_bits, saves):
    """A donated input's tiles are saved (not its indices scanned first)
    where it is a Split over an owner dim and the saved bytes are no more
    than the scanned ones; never unchecked."""
    assert saves_tiles(plan_scatter(*shapes), fresh, index_bits) is saves
    assert not saves_tiles(plan_scatter(*shapes, checked=False), fresh, index_bits)


def test_unique_indices_split_along_an_axis_is_not_saved():
    """Unique indices split G's outermost dim even where it is an axis:
    a tile then writes anywhere along it, so no slice of the input is its
    own to save."""
    plan = plan_scatter((100,), (64,), (64,), (0,), unique_indices=True)
    assert plan.strategy == Split(0, 4) and not saves_tiles(plan, False, 64)


def test_rows_broadcast_indices_are_scanned_first():
    """Indices broadcast along the split dim (unique: any dim splits): a
    tile's are all of them, scanned once first."""
    plan = plan_scatter((64, 9), (1, 5), (64, 5), (1,), unique_indices=True)
    assert plan.strategy == Split(0, 1) and not scans_tile_by_tile(plan, True)


@pytest.mark.parametrize("argument, writable, copies", [
    (True, False, True),  # an entry point's argument, not donated
    (True, True, False),  # donated: updated in place
    (True, None, False),  # no mark: bufferization decides
    (False, None, False),  # computed in the function: in place when dead
])
def test_copies_input(argument, writable, copies):
    assert copies_input(argument, writable) is copies


def test_gathers_and_scatters_share_one_numbering_of_sites():
    """A module of a gather (line 2) and a scatter (line 3): a bad index of
    either is reported at its own op."""
    text = ("func.func @main(%x: tensor<5x3xf32>, %i: tensor<4x1xi64>, %j: tensor<4x1xi64>) -> tensor<5x3xf32> {\n"
            '  %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<5x3xf32>, tensor<4x1xi64>) '
            "-> tensor<4x3xf32>\n"
            '  %r = "gmx.scatter_multiaxis"(%x, %j, %g) {axes = array<i64: 0>} '
            ": (tensor<5x3xf32>, tensor<4x1xi64>, tensor<4x3xf32>) -> tensor<5x3xf32>\n"
            "  return %r : tensor<5x3xf32>\n}\n")
    program = gmx.runtime.compile(text)
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    rows, reversed_rows = np.array([[4], [3], [2], [1]]), np.array([[1], [2], [3], [4]])
    want = x.copy()
    want[1:] = x[:0:-1]
    assert_identical(program(x, rows, reversed_rows), want)
    with pytest.raises(IndexError, match=r"^-:2:\d+: index 5 is out of bounds"):
        program(x, np.array([[0], [5], [0], [0]]), rows)
    with pytest.raises(IndexError, match=r"^-:3:\d+: index -6 is out of bounds"):
        program(x, rows, np.array([[0], [-6], [0], [0]]))


def test_empty_axis_is_an_error_unless_dropped():
    cases = [Case((0, 3), (2, 1), (2, 3), (0,)), Case((0, 3), (2, 1), (2, 3), (0,), mode="drop")]
    x, i, u = np.zeros((0, 3), np.float32), np.zeros((2, 1), np.int64), np.ones((2, 3), np.float32)
    with pytest.raises(IndexError):
        gmx.runtime.compile(scatter_module(cases[:1]))(x, i, u)
    assert_identical(gmx.runtime.compile(scatter_module(cases[1:]))(x, i, u), x)


def test_complex_sums_are_refused_at_the_op():
    case = Case((4,), (2,), (2,), (0,), reduction="add", dtype=np.complex64)
    with pytest.raises(CompileError, match=r"-:2:.*'gmx.scatter_multiaxis' has no lowering: "
                                           r'reduction "add" on complex<f32> is not lowered yet'):
        gmx.runtime.compile(scatter_module([case]))


# -- the plan ----------------------------------------------------------------------------


@pytest.mark.parametrize("shapes, unique, strategy", [
    # torch.scatter along dim 1: rows
    (((4096, 1024), (4096, 1024), (4096, 1024), (1,)), False, Split(0, 1)),
    # GNN scatter_add / index_add of rows / x[i, :, j] = v: ranges of targets
    # (a range per 32 entries of payload, at most 16)
    (((10000, 64), (200000, 1), (200000, 64), (0,)), False, Targets(0, 2)),
    (((50000, 128), (8192, 1), (8192, 128), (0,)), False, Targets(0, 4)),
    # (from SORTED_PARTS ranges, the index tuples sorted by range first)
    (((50000, 1024), (8192, 1), (8192, 1024), (0,)), False, Targets(0, 16, sorted=True)),
    (((64, 256, 64), (2048, 1, 2), (2048, 256, 1), (0, 2)), False, Targets(0, 8, sorted=True)),
    (((5, 256, 64), (2048, 1, 2), (2048, 256, 1), (2, 0)), False, Targets(2, 8, sorted=True)),
    (((3, 1024), (100, 1), (100, 1024), (0,)), False, Targets(0, 3)),
    # ... not where the updates are too few to wake threads for (the sort is
    # serial, and the ranges would run in parallel whatever their work)
    (((16, 1024), (32, 1), (32, 1024), (0,)), False, Targets(0, 16)),
    # a KV cache's token rows: no more ranges than index values (one token:
    # its payload's columns instead, too little work to wake threads for)
    (((8, 32, 4096, 128), (1, 1, 1, 1), (8, 32, 1, 128), (2,)), False, Split(0, 1)),
    (((8, 32, 4096, 128), (1, 1, 4, 1), (8, 32, 4, 128), (2,)), False, Targets(2, 4)),
    # into one row: its columns, in as many tiles
    (((1, 64), (10, 1), (10, 64), (0,)), False, Split(1, 32)),
    # a payload too short to read the indices twice: serial
    (((50000, 8), (8192, 1), (8192, 8), (0,)), False, Serial()),
    (((50000, 8, 64), (8192, 1, 2), (8192, 8, 1), (0, 2)), False, Serial()),
    # rank 1, or a payload of one entry: nothing owns its writes
    (((100,), (50,), (50,), (0,)), False, Serial()),
    (((100, 1), (50, 1), (50, 1), (0,)), False, Serial()),
    # ... unless the indices are unique
    (((100,), (64,), (64,), (0,)), True, Split(0, 4)),
    # broadcast input rows are no owners
    (((1, 8), (6, 8), (6, 8), (1,)), False, Serial()),
    # nothing to scatter
    (((4, 3), (0, 1), (0, 3), (0,)), False, Serial()),
])
def test_plan_scatter(shapes, unique, strategy):
    assert plan_scatter(*shapes, unique_indices=unique).strategy == strategy


@pytest.mark.parametrize("parts, updates, sorts", [
    (SORTED_PARTS, 1 << 16, True),
    (16, 8192 * 1024, True),  # MoE combine
    (SORTED_PARTS - 1, 1 << 20, False),  # an embedding gradient's 4 ranges: read again
    (2, 65536 * 64, False),  # a GNN's 2 ranges: read again
    (16, (1 << 16) - 1, False),  # too little work for threads
])
def test_sorts_targets(parts, updates, sorts):
    assert sorts_targets(parts, updates) is sorts
