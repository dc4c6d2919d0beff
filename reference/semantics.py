"""The numpy implementation of `gmx.reference.gather_multiaxis`; its
contract is the docstring of `gmx.reference`. The mappings (`mappings`)
build on it; neither imports the package itself."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from gmx.dialect.modes import DEFAULT_MODE, Mode, mode_rule, parse_mode
from gmx.dialect.shapes import (
    coordinate_size,
    infer_output_shape,
    logical_indices_shape,
)


def gather_multiaxis(input, indices, axes: Sequence[int], *, mode=DEFAULT_MODE, fill_value=None) -> np.ndarray:
    """Gather `input` at the coordinate tuples of `indices` along `axes`.

    `mode` ("raise", "wrap", "clip", "fill" or a `Mode`) says what an index
    outside its axis means; "fill" needs `fill_value`. See the module
    docstring for the full contract.
    """
    input, indices = np.asarray(input), np.asarray(indices)
    axes = [operator.index(axis) for axis in axes]
    mode = parse_mode(mode)
    rule = mode_rule(mode)
    if not np.issubdtype(indices.dtype, np.integer):
        raise TypeError(
            f"indices must have an integer dtype, got {indices.dtype}"
        )
    fill = _fill_scalar(input.dtype, mode, fill_value)
    out_shape = infer_output_shape(input.shape, indices.shape, axes)
    if input.ndim == 0:
        return input.copy()
    coords = _coordinates(indices, axes)
    grid = [_broadcast_grid(input.shape, out_shape, d) for d in range(input.ndim)]
    outside = np.zeros(coords.shape[:-1], bool)
    for j, axis in enumerate(axes):
        grid[axis], bad = _normalize(coords[..., j], input.shape[axis], axis, mode)
        outside |= bad
    if rule.reads_every_row:
        return input[tuple(grid)]
    if any(input.shape[axis] == 0 for axis in axes):
        return np.full(out_shape, fill, input.dtype)  # every tuple is outside
    return np.where(outside, fill, input[tuple(grid)]).astype(input.dtype, copy=False)


def _fill_scalar(dtype: np.dtype, mode, fill_value):
    """The fill value as a scalar of `dtype`; None outside fill mode."""
    if not mode_rule(mode).takes_fill_value:
        if fill_value is not None:
            raise ValueError(f"fill_value is only allowed with mode 'fill', got mode {str(mode)!r}")
        return None
    if fill_value is None:
        raise ValueError("mode 'fill' requires a fill_value")
    if dtype.kind in "iub":
        if isinstance(fill_value, bool | np.bool_):
            fill_value = int(fill_value)
        if isinstance(fill_value, float):
            if not fill_value.is_integer():
                raise ValueError(f"fill_value {fill_value!r} is not an integer, the dtype is {dtype}")
            fill_value = int(fill_value)
        as_int = operator.index(fill_value)
        if dtype.kind == "b":
            if as_int not in (0, 1):
                raise ValueError(f"fill_value must be 0 or 1 for a bool array, got {fill_value!r}")
            return np.bool_(as_int)
        info = np.iinfo(dtype)
        # A signless spelling: either the signed or the unsigned range of the width.
        if not min(info.min, -(1 << (info.bits - 1))) <= as_int <= max(info.max, (1 << info.bits) - 1):
            raise ValueError(f"fill_value {fill_value!r} does not fit {dtype}")
        return np.array(as_int & ((1 << info.bits) - 1), np.uint64).astype(dtype)
    return np.array(fill_value).astype(dtype)


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


def _normalize(values: np.ndarray, size: int, axis: int, mode: Mode = DEFAULT_MODE):
    """The positions `values` read on an axis of `size` under `mode` (intp),
    and where fill mode yields the fill value (a mask; all False otherwise).

    The arithmetic of `gmx.dialect.modes.normalize_index`, on arrays: the
    mode's row of `RULES`."""
    rule = mode_rule(mode)
    wide = values.astype(np.int64) if values.dtype.kind != "u" else values.astype(np.uint64)
    no_fill = np.zeros(values.shape, bool)
    if rule.empty_axis_is_error and size == 0 and values.size:
        v = int(values.flat[0])
        raise IndexError(
            f"index {v} is out of bounds for axis {axis} with size 0 (mode {mode})"
        )
    positions, outside = rule.normalise(wide, size)
    if rule.reports_index_errors and outside.any():
        v = int(values[outside].flat[0])
        raise IndexError(
            f"index {v} is out of bounds for axis {axis} with size {size}"
        )
    if rule.reads_every_row:
        return positions.astype(np.intp, copy=False), no_fill
    return np.where(outside, 0, positions).astype(np.intp), outside
