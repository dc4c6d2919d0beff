"""passes/raising/coordinates.py and linear_indices.py: the decisions taken without IR."""

from __future__ import annotations

import numpy as np
import pytest

from gmx.passes.raising.coordinates import row_major_iota_sizes
from gmx.passes.raising.linear_indices import linearised_sizes


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


@pytest.mark.parametrize(
    "array, sizes",
    [
        (np.array([[0, 1], [2, 3]]), [2, 2]),  # batch 4 split 2 x 2 by a merge of the result
        (np.arange(12).reshape(1, 3, 1, 4), [3, 4]),  # unit dims are broadcast dims
        (np.array([[0, 2], [1, 3]]), None),  # column-major
        (np.array([[1, 0], [3, 2]]), None),  # not an iota
        (np.arange(4).reshape(1, 4), None),  # one dim: a plain iota (`Iota`)
        (np.array([[0, 1], [2, 4]]), None),
    ],
)
def test_row_major_iota_sizes(array, sizes):
    assert row_major_iota_sizes(array) == sizes
