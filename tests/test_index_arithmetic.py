"""The decisions of --gmx-canonicalize about index values the user computed,
without IR: which sums are linearisations (`coordinates.exact_split`) and
what a frontend's negative-index normalisation is."""

from __future__ import annotations

import numpy as np

from gmx.passes.raising.coordinates import IN_RANGE, NORMALISED, UNKNOWN, exact_split
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

