"""Every known gather as reshapes around one `gather_multiaxis` call.

docs/semantics.md#every-known-gather. Each op has a `*_plan(input_shape,
indices_shape, ...)` function returning a `ReshapePlan` (the reshapes
around the op; concrete shapes only, no dynamic dims) and an array
function that runs it via `apply_plan`: reshape input and indices to the
plan's shapes, call `gather_multiaxis` with the plan's axes, reshape the
result to `result_shape`. No numpy gather (take, take_along_axis) is used.
The scatters (`scatter_mappings`) are the same plans around
`scatter_multiaxis`: where a gather reads, its scatter writes.

Placement rule for the inserted unit dims (one rule for all ops): the index
dims are placed where the gathered axis is, the first of them *at* the axis,
and the axis keeps its number. Gather on axis `a` with q index dims:

    input   [lead..., input[a], 1 * (q-1), trail...]
    indices [1 * a,   idx...,              1 * len(trail)]
    output  [lead..., idx...,              trail...]      axes = [a]

(scalar indices count as one index dim of size 1, dropped by result_shape).
GatherND with b batch dims and n-tuples puts its m index dims at axes
b, b+1, ... in the same way. Some worked examples put the unit dims on the
other side of the axis (input [4,1,3], axes [2]); that is an equally valid
gather, see tests/worked_examples.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from gmx.dialect.shapes import GatherShapeError, infer_output_shape

from .semantics import gather_multiaxis

Shape = tuple[int, ...]


@dataclass(frozen=True)
class ReshapePlan:
    """The reshapes around one gmx op that make it a frontend's gather or scatter.

    `input_shape`, `indices_shape` and `axes` are what the op gets;
    `output_shape` is the gather's result (a scatter's updates: the
    gathered shape G), `result_shape` the frontend's shape of it (the final
    reshape of a gather's result, the shape a scatter's updates come in).
    """

    input_shape: Shape
    indices_shape: Shape
    output_shape: Shape
    axes: Shape
    result_shape: Shape


def make_plan(input_shape, indices_shape, axes, result_shape=None) -> ReshapePlan:
    """Validate the gather_multiaxis shapes and fill in the output shape.

    `result_shape` defaults to the output shape (no final reshape).
    Raises GatherShapeError.
    """
    output = tuple(infer_output_shape(input_shape, indices_shape, axes))
    result = output if result_shape is None else tuple(result_shape)
    return ReshapePlan(
        tuple(input_shape), tuple(indices_shape), output, tuple(axes), result
    )


def apply_plan(plan: ReshapePlan, input, indices) -> np.ndarray:
    """Reshape per `plan`, run gather_multiaxis, reshape to `result_shape`."""
    input, indices = np.asarray(input), np.asarray(indices)
    output = gather_multiaxis(
        input.reshape(plan.input_shape),
        indices.reshape(plan.indices_shape),
        plan.axes,
    )
    return output.reshape(plan.result_shape)


def _run(plan_of, input, indices, *params) -> np.ndarray:
    """Plan from the arrays' shapes with `plan_of(..., *params)`, then apply it."""
    input, indices = np.asarray(input), np.asarray(indices)
    return apply_plan(plan_of(input.shape, indices.shape, *params), input, indices)


def normalize_axis(axis: int, rank: int) -> int:
    """Map axis in [-rank, rank) to [0, rank); GatherShapeError otherwise."""
    if not -rank <= axis < rank:
        raise GatherShapeError(
            f"axis {axis} is out of range [{-rank}, {rank}) for rank {rank}"
        )
    return axis % rank


# --- GatherElements / numpy.take_along_axis / torch.gather -----------------


def gather_elements_plan(input_shape, indices_shape, axis: int) -> ReshapePlan:
    """No reshape: `axes = [axis]` on the tensors as they are."""
    axis = normalize_axis(axis, len(input_shape))
    return make_plan(input_shape, indices_shape, [axis])


def gather_elements(input, indices, axis: int) -> np.ndarray:
    """ONNX GatherElements = numpy.take_along_axis (non-axis dims broadcast).

    `output[..., i, ...] = input[..., indices[..., i, ...], ...]` at `axis`
    (negative allowed). torch.gather is the same when indices has the input's
    size on every non-axis dim.
    """
    return _run(gather_elements_plan, input, indices, axis)


# --- ONNX Gather / numpy.take -----------------------------------------------


def onnx_gather_plan(input_shape, indices_shape, axis: int = 0) -> ReshapePlan:
    """Index dims inserted at `axis` (see the module docstring)."""
    axis = normalize_axis(axis, len(input_shape))
    lead, trail = tuple(input_shape[:axis]), tuple(input_shape[axis + 1 :])
    idx = tuple(indices_shape) or (1,)
    return make_plan(
        lead + (input_shape[axis],) + (1,) * (len(idx) - 1) + trail,
        (1,) * axis + idx + (1,) * len(trail),
        [axis],
        lead + tuple(indices_shape) + trail,
    )


def onnx_gather(input, indices, axis: int = 0) -> np.ndarray:
    """ONNX Gather = numpy.take(input, indices, axis): blocks along `axis`.

    Result shape `input.shape[:axis] + indices.shape + input.shape[axis+1:]`;
    negative axis and scalar indices allowed.
    """
    return _run(onnx_gather_plan, input, indices, axis)


# --- torch.take ---------------------------------------------------------------


