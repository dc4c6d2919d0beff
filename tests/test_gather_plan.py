"""gather_plan: how each dim is read, the run-time checks, and the strategy
of a gather's lowering, decided from shapes alone (no IR)."""

import pytest

from gmx.passes.lowering.gather_plan import (
    COLUMN_TILE_BYTES,
    TILE_ELEMENTS,
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
        pytest.param([4, 3], [2, 3], [0], True, Flagged(), id="elementwise"),
        pytest.param([4, 3], [2, 3], [0], False, Whole(), id="unchecked"),
        pytest.param([None, 3], [2, 3], [0], True, Whole(), id="dynamic"),
        pytest.param([4, 3], [0, 3], [0], True, Whole(), id="empty-output"),
        pytest.param([4, 3], [2, 1], [0], True, Whole(), id="indices-broadcast-along-rows"),
        pytest.param([4, 1], [2, 3], [0], True, Flagged(), id="input-broadcast"),
        pytest.param([4, 3], [4, 3], [], True, Whole(), id="no-axes-no-check"),
    ],
)
def test_flagged(input_shape, indices_shape, axes, checked, expected):
    assert strategy(input_shape, indices_shape, axes, checked=checked) == expected


# Row tiles: checked gathers of more than TILE_ELEMENTS outputs whose indices
# run along dim 0; the height is the largest divisor of dim 0 that fits.
@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, checked, expected",
    [
        pytest.param([64, 50, 512], [64, 8, 1], [1], True, RowTiles(8), id="tiled"),
        pytest.param([64, 50, 512], [64, 1, 1], [1], True, Whole(), id="exactly-one-tile"),
        pytest.param([65, 50, 512], [65, 1, 1], [1], True, RowTiles(13), id="one-row-more-divisor"),
        pytest.param([67, 50, 512], [67, 1, 1], [1], True, RowTiles(1), id="prime-rows"),
        pytest.param([64, 50, 512], [1, 8, 1], [1], True, Whole(), id="indices-broadcast-along-dim-0"),
        pytest.param([64, 50, 512], [64, 8, 1], [1], False, Whole(), id="unchecked"),
        pytest.param([64, 50, 512], [None, 8, 1], [1], True, Whole(), id="dynamic"),
    ],
)
def test_row_tiles(input_shape, indices_shape, axes, checked, expected):
    assert 64 * 512 == TILE_ELEMENTS  # the thresholds above are in its terms
    assert strategy(input_shape, indices_shape, axes, checked=checked) == expected


def test_row_tiles_need_two_dims():
    plan = plan_gather([TILE_ELEMENTS * 4], [TILE_ELEMENTS * 2], [0], checked=True)
    assert rows_per_tile(plan) is None
    assert plan.strategy == Flagged()


# Column tiles (x[i, :, j]): the innermost wide output dim is kept from the
# input, read at least COLUMN_TILE_BYTES apart, and wider than one tile.
@pytest.mark.parametrize(
    "input_shape, indices_shape, axes, element_bits, checked, expected",
    [
        pytest.param([8, 64, 32], [4, 1, 2], [0, 2], 32, True, ColumnTiles(1, 32), id="tiled"),
        pytest.param([8, 64, 32], [4, 1, 2], [0, 2], 32, False, ColumnTiles(1, 32), id="unchecked"),
        pytest.param([8, 64, 31], [4, 1, 2], [0, 2], 32, True, Whole(), id="read-less-than-128-bytes-apart"),
        pytest.param([8, 64, 16], [4, 1, 2], [0, 2], 64, True, ColumnTiles(1, 16), id="f64-128-bytes"),
        pytest.param([8, 64, 16], [4, 1, 2], [0, 2], 32, True, Whole(), id="f32-64-bytes"),
        pytest.param([8, 32, 32], [4, 1, 2], [0, 2], 32, True, Whole(), id="one-tile-wide"),
        pytest.param([8, 67, 32], [4, 1, 2], [0, 2], 32, True, Whole(), id="no-divisor"),
        pytest.param([8, 64, 32], [1, 1, 2], [0, 2], 32, True, Whole(), id="one-row"),
        pytest.param([8, 64, 32], [4, 64, 2], [0, 2], 32, True, Flagged(), id="indices-vary-along-it"),
        pytest.param([8, 64, 32], [4, 64, 2], [0, 2], 32, False, Whole(), id="indices-vary-unchecked"),
        pytest.param([8, 256, 128], [4, 1, 2], [0, 2], 8, True, ColumnTiles(1, 128), id="i8-128-bytes"),
        pytest.param([8, 256, 127], [4, 1, 2], [0, 2], 8, True, Whole(), id="i8-127-bytes"),
        pytest.param([8, 96, 32], [40, 1, 2], [0, 2], 32, True, ColumnTiles(1, 32), id="smallest-divisor"),
        pytest.param([6, 64, 40], [7, 1, 2], [2, 0], 32, True, ColumnTiles(1, 32), id="permuted-axes"),
    ],
)
def test_column_tiles(input_shape, indices_shape, axes, element_bits, checked, expected):
    assert COLUMN_TILE_BYTES == 128  # the thresholds above are in its terms
    assert strategy(input_shape, indices_shape, axes, element_bits, checked) == expected


def test_column_tiles_need_axes():
    assert column_tiles(plan_gather([8, 64, 32], [8, 64, 32], [])) is None


# -- out-of-range modes ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["wrap", "clip", "fill"])
def test_modes_check_no_index_and_are_never_flagged_or_row_tiled(mode):
    """Only "raise" makes an index value an error, so the other modes have
    nothing to scan: the strategies that exist for the scan are not taken."""
    assert strategy([4, 3], [2, 3], [0]) == Flagged()
    assert strategy([64, 50, 512], [64, 8, 1], [1]) == RowTiles(8)
    for shapes in (([4, 3], [2, 3], [0]), ([64, 50, 512], [64, 8, 1], [1])):
        plan = plan_gather(*shapes, mode=mode)
        assert not plan.checks_indices and plan.strategy == Whole()
    assert plan_gather([8, 64, 32], [4, 1, 2], [0, 2], mode=mode).strategy == ColumnTiles(1, 32)


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
