"""gmx.reference: the numpy reference semantics of `gmx.gather_multiaxis`.

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

The mappings of the known gathers onto it live in `gmx.reference.mappings`
and are re-exported here.
"""

from gmx.dialect.shapes import GatherShapeError

from .mappings import (
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
from .semantics import gather_multiaxis

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
