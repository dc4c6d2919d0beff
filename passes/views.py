"""Reshapes ("views"): recognising the four forms and emitting the cheapest one.

All four keep the row-major element order, so for `--gmx-canonicalize` they
are the same thing with different spellings:

    tosa.reshape %x, %shape          (%shape from tosa.const_shape)
    tensor.reshape %x(%shape)        (%shape a constant)
    tensor.expand_shape / tensor.collapse_shape

Only static shapes are handled; a dynamic view is not looked through
(`dynamic_views` pairs and emits views with `?` dims).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gmx.dialect.mlir import ir, tensor

VIEW_OPS = ("tosa.reshape", "tensor.reshape", "tensor.expand_shape", "tensor.collapse_shape")


def static_shape_of(value: ir.Value) -> list[int] | None:
    """The shape of a ranked tensor value, or None if unranked or dynamic."""
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(value.type)
    if not t.has_static_shape:
        return None
    return list(t.shape)


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The operation producing `value`, or None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def op_name(value: ir.Value) -> str | None:
    """The name of the operation producing `value`, or None."""
    op = defining_op(value)
    return None if op is None else op.name


def ops_named(root, name: str) -> list:
    """Every op called `name` nested in `root`, in walk order, collected
    before the caller rewrites any of them."""
    found = []

    def collect(op):
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(collect)
    return found


def view_source(value: ir.Value) -> ir.Value | None:
    """The tensor `value` is a static reshape of, or None."""
    if op_name(value) not in VIEW_OPS:
        return None
    source = defining_op(value).operands[0]
    if static_shape_of(value) is None or static_shape_of(source) is None:
        return None
    return source


def strip_views(value: ir.Value) -> tuple[ir.Value, int]:
    """The value under every static view above it, and how many views there were."""
    count = 0
    while (source := view_source(value)) is not None:
        value, count = source, count + 1
    return value, count


def collapse_groups(source: Sequence[int], target: Sequence[int]) -> list[list[int]] | None:
    """Reassociation collapsing `source` into `target`, or None if it isn't one.

    Every group is contiguous, non-empty and multiplies to its target size;
    unit source dims join the group after them (trailing ones, the last group).
    A rank-0 target takes no groups (`[]`): the source must be all unit dims.
    """
    if not target:
        return [] if all(size == 1 for size in source) else None
    if len(target) > len(source):
        return None
    groups, i = [], 0
    for size in target:
        group, product = [], 1
        while i < len(source):
            group.append(i)
            product *= source[i]
            i += 1
            if product == size:
                break
            if product > size:
                return None
        if product != size or not group:
            return None
        groups.append(group)
    while i < len(source):
        if source[i] != 1:
            return None
        groups[-1].append(i)
        i += 1
    return groups


def common_refinement(a: Sequence[int], b: Sequence[int]) -> list[int] | None:
    """The coarsest shape both `a` and `b` are merges of (unit dims dropped), or None."""
    if int(math.prod(a)) != int(math.prod(b)) or 0 in a or 0 in b:
        return None
    cuts = sorted({int(math.prod(a[:i])) for i in range(len(a) + 1)} | {int(math.prod(b[:i])) for i in range(len(b) + 1)})
    refined = []
    for low, high in zip(cuts, cuts[1:]):
        if high % low:
            return None
        refined.append(high // low)
    return refined


def merge_groups(fine: Sequence[int], coarse: Sequence[int]) -> list[list[int]] | None:
    """For each dim of `coarse`, the dims of `fine` merged into it (unit dims of
    `fine` belong to no group, a unit dim of `coarse` gets an empty group)."""
    groups, j = [[] for _ in coarse], 0
    nonunit = [i for i, s in enumerate(fine) if s != 1]
    for k, size in enumerate(coarse):
        if size == 1:
            continue
        product = 1
        while product < size and j < len(nonunit):
            product *= fine[nonunit[j]]
            groups[k].append(nonunit[j])
            j += 1
        if product != size:
            return None
    return groups if j == len(nonunit) else None


def tensor_type(shape: Sequence[int], element_type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element_type)


def views_between(source: Sequence[int], target: Sequence[int]) -> int:
    """How many view ops `emit_view` emits from static `source` to `target`:
    0 (same shape), 1 (one collapse or expand) or 2."""
    if list(source) == list(target):
        return 0
    if collapse_groups(source, target) is not None or collapse_groups(target, source) is not None:
        return 1
    return 2


def emit_view(value: ir.Value, shape: Sequence[int]) -> ir.Value:
    """`value` reshaped to static `shape`: nothing, one collapse, one expand,
    or (when neither fits) a collapse to 1-D followed by an expand. Views
    already above `value` are looked through, so chains never grow. A
    rank-0 tensor is one collapse or expand with no groups (`[]`) away from
    any shape of unit dims."""
    value = strip_views(value)[0]
    source_shape = static_shape_of(value)
    shape = list(shape)
    if source_shape == shape:
        return value
    element_type = ir.RankedTensorType(value.type).element_type
    groups = collapse_groups(source_shape, shape)
    if groups is not None:
        return tensor.collapse_shape(tensor_type(shape, element_type), value, groups)
    groups = collapse_groups(shape, source_shape)
    if groups is not None:
        return tensor.expand_shape(tensor_type(shape, element_type), value, groups, [], shape)
    refined = common_refinement(source_shape, shape) or [1]
    down, up = collapse_groups(source_shape, refined), collapse_groups(shape, refined)
    if down is not None and up is not None:
        middle = tensor.collapse_shape(tensor_type(refined, element_type), value, down)
        return tensor.expand_shape(tensor_type(shape, element_type), middle, up, [], shape)
    size = int(math.prod(source_shape))
    flat = tensor.collapse_shape(tensor_type([size], element_type), value, [list(range(len(source_shape)))])
    return tensor.expand_shape(tensor_type(shape, element_type), flat, [list(range(len(shape)))], [], shape)
