"""Reshapes with dynamic (`?`) dims: pairing two shapes' dims, emitting one view.

`views` handles static shapes. A reshape with `?` dims (torch-mlir's
`tosa.reshape` with a `-1` in its `tosa.const_shape`, or what
`--tosa-to-tensor` makes of it: a collapse to 1-D, then an expand whose
sizes are `tensor.dim` divided by a constant) still keeps the row-major
order and the element count, so the dims of both shapes pair up into
groups of equal element count: groups closed by equal static products,
scanning from either end, and one middle group holding the dynamic dims,
equal because the totals are. A view whose groups each hold at most one
`?` on the target side is emitted as one collapse and/or one expand, its
dynamic sizes `tensor.dim`s of the source (divided by the group's static
product where the group splits).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gmx.dialect.gmx import mlir_shape, static_shape
from gmx.dialect.mlir import arith, ir, tensor

from .views import VIEW_OPS, defining_op, emit_view, op_name, views_between

Shape = Sequence["int | None"]
Groups = list[tuple[list[int], list[int]]]


def _closed_groups(a: Shape, b: Shape) -> tuple[Groups, int, int]:
    """Groups of `a` and `b` from their start, each closed by equal static
    products; stops at the first `?` or end. Returns the groups and how many
    dims of `a` and `b` they took."""
    groups, i, j = [], 0, 0
    while i < len(a) and j < len(b) and a[i] is not None and b[j] is not None:
        group_a, group_b, p, q = [i], [j], a[i], b[j]
        x, y = i + 1, j + 1
        while p != q:
            if p < q and x < len(a) and a[x] is not None:
                p, x = p * a[x], x + 1
                group_a.append(x - 1)
            elif q < p and y < len(b) and b[y] is not None:
                q, y = q * b[y], y + 1
                group_b.append(y - 1)
            else:
                return groups, i, j
        groups.append((group_a, group_b))
        i, j = x, y
    return groups, i, j


def align_shapes(source: Shape, target: Shape) -> Groups | None:
    """Pairs (source dims, target dims) for a reshape of `source` into
    `target` (None for `?`): contiguous, in order, covering both shapes, each
    pair of equal element count given that the totals are equal. Unit dims
    join a neighbouring group. None when no pairing is certain: a static
    mismatch, a 0 dim, a rank-0 side, or a `?` facing nothing (it would have
    to be 1)."""
    source, target = list(source), list(target)
    if not source or not target or 0 in source or 0 in target:
        return None
    head, i, j = _closed_groups(source, target)
    tail, k, m = _closed_groups(source[i:][::-1], target[j:][::-1])
    n_s, n_t = len(source), len(target)
    tail = [([n_s - 1 - d for d in reversed(ga)], [n_t - 1 - d for d in reversed(gb)]) for ga, gb in reversed(tail)]
    middle = (list(range(i, n_s - k)), list(range(j, n_t - m)))
    if middle[0] and middle[1]:
        return head + [middle] + tail
    left_over = [source[d] for d in middle[0]] + [target[d] for d in middle[1]]
    if any(size != 1 for size in left_over):
        return None
    groups = head + tail
    if not groups:
        return None
    # unit dims between the head and the tail join the group before them
    at = len(head) - 1 if head else 0
    joined_s = sorted(groups[at][0] + middle[0])
    joined_t = sorted(groups[at][1] + middle[1])
    groups[at] = (joined_s, joined_t)
    return groups


def view_groups(source: Shape, target: Shape) -> Groups | None:
    """The groups of `align_shapes` when a view can be emitted for them:
    each target group holds at most one `?`, and a group with a `?` on the
    source side has one on the target side (a static size is never taken
    on trust)."""
    groups = align_shapes(source, target)
    if groups is None:
        return None
    for group_s, group_t in groups:
        dynamic_t = sum(target[d] is None for d in group_t)
        dynamic_s = any(source[d] is None for d in group_s)
        if dynamic_t > 1 or (dynamic_s and dynamic_t == 0):
            return None
    return groups


def views_needed(source: Shape, target: Shape, groups: Groups) -> int:
    """How many view ops `emit_view_of` emits from `source` to `target`
    (`groups` their `view_groups`): 0, 1 or 2."""
    if None not in source and None not in target:
        return views_between(source, target)
    return int(any(len(s) > 1 for s, _ in groups)) + int(any(len(t) > 1 for _, t in groups))


def any_view_source(value: ir.Value) -> ir.Value | None:
    """The tensor `value` is a reshape of (static or dynamic), or None."""
    if op_name(value) not in VIEW_OPS:
        return None
    return defining_op(value).operands[0]


def view_chain(value: ir.Value) -> list[ir.Value]:
    """`value` and the views under it, down to the first value that is no view."""
    chain = [value]
    while (source := any_view_source(chain[-1])) is not None:
        chain.append(source)
    return chain


def shape_of(value: ir.Value) -> list:
    """A ranked tensor's shape, None for each `?`."""
    return static_shape(ir.RankedTensorType(value.type))


