"""A gather as coordinates over an output space, and the one gmx op it becomes.

Every pattern of `--gmx-canonicalize` reads the IR it matches into a
`GatherSpec`, changes it, and hands it to `synthesize`, which emits the
smallest `gmx.gather_multiaxis` for it. A spec says, for an input `X` of
static shape `S` and an output space `B`:

    out[o] = X[p],   p[d] = coords[d](o)

where each coordinate is one of
    Iota(b, s)  p[d] = o[b] + s                  (a non-axis dim of gmx; s > 0
                                                  reads a slice of the input)
    Zero()      p[d] = 0
    Indexed     p[d] = reshape(value, shape + [tuple])[o', component]
                (o' = o with 0 where `shape` is 1: broadcasting; an axis of gmx)

`B` is a working space: patterns may refine it (split its dims); the spec's
`result_shape` is what the replaced value must have in the end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from gmx.dialect.gmx import OP_NAME, read_axes, read_mode, static_shape
from gmx.dialect.modes import Mode
from gmx.dialect.mlir import arith, ir, linalg, tensor, tosa
from gmx.dialect.shapes import GatherShapeError, infer_output_shape

from .index_values import constant_value, splat_value
from .integer_ops import integer_width
from .raised_gather import RaisedGather, Viewed, emit_gather
from ..patterns import NoMatch, require
from ..views import defining_op, emit_view, merge_groups, static_shape_of, strip_views, tensor_type


@dataclass(frozen=True)
class Iota:
    dim: int
    start: int = 0  # `arange(n) + 2` (BART's positions) starts at 2


@dataclass(frozen=True)
class Zero:
    pass


@dataclass(frozen=True)
class Indexed:
    value: ir.Value
    shape: tuple  # in the output space: each dim 1 (broadcast) or the output's size
    component: int = 0
    tuple_size: int = 1  # > 1: `value` holds tuples, this is one coordinate of them
    # A constant coordinate re-emitted in compact form: `value` is the old
    # constant (for its element type), `array` the values over `shape`.
    array: object = None
    # Elementwise index maps (root, leaf) frontends applied after broadcasting
    # (e.g. take_along_dim's floor-mod on a tiled index), re-applied to the
    # small tensor: the last one found is the innermost.
    maps: tuple = ()

    def __eq__(self, other):  # identity of the IR value, not numpy equality
        return self is other

    __hash__ = object.__hash__


@dataclass
class GatherSpec:
    input: ir.Value
    out_shape: list
    coords: list
    result_shape: list = field(default_factory=list)
    # The input read as this shape (a reshape of `input` that `synthesize`
    # emits), or None: its own shape.
    view: list | None = None
    # The out-of-range mode of the gmx op `synthesize` emits (spec_of_gmx
    # reads raise-mode ops only; raise-linalg-gather emits clip too).
    mode: Mode = Mode.RAISE

    @property
    def input_shape(self) -> list[int]:
        return list(self.view) if self.view is not None else static_shape_of(self.input)


def require_static_shape(value: ir.Value) -> list[int]:
    """`value`'s static shape; NoMatch where a dim is `?` or 0."""
    shape = static_shape_of(value)
    require(shape is not None and 0 not in shape, "dynamic or empty shape")
    return shape


# --- Refining the output space ------------------------------------------------


def refine_output(spec: GatherSpec, fine: Sequence[int]) -> GatherSpec:
    """The same gather over output space `fine` (a split of `spec.out_shape`).

    An Iota dim cannot be split (that would split an input dim), nor can a
    broadcast dim of an index tensor be partially kept.
    """
    fine = list(fine)
    groups = merge_groups(fine, spec.out_shape)
    require(groups is not None, "output space does not refine")
    coords = []
    for coord in spec.coords:
        if isinstance(coord, Iota):
            group = groups[coord.dim]
            require(len(group) <= 1, "an iota output dim would split")
            require(bool(group) or coord.start == 0, "an offset iota would become a constant")
            coords.append(replace(coord, dim=group[0]) if group else Zero())
        elif isinstance(coord, Indexed):
            shape = [1] * len(fine)
            for b, group in enumerate(groups):
                if coord.shape[b] != 1:
                    for f in group:
                        shape[f] = fine[f]
            coords.append(replace(coord, shape=tuple(shape)))
        else:
            coords.append(coord)
    return replace(spec, out_shape=fine, coords=coords)


