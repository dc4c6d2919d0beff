"""The decisions every index check makes (`passes/lowering/index_checks.py`),
on static values, where they are the decision alone: the IREE runtime's
reading of a report (`IndexReport`) uses them so, the builders and checks
on IR values."""

from __future__ import annotations

import numpy as np
import pytest

from gmx.dialect.modes import RULES, Mode
from gmx.passes.lowering.folding import Folder
from gmx.passes.lowering.index_checks import by_coordinate, coordinate_at, empty_axis_ok, in_range
from gmx.passes.lowering.iree_reports import IndexReport
from gmx.passes.lowering.runtime_abi import SHAPE_ERROR_EMPTY_AXIS

STATIC = Folder(None)  # ints only: nothing is built
VALUES = range(-9, 10)


@pytest.mark.parametrize("size", [0, 1, 3, 8])
def test_in_range_is_the_mode_tables_raise(size):
    """Where negatives wrap once, a value is on its axis exactly where
    "raise" (the mode table) maps it inside; else exactly in [0, size)."""
    if size:
        _, outside = RULES[Mode.RAISE].normalise(np.array(VALUES, np.int64), size)
        assert [in_range(STATIC, v, size, negatives_wrap=True) for v in VALUES] == list(~outside)
    assert [in_range(STATIC, v, size) for v in VALUES] == [0 <= v < size for v in VALUES]
    huge = 2**63  # as i64: negative, never on an axis
    assert not in_range(STATIC, huge, size) and not in_range(STATIC, huge, size, negatives_wrap=True)


def test_the_coordinate_runs_over_the_last_dim():
    """The value at row-major position p of indices whose last dim holds
    tuples of k coordinates is coordinate p mod k, and indexes its axis."""
    assert [coordinate_at(STATIC, p, 3) for p in range(7)] == [0, 1, 2, 0, 1, 2, 0]
    assert coordinate_at(STATIC, 5, 1) == 0
    axes, sizes = (2, 0, 1), (7, 4, 5)
    for p in range(6):
        assert by_coordinate(STATIC, coordinate_at(STATIC, p, 3), axes, sizes) == [axes[p % 3], sizes[p % 3]]
        assert IndexReport(site=4, axes=axes).axis_at(p) == axes[p % 3]


def test_an_empty_axis_is_an_error_only_where_something_is_read():
    assert empty_axis_ok(STATIC, 3, False) and empty_axis_ok(STATIC, 0, True)
    assert not empty_axis_ok(STATIC, 0, False)


def test_an_iree_report_raises_what_the_engine_raises():
    """A full report's first bad value: an index error on its axis, or,
    where that axis is empty under an output with elements, the engine's
    empty-axis shape error (an empty output: the index error)."""
    report = IndexReport(site=2, axes=(1, 0))
    assert report.error(first=3, value=7, size=5, elements=6) == (False, (2, 0, 7, 5))
    assert report.error(first=2, value=0, size=0, elements=6) == (True, (2, SHAPE_ERROR_EMPTY_AXIS, 1, 0))
    assert report.error(first=2, value=0, size=0, elements=0) == (False, (2, 1, 0, 0))
