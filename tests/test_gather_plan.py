"""gather_plan: how each dim is read, the run-time checks, and the strategy
of a gather's lowering, decided from shapes alone (no IR)."""

import pytest

from gmx.passes.lowering.gather_plan import (
    CACHE_LINE_BYTES,
    MAX_SLABS,
    TILE_INDICES,
    Access,
    ColumnTiles,
    Flagged,
    RowTiles,
    Whole,
    column_tiles,
    plan_gather,
    rows_per_tile,
)


@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, input_access, indices_access, checks",
    [
        ([4, 3], [2, 1], [0], [None, Access.ITER], [Access.ITER, Access.ZERO], ()),
        ([1, 5], [3, 2], [1], [Access.ZERO, None], [Access.ITER, Access.ITER], ()),
        ([None, 3], [2, 3], [0], [None, Access.ITER], [Access.ITER, Access.ITER], ()),
        ([None, None], [None, None], [1], [Access.RUNTIME, None], [Access.RUNTIME, Access.ITER], (0,)),
        ([None, 4], [1, 2], [1], [Access.ITER, None], [Access.ZERO, Access.ITER], ()),
    ],
)
def test_read_plan(input_shape, indices_shape, axes, input_access, indices_access, checks):
    plan = plan_gather(input_shape, indices_shape, axes)
    assert list(plan.input_access) == input_access
    assert list(plan.indices_access) == indices_access
    assert plan.broadcast_checks == checks


def test_read_plan_runtime_checks():
    plan = plan_gather([None, 5, 6], [3, 1, None], [2, 0])
    assert plan.divisibility_check
    assert plan.nonempty_axis_checks == (0,)
    assert plan.indices_by_map


def test_plan_output_shape_and_static():
    plan = plan_gather([4, 5, 6], [3, 1, 4], [2, 0])
    assert plan.output_shape == (3, 5, 2)
    assert plan.logical_shape == (3, 1, 2)
    assert plan.static
    assert not plan_gather([4, 3], [None, 3], [0]).static


# -- strategies -------------------------------------------------------------------------


def strategy(input_shape, indices_shape, axes, element_bits=32, checked=True):
    return plan_gather(input_shape, indices_shape, axes, element_bits=element_bits, checked=checked).strategy


# Elementwise (the indices vary along the innermost wide output dim): checked
# while gathering, when static and non-empty.
@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, checked, expected",
    [
        pytest.param([4, 3], [2, 3], [0], True, Flagged(2), id="elementwise"),
        pytest.param([4, 3], [2, 3], [0], False, Whole(), id="unchecked"),
        pytest.param([None, 3], [2, 3], [0], True, Whole(), id="dynamic"),
        pytest.param([4, 3], [0, 3], [0], True, Whole(), id="empty-output"),
        pytest.param([4, 3], [2, 1], [0], True, Whole(), id="indices-broadcast-along-rows"),
        pytest.param([4, 1], [2, 3], [0], True, Flagged(2), id="input-broadcast"),
        pytest.param([4, 3], [4, 3], [], True, Whole(), id="no-axes-no-check"),
    ],
)
def test_flagged(input_shape, indices_shape, axes, checked, expected):
    assert strategy(input_shape, indices_shape, axes, checked=checked) == expected


# Row tiles: checked gathers of more than TILE_INDICES index values that
# run along dim 0; the height is the largest divisor of dim 0 whose rows'
# indices fit in a tile.
@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, checked, expected",
    [
        pytest.param([64, 50, 8], [64, 1024, 1], [1], True, RowTiles(32), id="tiled"),
        pytest.param([32, 50, 8], [32, 1024, 1], [1], True, Whole(), id="exactly-one-tile"),
        pytest.param([33, 50, 8], [33, 1024, 1], [1], True, RowTiles(11), id="one-row-more-divisor"),
        pytest.param([37, 50, 8], [37, 1024, 1], [1], True, RowTiles(1), id="prime-rows"),
        pytest.param([64, 50, 8], [1, 1024, 1], [1], True, Whole(), id="indices-broadcast-along-dim-0"),
        pytest.param([64, 50, 8], [64, 1024, 1], [1], False, Whole(), id="unchecked"),
        pytest.param([64, 50, 8], [None, 1024, 1], [1], True, Whole(), id="dynamic"),
        # a block gather: 16384 indices of 256 outputs each, scanned whole
        pytest.param([50000, 256], [16384, 1], [0], True, Whole(), id="few-indices-many-outputs"),
    ],
)
def test_row_tiles(input_shape, indices_shape, axes, checked, expected):
    assert 32 * 1024 == TILE_INDICES  # the thresholds above are in its terms
    assert strategy(input_shape, indices_shape, axes, checked=checked) == expected


def test_row_tiles_need_two_dims():
    plan = plan_gather([TILE_INDICES * 4], [TILE_INDICES * 2], [0], checked=True)
    assert rows_per_tile(plan) is None
    assert isinstance(plan.strategy, Flagged)


