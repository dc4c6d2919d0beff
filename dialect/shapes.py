"""Shape rules of `gmx.gather_multiaxis` and `gmx.scatter_multiaxis`, in
plain Python.

One source of truth for both ops' verifiers, the result-type inference of
the builders, the lowering and the numpy references: a scatter writes where
the gather of the same input, indices and axes reads, so its rules are the
gather's plus one on `updates`. A shape is a sequence of
`int` (static) or `None` (dynamic, MLIR's `?`); every rule that cannot be
decided because of a `None` is accepted, as MLIR verifiers do.

Rules (docs/semantics.md#shape-rules), with r = rank, k = len(axes), c = max(k, 1):
  - input, indices and result have rank r;
  - axes are unique and each lies in [0, r);
  - for r >= 1, indices.shape[r-1] is a multiple of c; the logical indices
    shape L is indices.shape with its last dim divided by c;
  - for d not in axes, input[d] and L[d] are equal or one of them is 1;
  - out[d] = L[d] for d in axes, the broadcast of input[d] and L[d] otherwise.
Scatters (`infer_scatter_shape`): with G the gather's output shape above,
  - updates has rank r and each updates[d] is G[d] or 1 (a unit dim broadcasts);
  - the result has the input's shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import GmxError

Shape = Sequence["int | None"]


class ShapeError(GmxError, ValueError):
    """A violated shape rule of a gmx op; the message names rule and values."""


class GatherShapeError(ShapeError):
    """A violated rule of the gather's shapes (rank, axes, folded
    coordinates, broadcasting), which the scatter shares."""


class ScatterShapeError(ShapeError):
    """A violated rule of a scatter's `updates` shape."""


def fmt_shape(shape: Shape) -> str:
    """`[4, ?, 3]` style, as MLIR users read shapes."""
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def coordinate_size(axes: Sequence[int]) -> int:
    """Number of index elements per coordinate tuple: max(len(axes), 1)."""
    return max(len(axes), 1)


def check_ranks(input_rank: int, indices_rank: int) -> None:
    if input_rank != indices_rank:
        raise GatherShapeError(
            f"input and indices must have the same rank, "
            f"got input rank {input_rank} and indices rank {indices_rank}"
        )


def check_axes(rank: int, axes: Sequence[int]) -> None:
    """Axes must be unique and lie in [0, rank)."""
    for axis in axes:
        if not 0 <= axis < rank:
            raise GatherShapeError(
                f"axis {axis} is out of range [0, {rank}) "
                f"(axes = {list(axes)}, rank {rank})"
            )
    seen = set()
    for axis in axes:
        if axis in seen:
            raise GatherShapeError(
                f"axes must be unique, axis {axis} appears more than once "
                f"in axes = {list(axes)}"
            )
        seen.add(axis)


def logical_indices_shape(indices_shape: Shape, axes: Sequence[int]) -> list:
    """indices.shape with the last dim divided by the coordinate size."""
    shape = list(indices_shape)
    if not shape:
        return shape
    c = coordinate_size(axes)
    last = shape[-1]
    if last is not None:
        if last % c:
            raise GatherShapeError(
                f"indices last dim {last} must be a multiple of the coordinate "
                f"size {c} (= number of axes)"
            )
        shape[-1] = last // c
    return shape


def broadcast_dim(dim: int, input_size, indices_size):
    """Bidirectional broadcast of one non-axis dim; None where dynamic."""
    a, b = input_size, indices_size
    if a is not None and b is not None:
        if a == b or b == 1:
            return a
        if a == 1:
            return b
        raise GatherShapeError(
            f"non-axis dim {dim} is not broadcastable: input has size {a}, "
            f"logical indices have size {b} (must be equal or one of them 1)"
        )
    known = a if a is not None else b
    # A static size other than 1 decides the result: the dynamic side must be
    # that size or 1 at run time. A static 1 leaves the other side in charge.
    if known is not None and known != 1:
        return known
    return None


def infer_output_shape(
    input_shape: Shape, indices_shape: Shape, axes: Sequence[int]
) -> list:
    """Validate every static rule and return the result shape.

    Raises GatherShapeError naming the first violated rule.
    """
    rank = len(input_shape)
    check_ranks(rank, len(indices_shape))
    check_axes(rank, axes)
    logical = logical_indices_shape(indices_shape, axes)
    axis_set = set(axes)
    return [
        logical[d] if d in axis_set else broadcast_dim(d, input_shape[d], logical[d])
        for d in range(rank)
    ]


def check_updates_shape(gather_shape: Shape, updates_shape: Shape) -> None:
    """`updates` has the gather's rank and each dim G[d] or 1; a dynamic
    dim on either side is accepted."""
    if len(updates_shape) != len(gather_shape):
        raise ScatterShapeError(
            f"updates must have rank {len(gather_shape)} (the input's), got rank {len(updates_shape)}"
        )
    for d, (g, u) in enumerate(zip(gather_shape, updates_shape)):
        if g is not None and u is not None and u not in (g, 1):
            raise ScatterShapeError(
                f"updates dim {d} has size {u}; it must be {g} (the gathered shape "
                f"{fmt_shape(gather_shape)} at dim {d}) or 1"
            )


def infer_scatter_shape(
    input_shape: Shape, indices_shape: Shape, updates_shape: Shape, axes: Sequence[int]
) -> list:
    """Validate every static rule of a scatter and return the result shape
    (the input's). Raises GatherShapeError for the rules the scatter shares
    with the gather, ScatterShapeError for `updates`."""
    check_updates_shape(infer_output_shape(input_shape, indices_shape, axes), updates_shape)
    return list(input_shape)
