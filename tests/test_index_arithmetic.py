"""The decisions of --gmx-canonicalize about index values the user computed,
without IR: which sums are linearisations (`coordinates.exact_split`), what
a frontend's negative-index normalisation is, and which constant coordinate
produces a broadcast output dim."""

from __future__ import annotations

import numpy as np

from gmx.passes.raising.coordinates import IN_RANGE, NORMALISED, UNKNOWN, exact_split
from gmx.passes.raising.gather_spec import Indexed, Iota, Zero
from gmx.passes.raising.gmx_canonicalize import broadcast_dims, broadcast_index_candidates
from gmx.passes.raising.index_values import normalises_negative_indices, wrap_to_width

# a (3, 4) input flattened: row stride 4, column stride 1
SIZES = {4: 3, 1: 4}


def test_a_coordinate_per_stride_splits():
    # ONNX GatherND: both coordinates normalised for their dims
    assert exact_split([(4, NORMALISED), (1, NORMALISED)], SIZES)
    # i * 4 + arange(4): the low term is known to be a column
    assert exact_split([(4, UNKNOWN), (1, IN_RANGE)], SIZES)


def test_the_users_terms_do_not_split():
    # i * 4 + j: j = 5 is a valid flat index and no column
    assert not exact_split([(4, UNKNOWN), (1, UNKNOWN)], SIZES)
    # index_select(0, i + j) under a row stride of 4: both terms at 4
    assert not exact_split([(4, UNKNOWN), (4, UNKNOWN)], SIZES)
    # index_select(0, i * 3): 12 is no stride of the input
    assert not exact_split([(12, UNKNOWN)], SIZES)
    assert not exact_split([(12, IN_RANGE), (4, UNKNOWN)], SIZES)


def test_a_normalisation_maps_valid_indices_to_positions():
    size = 5
    assert normalises_negative_indices(lambda t: np.where(t < 0, t + size, t), size)
    # a narrowing cast around it changes nothing on [-size, size)
    assert normalises_negative_indices(lambda t: wrap_to_width(np.where(t < 0, t + size, t), 32), size)
    assert not normalises_negative_indices(lambda t: t, size)  # the identity keeps negatives
    assert not normalises_negative_indices(lambda t: np.where(t < 0, t + 4, t), size)  # another dim's
    assert not normalises_negative_indices(lambda t: np.where(t < 0, t + size, t), 0)


def test_broadcast_dims_are_produced_by_no_coordinate():
    # w[arange(8).expand(2, 8)] on (10, 4): the iotas give the 8 and the 4
    assert broadcast_dims([Iota(1), Iota(2)], [2, 8, 4]) == [0]
    # an index tensor spanning the 2 produces it
    index = Indexed(None, (2, 8, 1))
    assert broadcast_dims([index, Iota(2)], [2, 8, 4]) == []
    assert broadcast_dims([Zero(), Iota(1)], [1, 4]) == []


def test_the_broadcast_index_is_the_iota_after_the_broadcast_dims():
    # w[arange(8).expand(2, 8)]: the rows' iota (output dim 1), not the columns'
    assert broadcast_index_candidates([Iota(1), Iota(2)], [2, 8, 4], [10, 4])[0] == 0
    # x[:, arange(3).expand(2, 3)]: out (4, 2, 3, 6), the middle iota
    assert broadcast_index_candidates([Iota(0), Iota(2), Iota(3)], [4, 2, 3, 6], [4, 5, 6])[0] == 1
    # a zero on a unit dim cannot produce anything; on a real dim it can, last
    assert broadcast_index_candidates([Zero(), Iota(1)], [3, 4], [1, 4]) == [1]
    assert broadcast_index_candidates([Zero(), Iota(1)], [3, 4], [5, 4]) == [1, 0]
