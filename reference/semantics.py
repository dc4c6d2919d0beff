"""The numpy implementations of `gmx.reference.gather_multiaxis` and
`scatter_multiaxis`; their contract is the docstring of `gmx.reference`.
Both stand on one position map, `positions`: the input position `p(o)`
each output position `o` of the gather reads, which is where the scatter
of the same operands writes. The mappings (`mappings`) build on them;
neither imports the package itself."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from gmx.dialect.modes import DEFAULT_MODE, Mode, OpKind, mode_rule, parse_mode
from gmx.dialect.reductions import DEFAULT_REDUCTION, parse_reduction, reduction_rule
from gmx.dialect.shapes import (
    check_updates_shape,
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
    mode = parse_mode(mode, OpKind.GATHER)
    rule = mode_rule(mode)
    _check_index_dtype(indices)
    fill = _fill_scalar(input.dtype, mode, fill_value)
    out_shape = infer_output_shape(input.shape, indices.shape, axes)
    if input.ndim == 0:
        return input.copy()
    grid, outside = positions(input.shape, out_shape, indices, axes, mode)
    if rule.reads_every_row:
        return input[tuple(grid)]
    if any(input.shape[axis] == 0 for axis in axes):
        return np.full(out_shape, fill, input.dtype)  # every tuple is outside
    return np.where(outside, fill, input[tuple(grid)]).astype(input.dtype, copy=False)


def scatter_multiaxis(input, indices, updates, axes: Sequence[int], mode=DEFAULT_MODE,
                      reduction=DEFAULT_REDUCTION) -> np.ndarray:
    """A new array: `input` with each update combined, in row-major order of
    the updates, into the position the gather of the same `input`,
    `indices` and `axes` reads. See the package docstring for the contract."""
    input, indices, updates = np.asarray(input), np.asarray(indices), np.asarray(updates)
    axes = [operator.index(axis) for axis in axes]
    mode = parse_mode(mode, OpKind.SCATTER)
    combine = reduction_rule(parse_reduction(reduction))
    _check_index_dtype(indices)
    if updates.dtype != input.dtype:
        raise TypeError(f"updates must have the dtype of input, {input.dtype}, got {updates.dtype}")
    if input.dtype.kind == "b" and not combine.takes_i1:
        raise ValueError(f"reduction {combine.reduction.value!r} is not defined on bool")
    if input.dtype.kind == "c" and combine.needs_order:
        raise ValueError(f"reduction {combine.reduction.value!r} needs ordered elements, got {input.dtype}")
    gathered_shape = infer_output_shape(input.shape, indices.shape, axes)
    check_updates_shape(gathered_shape, updates.shape)
    result = input.copy()
    if input.ndim == 0:
        where, values = (), updates  # the one position, the one update
    else:
        grid, outside = positions(input.shape, gathered_shape, indices, axes, mode)
        written = ~np.broadcast_to(outside, gathered_shape).reshape(-1)
        where = tuple(np.broadcast_to(g, gathered_shape).reshape(-1)[written] for g in grid)
        values = np.broadcast_to(updates, gathered_shape).reshape(-1)[written]
    if combine.ufunc is not None:
        with np.errstate(invalid="ignore"):  # NaN meeting max/min is defined: it propagates
            combine.ufunc.at(result, where, values)  # unbuffered, in order: np.add.at's bits
    else:
        last = _last_of_each_position(where, input.shape)
        result[tuple(w[last] for w in where)] = np.asarray(values)[last] if where else values
    return result


def _last_of_each_position(where: tuple, shape) -> np.ndarray:
    """Where the last update of each written position sits in the flat
    update order: numpy's fancy assignment leaves the winner of duplicates
    unspecified, so the reference picks the row-major last itself."""
    if not where:
        return np.zeros(0, np.intp)
    linear = np.ravel_multi_index(where, shape)
    _, first_from_end = np.unique(linear[::-1], return_index=True)
    return len(linear) - 1 - first_from_end


def positions(input_shape, out_shape, indices: np.ndarray, axes: Sequence[int], mode: Mode):
    """The position map of both ops: `(grid, outside)`, where `grid[d]` is an
    open grid (broadcastable to `out_shape`) of the input position
    `p(o)[d]` that output position `o` of the gather reads (a scatter:
    writes), and `outside` (broadcastable to `out_shape`) marks the
    coordinate tuples outside their axes (fill: the fill value; drop: the
    update is skipped). Raises IndexError where `mode` makes an index an error."""
    coords = _coordinates(indices, axes)
    grid = [_broadcast_grid(input_shape, out_shape, d) for d in range(len(input_shape))]
    outside = np.zeros(coords.shape[:-1], bool)
    for j, axis in enumerate(axes):
        grid[axis], bad = _normalize(coords[..., j], input_shape[axis], axis, mode)
        outside |= bad
    return grid, outside


def _check_index_dtype(indices: np.ndarray) -> None:
    if not np.issubdtype(indices.dtype, np.integer):
        raise TypeError(
            f"indices must have an integer dtype, got {indices.dtype}"
        )


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
