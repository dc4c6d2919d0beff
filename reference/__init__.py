"""gmx.reference: the numpy reference semantics of `gmx.gather_multiaxis`.

Contract of `gather_multiaxis(input, indices, axes)` (docs/semantics.md):

- `input`, `indices` and the result have the same rank r (r = 0: `axes` is
  empty and the result is a copy of `input`).
- `axes` are unique, each in [0, r), in any order; c = max(len(axes), 1).
- The last dim of `indices` is a multiple of c; the logical indices shape L is
  `indices.shape` with that dim divided by c. Coordinate j of the tuple at
  logical position q is `indices[q[0], ..., q[r-2], q[r-1] * c + j]` and
  indexes dim `axes[j]` of `input`.
- Dims not in `axes` broadcast bidirectionally between `input` and L (equal,
  or one of them 1); dims in `axes` take their size from L.
- `output[o] = input[p]` with `p[d] = o[d]` (0 where `input.shape[d] == 1`)
  for d not in axes, and `p[axes[j]]` = coordinate j of the tuple at
  `q[d] = o[d]` (0 where `L[d] == 1`).
- `indices` must have an integer dtype (TypeError otherwise). A negative
  value v is wrapped once to `v + input.shape[axis]`; a value still outside
  [0, input.shape[axis]) raises IndexError. Every coordinate in `indices` is
  checked, even where the result is empty. With empty `axes` the index
  values are ignored (c = 1 element per logical position, read by no one).
- Shape violations raise `gmx.dialect.shapes.GatherShapeError` (a ValueError).
- The result is a new array with the dtype of `input`; no broadcast copy of
  `input` is ever made (open index grids, numpy advanced indexing).

The mappings of the known gathers onto it live in `gmx.reference.mappings`
and are re-exported here.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from gmx.dialect.shapes import (
    GatherShapeError,
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


from .mappings import (  # noqa: E402  (mappings import gather_multiaxis)
    GatherPlan,
    apply_plan,
    gather_elements,
    gather_elements_plan,
    gather_nd,
    gather_nd_plan,
    onnx_gather,
    onnx_gather_plan,
    torch_take,
    torch_take_plan,
)

__all__ = [
    "GatherPlan",
    "GatherShapeError",
    "apply_plan",
    "gather_elements",
    "gather_elements_plan",
    "gather_multiaxis",
    "gather_nd",
    "gather_nd_plan",
    "onnx_gather",
    "onnx_gather_plan",
    "torch_take",
    "torch_take_plan",
]
