"""Reshapes ("views"): recognising them, pairing two shapes' dims, and the
one builder of the views the raising emits (`emit_view`).

Four ops spell a view; all keep the row-major element order, so for
`--gmx-canonicalize` they are the same thing with different spellings:

    tosa.reshape %x, %shape          (%shape from tosa.const_shape)
    tensor.reshape %x(%shape)        (%shape a constant)
    tensor.expand_shape / tensor.collapse_shape

Static views (`view_source`, `strip_views`) are looked through by the
static patterns. A reshape with `?` dims (torch-mlir's `tosa.reshape` with
a `-1` in its `tosa.const_shape`, or what `--tosa-to-tensor` makes of it: a
collapse to 1-D, then an expand whose sizes are `tensor.dim` divided by a
constant) still keeps the row-major order and the element count, so the
dims of both shapes pair up into groups of equal element count
(`align_shapes`): groups closed by equal static products, scanning from
either end, and one middle group holding the dynamic dims, equal because
the totals are. A view whose groups each hold at most one `?` on the target
side is emitted as one collapse and/or one expand, its dynamic sizes
`tensor.dim`s of the source (divided by the group's static product where
the group splits); one that only adds or drops unit dims
(`unit_view_groups`) keeps every other dim where it is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from gmx.dialect.gmx import mlir_shape, static_shape
from gmx.dialect.mlir import arith, ir, tensor, tosa

Shape = Sequence["int | None"]
Groups = list[tuple[list[int], list[int]]]

VIEW_OPS = ("tosa.reshape", "tensor.reshape", "tensor.expand_shape", "tensor.collapse_shape")


def shape_of(value: ir.Value) -> list:
    """A ranked tensor's shape, None for each `?`."""
    return static_shape(ir.RankedTensorType(value.type))


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


# Ops whose memref result views (part of) their first operand's buffer.
MEMREF_VIEW_OPS = ("memref.subview", "memref.cast", "memref.reinterpret_cast", "memref.collapse_shape",
                   "memref.expand_shape", "memref.transpose", "memref.view", "memref.assume_alignment")


def buffer_root(memref: ir.Value) -> ir.Value:
    """The buffer a memref value views (through MEMREF_VIEW_OPS)."""
    while (op := defining_op(memref)) is not None and op.name in MEMREF_VIEW_OPS:
        memref = op.operands[0]
    return memref


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


def _static_view(value: ir.Value, shape: Sequence[int]) -> ir.Value:
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


# --- Views with `?` dims ------------------------------------------------------


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
    """How many view ops `emit_view` emits from `source` to `target`
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


def _grouped_view(value: ir.Value, shape: Shape) -> ir.Value:
    """`value` (no views looked through) reshaped to `shape`, which
    `view_groups` must accept: nothing, one collapse, one expand, or a
    collapse then an expand; static shapes as `_static_view` does."""
    source, shape = shape_of(value), list(shape)
    if None not in source and None not in shape:
        return _static_view(value, shape)
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


def _unit_view(value: ir.Value, shape: Shape) -> ir.Value:
    """`value` with unit dims added or removed to make `shape` (which
    `unit_view_groups` must accept): nothing, one expand, one collapse, or a
    collapse then an expand; dynamic sizes the `tensor.dim`s of `value`."""
    source, shape = shape_of(value), list(shape)
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
    (leading unit dims join the first group); no kept dim (the other shape
    is rank 0): none."""
    if not kept:
        return []
    groups = [[d] for d in kept]
    groups[0] = list(range(0, kept[0])) + groups[0]
    for k, d in enumerate(kept):
        end = kept[k + 1] if k + 1 < len(kept) else rank
        groups[k].extend(range(d + 1, end))
    return groups


# --- The one builder ------------------------------------------------------------


def emit_view(value: ir.Value, shape: Shape, *, fold_constant: bool = False, unit_dims_first: bool = False) -> ir.Value:
    """`value` reshaped to `shape`, the one way the raising builds a view.

    Static shapes: nothing, one collapse, one expand, or a collapse and an
    expand, views already above `value` looked through (`_static_view`); with
    `fold_constant`, a view of a `foldable_constant` is a new constant of
    `shape` instead. With `?` dims (no views looked through): one collapse
    and/or one expand of `view_groups`, else unit dims added or dropped
    (`unit_view_groups`). With `unit_dims_first`, static shapes too, a view
    that only adds or drops unit dims keeps each with the dim before it
    (`_unit_view`). The caller checks that the shapes are viewable (`can_view`).
    """
    source, shape = shape_of(value), list(shape)
    if unit_dims_first and unit_view_groups(source, shape) is not None:
        return _unit_view(value, shape)
    if None not in source and None not in shape:
        return _constant_view(value, shape) if fold_constant else _static_view(value, shape)
    if source == shape:
        return value
    if view_groups(source, shape) is not None:
        return _grouped_view(value, shape)
    return _unit_view(value, shape)


def can_view(source: Shape, target: Shape) -> bool:
    """Whether `emit_view` can reshape a tensor of shape `source` to `target`."""
    if None not in source and None not in target:
        return int(math.prod(source)) == int(math.prod(target))
    return list(source) == list(target) or unit_view_groups(source, target) is not None or view_groups(source, target) is not None


def _constant_view(value: ir.Value, shape: list[int]) -> ir.Value:
    """`_static_view`, except that a view of a `foldable_constant` is a new
    constant of `shape` (the same op: `tosa.const` or `arith.constant`), so
    that a gather reads its constant data in the shape it gathers from."""
    source = strip_views(value)[0]
    folded = foldable_constant(source)
    if folded is None or static_shape_of(source) == shape:
        return _static_view(value, shape)
    attribute, data = folded
    new_type = tensor_type(shape, attribute.type.element_type)
    if data is None:
        reshaped = ir.DenseElementsAttr.get_splat(new_type, attribute.get_splat_value())
    else:
        reshaped = ir.DenseElementsAttr.get(data, type=attribute.type.element_type, shape=shape)
    if op_name(source) == "tosa.const":
        return tosa.const(reshaped)
    return arith.constant(new_type, reshaped)


def foldable_constant(value: ir.Value) -> tuple[object, np.ndarray | None] | None:
    """(attribute, its elements; None for a splat) of the `tosa.const` /
    `arith.constant` producing `value`, where a reshape of it may become a new
    constant: dense (no `dense_resource`), readable (not bf16, which the
    bindings cannot read back) and used once (as upstream's reshape folders:
    a constant with other users would be duplicated). None otherwise."""
    op = defining_op(value)
    if op is None or op.name not in ("tosa.const", "arith.constant") or len(list(value.uses)) != 1:
        return None
    attribute = op.attributes["values" if op.name == "tosa.const" else "value"]
    if not isinstance(attribute, ir.DenseElementsAttr):
        return None  # a resource, or a scalar
    if attribute.is_splat:
        return attribute, None
    try:
        return attribute, np.asarray(memoryview(attribute))
    except (RuntimeError, ValueError, TypeError):  # no buffer for this element type
        return None