# --- Layout: which gmx dim hosts which input and output dim --------------------


@dataclass
class Layout:
    input_dims: list  # per gmx dim: the input dim it holds, or None (a new unit dim)
    output_dims: list  # per gmx dim: the output dim it produces, or None (size 1)


def layout_of(spec: GatherSpec) -> Layout:
    """Merge input dims and output dims into gmx dims, keeping both orders.

    Iota coordinates pair an input dim with an output dim. Between two pairs,
    the remaining output dims are hosted right-aligned by the remaining input
    dims; extra output dims get new unit input dims in front.
    """
    pairs = [(d, c.dim) for d, c in enumerate(spec.coords) if isinstance(c, Iota)]
    require(all(b1 < b2 for (_, b1), (_, b2) in zip(pairs, pairs[1:])), "iota dims are permuted")
    layout = Layout([], [])
    previous = (-1, -1)
    for d, b in pairs + [(len(spec.coords), len(spec.out_shape))]:
        inputs = list(range(previous[0] + 1, d))
        outputs = [x for x in range(previous[1] + 1, b) if spec.out_shape[x] != 1]
        extra = len(outputs) - len(inputs)
        for x in outputs[: max(extra, 0)]:
            layout.input_dims.append(None)
            layout.output_dims.append(x)
        hosted = outputs[max(extra, 0):]
        for i, d_in in enumerate(inputs):
            offset = i - (len(inputs) - len(hosted))
            layout.input_dims.append(d_in)
            layout.output_dims.append(hosted[offset] if offset >= 0 else None)
        if d < len(spec.coords):
            layout.input_dims.append(d)
            layout.output_dims.append(b)
        previous = (d, b)
    return layout


# --- Emission -------------------------------------------------------------------


def reachable_sizes(spec: GatherSpec) -> list[int]:
    """Per input dim, the extent the coordinates can reach (from
    its `reachable_offsets` on): an iota reaches its output dim's size, a constant
    0 one element, an index the whole dim."""
    sizes = list(spec.input_shape)
    for d, coord in enumerate(spec.coords):
        if isinstance(coord, Iota):
            require(coord.start + spec.out_shape[coord.dim] <= sizes[d], "iota beyond its input dim")
            sizes[d] = spec.out_shape[coord.dim]
        elif isinstance(coord, Zero):
            sizes[d] = 1
    return sizes


def reachable_offsets(spec: GatherSpec) -> list[int]:
    """Per input dim, the first element the coordinates can reach: an iota's start, else 0."""
    return [c.start if isinstance(c, Iota) else 0 for c in spec.coords]


def _slice_input(spec: GatherSpec) -> tuple[ir.Value, list[int]]:
    """The input cut to what the coordinates can reach, as a `tensor.extract_slice`."""
    sizes, offsets = reachable_sizes(spec), reachable_offsets(spec)
    if sizes == spec.input_shape:
        return spec.input, sizes
    element = ir.RankedTensorType(spec.input.type).element_type
    source = spec.input if spec.view is None else emit_view(spec.input, spec.view, fold_constant=True)
    sliced = tensor.extract_slice(
        tensor_type(sizes, element), source, [], [], [], offsets, sizes, [1] * len(sizes)
    )
    return sliced, sizes


def _gmx_shape(shape_by_output: Sequence[int], layout: Layout) -> list[int]:
    return [1 if b is None else shape_by_output[b] for b in layout.output_dims]


def _index_element_type(coords: list[Indexed]):
    """The widest index element type among the coordinates."""
    return max((ir.ShapedType(c.value.type).element_type for c in coords), key=integer_width)


def _shared_tuple(coords: list[Indexed]) -> bool:
    """All coordinates are the components, in order, of one tuple tensor."""
    first = coords[0]
    return first.tuple_size == len(coords) and all(
        c.value == first.value and c.shape == first.shape and c.component == j and c.tuple_size == first.tuple_size
        for j, c in enumerate(coords)
    )


