"""passes/raising/coordinates.py: the decisions taken without IR."""

from __future__ import annotations

import pytest

from gmx.passes.raising.coordinates import linearised_sizes


@pytest.mark.parametrize(
    "strides, total, sizes",
    [
        ([30, 6, 1], 120, [4, 5, 6]),  # the source's own dims
        ([8, 1], 24, [3, 8]),  # x.reshape(3, 8, 4)[i, j] on x of 24x4: a split of dim 0
        ([6, 1, 1], 24, [4, 6, 1]),  # a trailing unit dim: two strides equal
        ([5, 5, 1], 20, [4, 1, 5]),  # a unit dim in the middle
        ([1, 1], 10, [10, 1]),  # every stride 1 (torch-mlir leaves the mul out)
        ([1], 7, [7]),
        ([4, 1], 6, None),  # 4 does not divide 6
        ([3, 2], 6, None),  # the last stride is not 1
        ([2, 4, 1], 8, None),  # 4 does not divide 2: not row-major
        ([0, 1], 6, None),
        ([], 6, None),
    ],
)
def test_linearised_sizes(strides, total, sizes):
    assert linearised_sizes(strides, total) == sizes
