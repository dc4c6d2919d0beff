"""gmx.reference: the numpy reference semantics of `gmx.gather_multiaxis`
and `gmx.scatter_multiaxis`.

Contract of `gather_multiaxis(input, indices, axes, *, mode="raise",
fill_value=None)` (docs/semantics.md):

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
- `mode` says what an index outside its axis means
  (`gmx.dialect.modes`): "raise" as above; "wrap" floor modulo of the axis
  size (numpy `take(mode='wrap')`); "clip" clamp to [0, size-1]; "fill"
  wrap negatives once, then an index outside the axis yields `fill_value`
  (required, cast to the dtype of `input`; an integer dtype needs an integer
  value in its signed or unsigned range). An axis of size 0 with index
  values present raises IndexError in every mode but fill.
- Shape violations raise `gmx.dialect.shapes.GatherShapeError` (a ValueError).
- The result is a new array with the dtype of `input`; no broadcast copy of
  `input` is ever made (open index grids, numpy advanced indexing).

Contract of `scatter_multiaxis(input, indices, updates, axes, mode="raise",
reduction="none")` (docs/semantics.md#scatters), on the same rules:

- Let G be the shape `gather_multiaxis(input, indices, axes)` would have.
  `updates` has rank r and each dim G[d] or 1 (a unit dim broadcasts), and
  the dtype of `input` (TypeError otherwise).
- The result is a new array: a copy of `input`; then, for every position
  o of G in row-major order, with p the position the gather reads for o,
  `result[p] = combine(result[p], updates[o'])` (o' = o with broadcast dims
  at 0). `reduction` "none" replaces (the last update in row-major order
  wins), "add", "mul", "max", "min" combine in that order (`ufunc.at`:
  float sums equal `np.add.at` bit for bit; max and min propagate NaN).
  "add" and "mul" on bool, and "max"/"min" on complex, raise ValueError.
- `mode` "raise", "wrap", "clip" as for the gather; "drop" wraps a negative
  value once and skips an update whose position is still outside; "skip"
  skips an update whose value is outside [0, size), negative ones too. In
  "raise" an index out of range raises IndexError and nothing is returned;
  `input` is never modified. "fill" is no scatter mode (ValueError).

The mappings of the known gathers onto it live in `gmx.reference.mappings`,
those of the known scatters in `gmx.reference.scatter_mappings` (the same
`ReshapePlan`s around the scatter); both are re-exported here.
"""

from gmx.dialect.shapes import GatherShapeError, ScatterShapeError, ShapeError

from .mappings import (
    ReshapePlan,
    advanced_index,
    advanced_index_plan,
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
from .scatter_mappings import *  # noqa: F403  (its __all__: one name per known scatter)
from .scatter_mappings import __all__ as _SCATTER_MAPPINGS
from .semantics import gather_multiaxis, scatter_multiaxis

__all__ = [
    *_SCATTER_MAPPINGS,
    "ReshapePlan",
    "advanced_index",
    "advanced_index_plan",
    "GatherShapeError",
    "ScatterShapeError",
    "ShapeError",
    "apply_plan",
    "gather_elements",
    "gather_elements_plan",
    "gather_multiaxis",
    "gather_nd",
    "gather_nd_plan",
    "onnx_gather",
    "onnx_gather_plan",
    "scatter_multiaxis",
    "torch_take",
    "torch_take_plan",
]
