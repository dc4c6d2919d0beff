"""The numpy implementation of `gmx.reference.gather_multiaxis`; its
contract is the docstring of `gmx.reference`. The mappings (`mappings`)
build on it; neither imports the package itself."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from gmx.dialect.shapes import (
    coordinate_size,
    infer_output_shape,
    logical_indices_shape,
)


def gather_multiaxis(input, indices, axes: Sequence[int]) -> np.ndarray:
    """Gather `input` at the coordinate tuples of `indices` along `axes`.

    See the module docstring for the full contract.
    """
    input, indices = np.asarray(input), np.asarray(indices)
    axes = [operator.index(axis) for axis in axes]
    if not np.issubdtype(indices.dtype, np.integer):
        raise TypeError(
            f"indices must have an integer dtype, got {indices.dtype}"
        )
    out_shape = infer_output_shape(input.shape, indices.shape, axes)
    if input.ndim == 0:
        return input.copy()
    coords = _coordinates(indices, axes)
    grid = [_broadcast_grid(input.shape, out_shape, d) for d in range(input.ndim)]
    for j, axis in enumerate(axes):
        grid[axis] = _normalize(coords[..., j], input.shape[axis], axis)
    return input[tuple(grid)]


def _coordinates(indices: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """View `indices` as L + [c]: coordinate j of each tuple along the last dim."""
    logical = logical_indices_shape(indices.shape, axes)
    return indices.reshape(*logical, coordinate_size(axes))


def _broadcast_grid(input_shape, out_shape, dim: int) -> np.ndarray:
    """Open-grid index of a non-axis dim: 0..n-1, or all 0 where input has 1."""
    size = out_shape[dim]
    values = np.zeros(size, np.intp) if input_shape[dim] == 1 else np.arange(size)
    shape = [1] * len(out_shape)
    shape[dim] = size
    return values.reshape(shape)


def _normalize(values: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Wrap negative values once and check [0, size); intp result."""
    if values.dtype.kind == "u":
        wrapped = values
    else:
        wide = values.astype(np.int64)
        wrapped = np.where(wide < 0, wide + size, wide)
    bad = (wrapped < 0) | (wrapped >= size)
    if bad.any():
        v = int(values[bad].flat[0])
        raise IndexError(
            f"index {v} is out of bounds for axis {axis} with size {size}"
        )
    return wrapped.astype(np.intp, copy=False)