def torch_take_plan(input_shape, indices_shape) -> ReshapePlan:
    """ONNX Gather on axis 0 of the input flattened to 1-D."""
    return onnx_gather_plan((math.prod(input_shape),), indices_shape, 0)


def torch_take(input, indices) -> np.ndarray:
    """torch.take: `input.ravel()[indices]`, result shaped like `indices`."""
    return _run(torch_take_plan, input, indices)


# --- ONNX GatherND ------------------------------------------------------------


def gather_nd_plan(input_shape, indices_shape, batch_dims: int = 0) -> ReshapePlan:
    """GatherND as gather_multiaxis with `axes = [b, ..., b+n-1]`.

    indices `[batch (b)..., idx (m)..., n]`, input `[batch..., n indexed...,
    trail...]`; result `[batch..., idx..., trail...]`. The m index dims sit
    at dims b, b+1, ...; whichever of n and m is shorter is padded with unit
    dims. Batch dims broadcast (equal, or one of them 1).
    """
    b, n, m = _check_gather_nd(input_shape, indices_shape, batch_dims)
    span = max(n, m)
    idx, trail = tuple(indices_shape[b:-1]), tuple(input_shape[b + n :])
    logical = tuple(indices_shape[:b]) + idx + (1,) * (span - m + len(trail))
    plan = make_plan(
        tuple(input_shape[: b + n]) + (1,) * (span - n) + trail,
        logical[:-1] + (logical[-1] * n,),
        range(b, b + n),
    )
    return replace(plan, result_shape=plan.output_shape[:b] + idx + trail)


def _check_gather_nd(input_shape, indices_shape, batch_dims: int):
    """Return (b, n, m) = (batch dims, tuple size, index dims) or raise."""
    r, q, b = len(input_shape), len(indices_shape), batch_dims
    if not 0 <= b < q:
        raise GatherShapeError(
            f"batch_dims {b} must lie in [0, indices rank {q})"
        )
    n = indices_shape[-1]
    if not 1 <= n <= r - b:
        raise GatherShapeError(
            f"indices last dim {n} (the tuple size) must lie in "
            f"[1, input rank {r} - batch_dims {b}]"
        )
    return b, n, q - 1 - b


def gather_nd(input, indices, batch_dims: int = 0) -> np.ndarray:
    """ONNX GatherND: `indices[..., :]` are n-tuples into dims b..b+n-1.

    `output[B, I, T] = input[B, *indices[B, I, :], T]` for batch position B
    (the first `batch_dims` dims, broadcast between input and indices),
    index position I and trailing input position T.
    """
    return _run(gather_nd_plan, input, indices, batch_dims)


# --- advanced indexing x[i, :, j] ------------------------------------------------


def advanced_index_plan(input_shape, dims, index_shape) -> ReshapePlan:
    """`x[i, :, j]` as gather_multiaxis with `axes = dims` (here [0, 2]).

    `dims` are the input dims the index arrays address, in the pattern's
    order; `index_shape` is the shape the index arrays broadcast to (B).
    The tuples are folded into the last dim of the indices, and B, flattened
    to m elements, sits at `dims[0]`; the other indexed dims have size 1 in
    the gather's output. numpy puts B where the indexed dims are when they
    are adjacent, else in front: a reshape when they are adjacent or
    `dims[0] == 0`; otherwise a transpose (GatherShapeError here).
    """
    r, dims = len(input_shape), tuple(dims)
    if not dims or len(set(dims)) != len(dims) or not all(0 <= d < r for d in dims):
        raise GatherShapeError(f"indexed dims {list(dims)} must be unique dims of a rank {r} input, at least one")
    adjacent = list(dims) == list(range(dims[0], dims[0] + len(dims)))
    if not adjacent and dims[0] != 0:
        raise GatherShapeError(
            f"indexed dims {list(dims)} are neither adjacent nor led by dim 0: numpy moves the index dims "
            "to the front of the result, a transpose rather than a reshape"
        )
    logical = [1] * r
    logical[dims[0]] = math.prod(index_shape)
    plan = make_plan(input_shape, logical[:-1] + [logical[-1] * len(dims)], dims)
    result = [n for d, n in enumerate(plan.output_shape) if d not in dims[1:]]
    result[dims[0] : dims[0] + 1] = list(index_shape)
    return replace(plan, result_shape=tuple(result))


def folded_tuples(indices, plan: ReshapePlan) -> np.ndarray:
    """The index arrays of an advanced index, broadcast together and
    stacked into coordinate tuples, as the plan's indices."""
    arrays = np.broadcast_arrays(*(np.asarray(i) for i in indices))
    return np.stack(arrays, axis=-1).reshape(plan.indices_shape)


def advanced_index(input, dims, indices) -> np.ndarray:
    """numpy's `x[i, :, j]`: `indices` are the index arrays of `dims`, every
    other dim a full slice (`advanced_index_plan`'s restriction)."""
    input = np.asarray(input)
    shape = np.broadcast_shapes(*(np.shape(i) for i in indices))
    plan = advanced_index_plan(input.shape, dims, shape)
    return apply_plan(plan, input, folded_tuples(indices, plan))


__all__ = [
    "ReshapePlan",
    "advanced_index",
    "advanced_index_plan",
    "apply_plan",
    "folded_tuples",
    "gather_elements",
    "gather_elements_plan",
    "gather_nd",
    "gather_nd_plan",
    "make_plan",
    "normalize_axis",
    "onnx_gather",
    "onnx_gather_plan",
    "torch_take",
    "torch_take_plan",
]