def constant_coordinate(coord: Indexed) -> np.ndarray | None:
    """The values of a constant single coordinate over its `shape`, or None."""
    if coord.array is not None:
        return np.asarray(coord.array).reshape(coord.shape)
    if coord.tuple_size != 1 or coord.maps:
        return None
    array = constant_value(coord.value)
    if array is None or array.size != int(math.prod(coord.shape)):
        return None
    return array.reshape(coord.shape)


def _folded_indices(coords: list[Indexed], layout: Layout, logical: list[int]) -> np.ndarray | None:
    """The gmx indices as one array (last dim folded) when every coordinate
    is constant: a broadcast of a constant index is folded, not materialised
    at run time (`w[torch.arange(8).expand(2, 8)]`)."""
    arrays = [constant_coordinate(c) for c in coords]
    if any(a is None for a in arrays):
        return None
    columns = [np.broadcast_to(a.reshape(_gmx_shape(c.shape, layout)), logical) for a, c in zip(arrays, coords)]
    return np.stack(columns, axis=-1).reshape(logical[:-1] + [logical[-1] * len(coords)])


def _column(coord: Indexed, own: list[int], logical: list[int], element_type) -> ir.Value:
    """One coordinate as a `logical + [1]` tensor of `element_type`."""
    array = constant_coordinate(coord)
    if array is not None:  # folded: no views, cast or broadcast at run time
        return new_constant(np.broadcast_to(array.reshape(own), logical).reshape(logical + [1]), element_type)
    value = materialize(coord)
    if coord.tuple_size > 1:
        shape = list(coord.shape)
        value = emit_view(value, shape + [coord.tuple_size])
        rank = len(shape) + 1
        value = tensor.extract_slice(
            tensor_type(shape + [1], ir.RankedTensorType(value.type).element_type),
            value, [], [], [], [0] * (rank - 1) + [coord.component], shape + [1], [1] * rank,
        )
    if ir.RankedTensorType(value.type).element_type != element_type:
        value = tosa.cast(tensor_type(static_shape_of(value), element_type), value)
    if own == logical:
        return emit_view(value, logical + [1])
    added = [g for g, (a, b) in enumerate(zip(own, logical)) if a != b]
    squeezed = emit_view(value, [s for g, s in enumerate(own) if g not in added])
    init = tensor.empty(logical, element_type)
    broadcast = linalg.broadcast(squeezed, outs=[init], dimensions=added)
    broadcast = broadcast if isinstance(broadcast, ir.Value) else broadcast.results[0]
    return emit_view(broadcast, logical + [1])


def indices_operand(coords: list[Indexed], layout: Layout, logical: list[int]) -> ir.Value:
    """The gmx indices operand: the coordinate tuples, last dim folded (c = k)."""
    k = len(coords)
    folded = logical[:-1] + [logical[-1] * k]
    constant = _folded_indices(coords, layout, logical)
    if constant is not None:
        return new_constant(constant, _index_element_type(coords))
    full = all(_gmx_shape(c.shape, layout) == logical for c in coords)
    if full and k == 1 and coords[0].tuple_size == 1:
        return emit_view(materialize(coords[0]), logical)
    if full and _shared_tuple(coords):
        return emit_view(coords[0].value, folded)
    element_type = _index_element_type(coords)
    columns = [_column(c, _gmx_shape(c.shape, layout), logical, element_type) for c in coords]
    if k == 1:
        return emit_view(columns[0], logical)
    packed = tensor.concat(tensor_type(logical + [k], element_type), len(logical), columns)
    return emit_view(packed, folded)


def materialize(coord: Indexed) -> ir.Value:
    """The coordinate's tensor (a new compact constant where it was folded)."""
    if coord.array is not None:
        return new_constant(coord.array, ir.RankedTensorType(coord.value.type).element_type)
    value = coord.value
    for root, leaf in reversed(coord.maps):
        value = clone_map(root, leaf, value)
    return value


