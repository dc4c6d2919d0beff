"""How each dim of a gather is read: decided from the static shapes alone.

The lowering reads the indices and the input without materialising a
broadcast. Per dim it needs to know which position to read at, given the
output position `o[d]`:

  ITER     read at o[d]            (the dim is as large as the output's)
  ZERO     read at 0               (a static broadcast dim of size 1)
  RUNTIME  read at 0 if the dim's run-time size is 1, else at o[d]
           (a dynamic dim that may or may not broadcast)

Axis dims of the input are read at the gathered index instead; axis dims of
the logical indices are always ITER (the output takes their size).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from gmx.dialect.shapes import coordinate_size, logical_indices_shape


class Access(enum.Enum):
    ITER = "iter"
    ZERO = "zero"
    RUNTIME = "runtime"


def _non_axis_access(own, other) -> Access:
    """Access of one operand's non-axis dim of static size `own` (None: ?)."""
    if own == 1:
        return Access.ZERO
    if own is not None:
        return Access.ITER
    # A dynamic dim facing a static 1 is the output's own size.
    return Access.ITER if other == 1 else Access.RUNTIME


@dataclass(frozen=True)
class GatherPlan:
    """Per-dim read plan and the run-time checks a gather's lowering needs."""

    rank: int
    axes: tuple[int, ...]
    coordinate_size: int
    input_access: tuple  # Access per dim; None for axis dims
    indices_access: tuple  # Access per dim of the logical indices
    broadcast_checks: tuple[int, ...]  # non-axis dims whose compatibility is dynamic
    divisibility_check: bool  # the indices last dim is dynamic and c > 1
    nonempty_axis_checks: tuple[int, ...]  # axes whose input size may be 0

    @property
    def indices_by_map(self) -> bool:
        """Indices can be read through affine indexing maps (no RUNTIME dim)."""
        return Access.RUNTIME not in self.indices_access


def plan_gather(input_shape: Sequence, indices_shape: Sequence, axes: Sequence[int]) -> GatherPlan:
    """The read plan of a verified gather (shapes with None for `?`)."""
    rank = len(input_shape)
    c = coordinate_size(axes)
    logical = logical_indices_shape(indices_shape, axes)
    input_access, indices_access, checks = [], [], []
    for d in range(rank):
        a, b = input_shape[d], logical[d]
        if d in axes:
            input_access.append(None)
            indices_access.append(Access.ITER)
            continue
        input_access.append(_non_axis_access(a, b))
        indices_access.append(_non_axis_access(b, a))
        if (a is None or b is None) and 1 not in (a, b):
            checks.append(d)
    return GatherPlan(
        rank=rank,
        axes=tuple(axes),
        coordinate_size=c,
        input_access=tuple(input_access),
        indices_access=tuple(indices_access),
        broadcast_checks=tuple(checks),
        divisibility_check=rank > 0 and c > 1 and indices_shape[-1] is None,
        nonempty_axis_checks=tuple(ax for ax in axes if input_shape[ax] in (None, 0)),
    )