# Column tiles (x[i, :, j]): the innermost wide output dim is kept from the
# input and read at least a cache line apart; rows are bucketed by the slab
# (input dims before it) they read, and a tile is one cache line of output
# per row, or the largest divisor of the dim below it.
@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, element_bits, checked, expected",
    [
        pytest.param([8, 64, 32], [4, 1, 2], [0, 2], 32, True, ColumnTiles(1, 16, 8), id="tiled"),
        pytest.param([8, 64, 32], [4, 1, 2], [0, 2], 32, False, ColumnTiles(1, 16, 8), id="unchecked"),
        pytest.param([8, 64, 15], [4, 1, 2], [0, 2], 32, True, Whole(), id="read-less-than-a-line-apart"),
        pytest.param([8, 64, 16], [4, 1, 2], [0, 2], 32, True, ColumnTiles(1, 16, 8), id="f32-a-line-apart"),
        pytest.param([8, 64, 8], [4, 1, 2], [0, 2], 64, True, ColumnTiles(1, 8, 8), id="f64-line-of-8"),
        pytest.param([8, 8, 32], [4, 1, 2], [0, 2], 32, True, ColumnTiles(1, 8, 8), id="narrower-than-a-line"),
        pytest.param([8, 40, 32], [4, 1, 2], [0, 2], 32, True, ColumnTiles(1, 10, 8), id="divisor-below-a-line"),
        pytest.param([8, 67, 32], [4, 1, 2], [0, 2], 32, True, ColumnTiles(1, 1, 8), id="prime"),
        pytest.param([8, 64, 32], [1, 1, 2], [0, 2], 32, True, Whole(), id="one-row"),
        pytest.param([8, 64, 32], [4, 64, 2], [0, 2], 32, True, Flagged(4), id="indices-vary-along-it"),
        pytest.param([8, 64, 32], [4, 64, 2], [0, 2], 32, False, Whole(), id="indices-vary-unchecked"),
        pytest.param([8, 256, 64], [4, 1, 2], [0, 2], 8, True, ColumnTiles(1, 64, 8), id="i8-line-of-64"),
        pytest.param([8, 256, 63], [4, 1, 2], [0, 2], 8, True, Whole(), id="i8-63-bytes"),
        pytest.param([6, 64, 40], [7, 1, 2], [2, 0], 32, True, ColumnTiles(1, 16, 6), id="permuted-axes"),
        # the slab of a row is every input dim before the tiled one, kept ones too
        pytest.param([4, 6, 16, 32], [5, 6, 1, 2], [0, 3], 32, True, ColumnTiles(2, 16, 24), id="kept-dim-in-slab"),
        pytest.param([1, 64, 32], [5, 1, 1], [2], 32, True, ColumnTiles(1, 16, 1), id="one-slab"),
        pytest.param([MAX_SLABS + 1, 2, 16], [4, 1, 2], [0, 2], 32, True, Whole(), id="too-many-slabs"),
    ],
)
def test_column_tiles(input_shape, indices_shape, axes, element_bits, checked, expected):
    assert CACHE_LINE_BYTES == 64  # the thresholds above are in its terms
    assert strategy(input_shape, indices_shape, axes, element_bits, checked) == expected


def test_column_tiles_need_axes():
    assert column_tiles(plan_gather([8, 64, 32], [8, 64, 32], [])) is None


# -- out-of-range modes ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["wrap", "clip", "fill"])
def test_modes_check_no_index_and_are_never_flagged_or_row_tiled(mode):
    """Only "raise" makes an index value an error, so the other modes have
    nothing to scan: the strategies that exist for the scan are not taken."""
    assert strategy([4, 3], [2, 3], [0]) == Flagged(2)
    assert strategy([64, 50, 8], [64, 1024, 1], [1]) == RowTiles(32)
    for shapes in (([4, 3], [2, 3], [0]), ([64, 50, 8], [64, 1024, 1], [1])):
        plan = plan_gather(*shapes, mode=mode)
        assert not plan.checks_indices and plan.strategy == Whole()
    # Column tiles read every row's slab: "fill" rows outside the input read nothing.
    tiles = ColumnTiles(1, 16, 8) if mode != "fill" else Whole()
    assert plan_gather([8, 64, 32], [4, 1, 2], [0, 2], mode=mode).strategy == tiles


def test_empty_axis_rules_per_mode():
    """An axis that may be empty: a shape error unless nothing is read
    ("raise": the output is empty; "wrap"/"clip": no index values), all
    fill values in "fill"."""
    raise_plan = plan_gather([None, 5], [3, 1], [0])
    assert raise_plan.nonempty_axis_checks == (0,) and not raise_plan.empty_axis_needs_indices
    for mode in ("wrap", "clip"):
        plan = plan_gather([None, 5], [3, 1], [0], mode=mode)
        assert plan.nonempty_axis_checks == (0,) and plan.empty_axis_needs_indices and plan.fill_axes == ()
    fill = plan_gather([None, 5], [3, 1], [0], mode="fill")
    assert fill.nonempty_axis_checks == () and fill.fill_axes == (0,)
    assert plan_gather([4, 5], [3, 1], [0], mode="fill").fill_axes == ()


def test_iree_cpu_tiles_hold_whole_rows():
    """IREE's CPU workgroups: whole output rows, then outer entries up to
    IREE_WORKGROUP_BYTES, innermost first; one cache line of vector."""
    from gmx.passes.lowering.gather_plan import IREE_WORKGROUP_BYTES, iree_cpu_tiles

    per_workgroup = IREE_WORKGROUP_BYTES // 4  # f32 outputs
    embedding = iree_cpu_tiles((256, 128, 128), 32)
    assert embedding.distribution == (per_workgroup // (128 * 128), 128, 128)
    assert embedding.vector == (1, 1, 16)
    assert iree_cpu_tiles((16384, 256), 32).distribution == (per_workgroup // 256, 256)
    assert iree_cpu_tiles((64, 1024, 64), 32).distribution == (1, per_workgroup // 64, 64)  # a dim cut: outer ones 1
    assert iree_cpu_tiles((1 << 20,), 32).distribution == (per_workgroup,)  # a row over the budget is cut
    assert iree_cpu_tiles((4, 100), 8).vector == (1, 64)  # i8: 64 per line
    assert iree_cpu_tiles((3, 5), 32).vector == (1, 4)  # a power of two within the row
    for shape in [(), (None, 4), (0, 4)]:
        assert iree_cpu_tiles(shape, 32) is None