def clone_map(root: ir.Value, leaf: ir.Value, new_leaf: ir.Value) -> ir.Value:
    """The elementwise map from `leaf` to `root`, rebuilt on `new_leaf`'s shape
    (splat constants re-created at its rank)."""
    shape = static_shape_of(new_leaf)
    cloned = {}

    def clone(value: ir.Value) -> ir.Value:
        if value == leaf:
            return new_leaf
        for old, new in cloned.items():
            if old == value:
                return new
        element = ir.ShapedType(value.type).element_type
        splat = splat_value(value)  # the map's only constants are splats
        if splat is not None:
            result = new_constant(np.full([1] * len(shape), splat), element, tosa_const=True)
        else:
            op = defining_op(value)
            operands = [o if (op.name == "tosa.mul" and i == 2) else clone(o) for i, o in enumerate(op.operands)]
            created = ir.Operation.create(
                op.name, results=[tensor_type(shape, element)], operands=operands,
                attributes={a.name: a.attr for a in op.attributes},
            )
            result = created.results[0]
        cloned[value] = result
        return result

    return clone(root)


def synthesize(spec: GatherSpec) -> ir.Value:
    """Emit the gather `spec` describes at the current insertion point: a
    value of shape `result_shape` (a view of the input when the gather is the
    identity). Raises NoMatch (before emitting anything) when gmx cannot
    express it.
    """
    plan = plan_of(spec)
    x, sliced_shape = _slice_input(spec)
    if not plan.indexed:
        require(plan.gmx_out == [sliced_shape[d] if d is not None else 1 for d in plan.layout.input_dims],
                "the identity gather is not a view of its input")
        return emit_view(x, spec.result_shape)
    return emit_gather(RaisedGather(
        Viewed(x, plan.gmx_input, fold_constant=True),
        Viewed(lambda: indices_operand(plan.indexed, plan.layout, plan.logical)),
        plan.axes, spec.mode, result=Viewed(shape=spec.result_shape)))


@dataclass
class Plan:
    layout: Layout
    indexed: list
    axes: list
    gmx_input: list
    gmx_out: list
    logical: list

    def form(self, spec: GatherSpec) -> tuple:
        """What the emitted gmx op looks like, to compare with an existing one."""
        if not self.indexed:
            return ("identity",)
        k = len(self.indexed)
        folded = self.logical[:-1] + [self.logical[-1] * k]
        constant = _folded_indices(self.indexed, self.layout, self.logical)
        if constant is not None:
            indices_root = _constant_form(constant, _index_element_type(self.indexed))
        elif len(self.indexed) == 1 and self.indexed[0].tuple_size == 1 and self.indexed[0].array is None or _shared_tuple(self.indexed):
            indices_root = strip_views(self.indexed[0].value)[0]
            viewed = constant_value(indices_root)
            if viewed is not None and viewed.size == math.prod(folded):
                # emitted as views of it: named by value, as `current_form` names a constant
                # (else a constant tuple tensor looks new to every rewrite, which then never stops)
                indices_root = _constant_form(viewed.reshape(folded), _index_element_type(self.indexed))
        else:
            indices_root = ("a new tuple tensor",)  # always different (not None: a Value refuses `== None`)
        return (strip_views(spec.input)[0], tuple(self.gmx_input), indices_root, tuple(folded),
                tuple(self.axes), tuple(self.gmx_out))


def plan_of(spec: GatherSpec) -> Plan:
    """The gmx op for `spec`, without emitting anything; NoMatch if impossible."""
    require(len(spec.coords) == len(spec.input_shape), "not one coordinate per input dim")
    layout = layout_of(spec)
    sizes = reachable_sizes(spec)
    gmx_input = [1 if d is None else sizes[d] for d in layout.input_dims]
    gmx_out = _gmx_shape(spec.out_shape, layout)
    position = {d: g for g, d in enumerate(layout.input_dims) if d is not None}
    indexed = [(d, c) for d, c in enumerate(spec.coords) if isinstance(c, Indexed)]
    if indexed and indexed[0][1].tuple_size > 1 and _shared_tuple([c for _, c in sorted(indexed, key=lambda dc: dc[1].component)]):
        indexed.sort(key=lambda dc: dc[1].component)
    axes = [position[d] for d, _ in indexed]
    coords = [c for _, c in indexed]
    logical = [1] * len(layout.input_dims)
    for c in coords:
        for g, s in enumerate(_gmx_shape(c.shape, layout)):
            logical[g] = max(logical[g], s)
    # Every output dim comes from an iota or from the indices; where the
    # indices are constant along it (a broadcast index), they are broadcast
    # there (a small tensor: iota dims stay 1).
    require(bool(coords) or all(
        gmx_out[g] == 1 or (d is not None and isinstance(spec.coords[d], Iota))
        for g, d in enumerate(layout.input_dims)
    ), "output dim produced by nothing")
    for g, d in enumerate(layout.input_dims):
        if coords and not (d is not None and isinstance(spec.coords[d], Iota)):
            logical[g] = gmx_out[g]
    if coords:
        k = len(coords)
        folded = logical[:-1] + [logical[-1] * k]
        try:
            inferred = infer_output_shape(gmx_input, folded, axes)
        except GatherShapeError as error:
            raise NoMatch(str(error)) from None
        require(list(inferred) == gmx_out, f"layout error {inferred} != {gmx_out}")
    require(int(math.prod(gmx_out)) == int(math.prod(spec.result_shape)), "result size differs")
    return Plan(layout, coords, axes, gmx_input, gmx_out, logical)