def emit_view_of(value: ir.Value, shape: Shape) -> ir.Value:
    """`value` (no views looked through) reshaped to `shape`, which
    `view_groups` must accept: nothing, one collapse, one expand, or a
    collapse then an expand; static shapes as `views.emit_view` does."""
    source, shape = shape_of(value), list(shape)
    if None not in source and None not in shape:
        return emit_view(value, shape)
    groups = view_groups(source, shape)
    assert groups is not None, f"no view from {source} to {shape}"  # callers check view_groups first
    element_type = ir.RankedTensorType(value.type).element_type
    if any(len(s) > 1 for s, _ in groups):
        merged = [None if any(source[d] is None for d in s) else int(math.prod(source[d] for d in s)) for s, _ in groups]
        value = tensor.collapse_shape(ir.RankedTensorType.get(mlir_shape(merged), element_type), value, [s for s, _ in groups])
    if all(len(t) == 1 for _, t in groups):
        return value
    sizes = []
    for k, (_, group_t) in enumerate(groups):
        if any(shape[d] is None for d in group_t):
            sizes.append(_group_size(value, k, int(math.prod(shape[d] for d in group_t if shape[d] is not None))))
    return tensor.expand_shape(ir.RankedTensorType.get(mlir_shape(shape), element_type), value,
                               [t for _, t in groups], sizes, mlir_shape(shape))


def _group_size(value: ir.Value, dim: int, static_product: int) -> ir.Value:
    """The `?` of a target group: `value`'s dim `dim` over the group's static product."""
    index = ir.IndexType.get()
    size = tensor.dim(value, arith.constant(index, dim))
    return size if static_product == 1 else arith.divui(size, arith.constant(index, static_product))



def unit_view_groups(source: Shape, target: Shape) -> list[list[int]] | None:
    """When `target` is `source` with static unit dims added or removed (the
    other dims, `?` included, pairing in order): per non-unit dim of the
    source, its index in `target`, else None. A `?` is never taken for 1."""
    kept_s = [d for d, size in enumerate(source) if size != 1]
    kept_t = [d for d, size in enumerate(target) if size != 1]
    if len(kept_s) != len(kept_t) or any(source[a] != target[b] for a, b in zip(kept_s, kept_t)):
        return None
    return list(zip(kept_s, kept_t))


def emit_unit_view(value: ir.Value, shape: Shape) -> ir.Value:
    """`value` with unit dims added or removed to make `shape` (which
    `unit_view_groups` must accept): nothing, one expand, one collapse, or a
    collapse then an expand; dynamic sizes the `tensor.dim`s of `value`."""
    source, shape = shape_of(value), list(shape)
    if None not in source and None not in shape:
        return emit_view(value, shape)
    if source == shape:
        return value
    assert unit_view_groups(source, shape) is not None, f"no unit-dim view from {source} to {shape}"  # callers check
    element_type = ir.RankedTensorType(value.type).element_type
    index = ir.IndexType.get()
    into_small = _embedding(shape, source)
    if into_small is not None:  # one collapse
        return tensor.collapse_shape(ir.RankedTensorType.get(mlir_shape(shape), element_type), value,
                                     _unit_groups(len(source), into_small))
    into_large = _embedding(source, shape)
    if into_large is None:  # a collapse of every unit dim, then an expand
        kept = [d for d, size in enumerate(source) if size != 1]
        value = tensor.collapse_shape(ir.RankedTensorType.get(mlir_shape([source[d] for d in kept]), element_type),
                                      value, _unit_groups(len(source), kept))
        source = [source[d] for d in kept]
        into_large = _embedding(source, shape)
    sizes = [tensor.dim(value, arith.constant(index, k)) for k, size in enumerate(source) if size is None]
    return tensor.expand_shape(ir.RankedTensorType.get(mlir_shape(shape), element_type), value,
                               _unit_groups(len(shape), into_large), sizes, mlir_shape(shape))


def _embedding(small: Shape, large: Shape) -> list[int] | None:
    """Where each dim of `small` is in `large` when `large` is `small` with
    unit dims added (in order, a unit dim of `small` on a unit dim of
    `large`), else None."""
    positions, j = [], 0
    for size in small:
        while j < len(large) and large[j] != size and large[j] == 1:
            j += 1
        if j == len(large) or large[j] != size:
            return None
        positions.append(j)
        j += 1
    if any(large[k] != 1 for k in range(len(large)) if k not in positions):
        return None
    return positions


def _unit_groups(rank: int, kept: list[int]) -> list[list[int]]:
    """Reassociation of a shape of `rank` whose dims `kept` are the dims of
    the other shape: each group one kept dim with the unit dims after it
    (leading unit dims join the first group); no kept dim: one group of
    all, or none."""
    if not kept:
        return [list(range(rank))] if rank else []
    groups = [[d] for d in kept]
    groups[0] = list(range(0, kept[0])) + groups[0]
    for k, d in enumerate(kept):
        end = kept[k + 1] if k + 1 < len(kept) else rank
        groups[k].extend(range(d + 1, end))
    return groups