# --- Reading a gmx op back --------------------------------------------------------


def gathered_shape(op) -> list[int]:
    """The output shape of the gather a gmx op is or mirrors: a gather's
    result; for a `gmx.scatter_multiaxis`, the gather of the same input,
    indices and axes (the positions it writes, the shape of its updates)."""
    if op.name == OP_NAME:
        return require_static_shape(op.results[0])
    return infer_output_shape(require_static_shape(op.operands[0]), require_static_shape(op.operands[1]),
                              read_axes(op))


def spec_of_gmx(op) -> GatherSpec:
    """The spec an existing static `gmx.gather_multiaxis` computes; of a
    `gmx.scatter_multiaxis`, the positions it writes (`scatter_spec`).

    Only a "raise" (default) op is read: the rewrites of a spec change
    axis sizes and index values, which no other mode survives, so an op
    with another mode is NoMatch (it is left as it is)."""
    mode, _ = read_mode(op)
    require(mode is Mode.RAISE, f'mode "{mode}" (only "raise" gathers are rewritten)')
    x, indices = op.operands[0], op.operands[1]
    shape, out = require_static_shape(x), gathered_shape(op)
    index_shape = require_static_shape(indices)
    axes = read_axes(op)
    require(len(shape) >= 1, "rank-0 gather")
    k = max(len(axes), 1)
    logical = index_shape[:-1] + [index_shape[-1] // k]
    coords = []
    for d in range(len(shape)):
        if d in axes:
            coords.append(Indexed(indices, tuple(logical), axes.index(d), len(axes)))
        elif shape[d] == 1:
            coords.append(Zero())
        else:
            coords.append(Iota(d))
    return GatherSpec(x, out, coords, list(out))


def _constant_form(array: np.ndarray, element_type) -> tuple:
    """How `Plan.form` names constant indices: by their values, not by the op
    holding them (a folded constant is re-created by every rewrite)."""
    return ("constant", str(element_type), tuple(array.shape), np.asarray(array, dtype=np.int64).tobytes())


def current_form(op) -> tuple:
    """`Plan.form` of an existing gmx op."""
    indices = op.operands[1]
    constant = constant_value(indices)
    indices_root = (strip_views(indices)[0] if constant is None
                    else _constant_form(constant, ir.ShapedType(indices.type).element_type))
    return (strip_views(op.operands[0])[0], tuple(static_shape(op.operands[0].type)),
            indices_root, tuple(static_shape(op.operands[1].type)),
            tuple(read_axes(op)), tuple(gathered_shape(op)))


def dense_attribute(array: np.ndarray, element_type) -> ir.DenseElementsAttr:
    """`array` (int values) as the elements attribute of a tensor of its shape and `element_type`."""
    width = integer_width(element_type)
    dtype = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[width]
    return ir.DenseElementsAttr.get(np.ascontiguousarray(array.astype(dtype)),
                                    type=tensor_type(list(array.shape), element_type))


def new_constant(array: np.ndarray, element_type, tosa_const: bool = False) -> ir.Value:
    """A constant tensor holding `array` (int values) in `element_type`
    (`arith.constant`, or `tosa.const` next to other TOSA ops)."""
    attribute = dense_attribute(array, element_type)
    if tosa_const:
        return tosa.const(attribute)
    return arith.constant(tensor_type(list(array.shape), element_type), attribute)
