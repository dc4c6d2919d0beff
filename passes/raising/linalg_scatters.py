"""raise-tm-tensor-scatter: torch-mlir's `tm_tensor.scatter` becomes a gmx scatter.

torch-mlir's linalg-on-tensors export spells `scatter.src`, `scatter_add`,
`scatter_reduce`, `index_put` and `index_add` as `tm_tensor.scatter`:
row `i` of its indices (`N x k`) holds the coordinates of update `i`,
column `j` indexing dim `dimension_map[j]` of the original; the updates are
`N` elements (every dim indexed) or `N` slices of the original's rank (1
along the indexed dims, whole along the others: `index_put` of rows); the
region combines the update (first argument) with the original (second).
The element-wise scatters flatten their index and source first: a one-loop
`linalg.generic` yields, per update, each coordinate (the loop index
unravelled over the index tensor's shape, or the index tensor read there)
and the source element, and `tensor.insert_slice`s pack the coordinates
into the indices (`index_put` with None entries, `index_copy` along a later
dim: the full coordinate tuples are aranges and the index broadcast by
generics, concatenated). What the generic computes is read by evaluating it
(`linalg_gathers.Body`) on every loop index: a coordinate is a constant
(an iota: a non-axis dim), or the index tensor read in row-major order;
the updates are the source read in that order (or its leading corner of
the index's shape: `scatter(d, i, src)` with `src` larger than `i`), or one value (a
`linalg.fill`: torch's `include_self=False` scatters the reduction's
identity first; a region combining the original with a constant: `mean`'s
counts scatter ones). Regions: the update alone is "none"; `addf`/`addi`,
`mulf`/`muli`, `maximumf`/`maxsi`, `minimumf`/`minsi` of the two are "add",
"mul", "max", "min" (NaN propagating, as torch's). `unique_indices(true)`
(torch-mlir's `index_put`) is kept as the promise.
"""

from __future__ import annotations

import numpy as np

from gmx.dialect.mlir import ir
from gmx.dialect.reductions import Reduction

from .coordinate_tuples import concat_parts
from .coordinates import broadcast_of
from .gather_spec import GatherSpec, Indexed, Iota, require_static_shape
from .linalg_gathers import Body
from .scatter_spec import ScatterWrite
from .spec_rewrites import peel_all, replace_by_spec
from ..patterns import NoMatch, pattern, require
from ..views import defining_op, op_name, static_shape_of, strip_views

SCATTER = "tm_tensor.scatter"

COMBINERS = {
    "arith.addf": Reduction.ADD, "arith.addi": Reduction.ADD,
    "arith.mulf": Reduction.MUL, "arith.muli": Reduction.MUL,
    "arith.maximumf": Reduction.MAX, "arith.maxsi": Reduction.MAX,
    "arith.minimumf": Reduction.MIN, "arith.minsi": Reduction.MIN,
}


def _scalar_constant(value: ir.Value) -> ir.Attribute | None:
    """The attribute of an `arith.constant` scalar, else None."""
    owner = defining_op(value)
    if owner is None or owner.name != "arith.constant" or isinstance(value.type, ir.ShapedType):
        return None
    return owner.attributes["value"]


def read_region(op) -> tuple[Reduction, ir.Attribute | None]:
    """The reduction a scatter's region computes and, where it combines the
    original with a constant instead of the update, that constant."""
    block = op.regions[0].blocks[0]
    update, original = block.arguments[0], block.arguments[1]
    operations = list(block.operations)
    yielded = operations[-1].operands[0]
    if len(operations) == 1:
        require(yielded == update, "the region keeps the original")
        return Reduction.NONE, None
    require(len(operations) == 2, "a region of more than one op")
    combine = operations[0]
    require(combine.name in COMBINERS and yielded == combine.results[0], f"{combine.name} in the region")
    a, b = combine.operands
    if (a == update and b == original) or (a == original and b == update):
        return COMBINERS[combine.name], None
    other = b if a == original else a if b == original else None
    constant = None if other is None else _scalar_constant(other)
    require(constant is not None, "the region combines no update and no constant with the original")
    return COMBINERS[combine.name], constant


def _fill_value(value: ir.Value) -> ir.Attribute | None:
    """The constant a `linalg.fill` fills `value` with, else None."""
    owner = defining_op(value)
    return None if owner is None or owner.name != "linalg.fill" else _scalar_constant(owner.operands[0])


# --- the flattening generic ------------------------------------------------------------------------------


def _flattening(value: ir.Value):
    """(generic, loop size, yielded value) of a result of torch-mlir's
    flattening generic: no inputs, one parallel loop."""
    generic = defining_op(value)
    require(generic is not None and generic.name == "linalg.generic", "not a linalg.generic result")
    generic = generic.opview
    require(not len(generic.inputs), "a generic with inputs")
    require([str(t) for t in generic.attributes["iterator_types"]] == ["#linalg.iterator_type<parallel>"],
            "not one parallel loop")
    n = require_static_shape(value)[0]
    yielded = list(generic.regions[0].blocks[0].operations)[-1].operands[ir.OpResult(value).result_number]
    return Body(generic), n, yielded


def _loop_values(body: Body, value: ir.Value, n: int) -> np.ndarray:
    """`value` at every loop index 0..n-1 (NoMatch if not computable from it alone)."""
    require(not any(len(list(a.uses)) for a in body.block.arguments), "the body reads its outputs")
    indices = [op for op in body.block.operations if op.name == "linalg.index"]
    require(len(indices) == 1, "not one loop index")
    loop = indices[0].results[0]
    return np.broadcast_to(np.asarray(body.evaluate(value, loop, np.arange(n, dtype=np.int64), n)), (n,))


def _row_major_read(body: Body, value: ir.Value, n: int, corner: list[int] | None = None) -> ir.Value | None:
    """The tensor `value` reads (a `tensor.extract` in the body, through
    widening casts) when it reads it in row-major order, all of it (with
    `corner`: its leading corner of that shape, in row-major order), else None."""
    while (owner := defining_op(value)) is not None and owner.name in ("arith.extsi", "arith.index_cast") \
            and body.inside(value):
        value = owner.operands[0]
    owner = defining_op(value)
    if owner is None or owner.name != "tensor.extract" or not body.inside(value):
        return None
    source = owner.operands[0]
    own = static_shape_of(source)
    shape = own if corner is None else corner
    require(not body.inside(source) and own is not None and int(np.prod(shape)) == n and len(shape) == len(own)
            and all(c <= s for c, s in zip(shape, own)), "a read of part of a tensor")
    positions = [_loop_values(body, p, n) for p in list(owner.operands)[1:]]
    expected = np.unravel_index(np.arange(n), shape) if shape else []
    require(all(np.array_equal(p, e) for p, e in zip(positions, expected)), "a read out of row-major order")
    return source


# --- the scatter ----------------------------------------------------------------------------------------


def _columns(op) -> tuple[list, list[int]]:
    """Per column of the indices, how it is read (`_coordinate`), and the
    batch shape of the updates: the flattening generic's index shape, else [N]."""
    indices = op.operands[1]
    n, k = require_static_shape(indices)
    parts = concat_parts(indices) or [(indices, 0, k)]
    columns, shape = [], None
    for operand, _, width in parts:
        if op_name(operand) == "linalg.generic":
            require(width == 1, "a generic yielding several coordinates")
            body, size, yielded = _flattening(operand)
            read = _row_major_read(body, yielded, size)
            if read is not None:
                require(shape in (None, static_shape_of(read)), "index tensors of different shapes")
                shape = static_shape_of(read)
                columns.append(("read", read))
            else:
                columns.append(("constant", _loop_values(body, yielded, size)))
        elif width == 1 and (broadcast := _broadcast_column(operand)) is not None:
            require(shape in (None, broadcast[0]), "index tensors of different shapes")
            shape, column = broadcast
            columns.append(column)
        else:
            columns += [("tuple", operand, j, width) for j in range(width)]
    return columns, shape or [n]


def _broadcast_column(part: ir.Value):
    """(its shape, the column) of an index column that is, through views, a
    `linalg.generic` broadcasting a tensor over a shape (torch-mlir's full
    coordinate tuples of `index_put` with None entries: aranges and the index
    broadcast together): ("constant", values) for an arange or a constant,
    ("broadcast", tensor, its shape over the broadcast's dims); None for any other part."""
    source = strip_views(part)[0]
    broadcast = broadcast_of(source)
    shape = static_shape_of(source)
    if broadcast is None or shape is None:
        return None
    read, dims = broadcast
    own = [shape[d] if d in dims else 1 for d in range(len(shape))]
    if op_name(strip_views(read)[0]) == "linalg.generic":  # an arange (or a constant) made by a loop
        body, size, yielded = _flattening(strip_views(read)[0])
        constant = _scalar_constant(yielded)
        values = np.full(size, ir.IntegerAttr(constant).value) if constant is not None else _loop_values(body, yielded, size)
        return shape, ("constant", np.broadcast_to(values.reshape(own), shape).reshape(-1))
    return shape, ("broadcast", read, tuple(own))


def _coordinate(column, shape: tuple, element: ir.Value) -> Indexed:
    """A column as the coordinate over the output space (`shape`: 1 along the
    slice dims); `element`: a value of the index element type (for constants)."""
    if column[0] == "read":
        return Indexed(column[1], shape)
    if column[0] == "broadcast":
        return Indexed(column[1], column[2] + (1,) * (len(shape) - len(column[2])))
    if column[0] == "constant":
        return Indexed(element, shape, array=column[1].reshape(shape))
    _, operand, j, width = column
    return Indexed(operand, shape, component=j if width > 1 else 0, tuple_size=width)


def _updates(op, batch: list[int]) -> ScatterWrite:
    """What the scatter writes: its updates (the flattened source's own
    tensor), or one value."""
    updates = op.operands[0]
    reduction, region_constant = read_region(op)
    unique = ir.BoolAttr(op.attributes["unique_indices"]).value
    value = region_constant or _fill_value(updates)
    if value is not None:
        return ScatterWrite(updates, reduction, unique, value)
    if op_name(updates) == "linalg.generic":
        body, size, yielded = _flattening(updates)
        if (scalar := _scalar_constant(yielded)) is not None:  # `x.scatter(1, i, -inf)`
            return ScatterWrite(updates, reduction, unique, scalar)
        try:
            source, corner = _row_major_read(body, yielded, size), None
        except NoMatch:  # `scatter(d, i, src)` with src larger than i: its leading corner
            source, corner = _row_major_read(body, yielded, size, batch), tuple(batch)
        require(source is not None, "updates not read in the indices' order")
        return ScatterWrite(source, reduction, unique, corner=corner)
    return ScatterWrite(updates, reduction, unique)


def scatter_spec(op) -> tuple[GatherSpec, ScatterWrite]:
    """The positions a tm_tensor.scatter writes and what it writes there."""
    original = op.operands[2]
    shape = require_static_shape(original)
    dimension_map = list(ir.DenseI64ArrayAttr(op.attributes["dimension_map"]))
    columns, batch = _columns(op)
    slice_shape = require_static_shape(op.operands[0])[1:]
    require(not slice_shape or len(slice_shape) == len(shape), "an update slice of another rank than the original")
    require(len(slice_shape) or sorted(dimension_map) == list(range(len(shape))), "an element scatter not indexing every dim")
    out = list(batch) + list(slice_shape)
    index_shape = tuple(batch) + (1,) * len(slice_shape)
    coords = [None] * len(shape)
    for j, d in enumerate(dimension_map):
        require(not slice_shape or slice_shape[d] == 1, "an update slice wider than 1 along an indexed dim")
        coords[d] = _coordinate(columns[j], index_shape, op.operands[1])
    for d in range(len(shape)):
        if coords[d] is None:
            require(slice_shape[d] == shape[d], "an update slice covering part of a dim")
            coords[d] = Iota(len(batch) + d)
    return GatherSpec(original, out, coords, out), _updates(op, list(batch))


def raise_tm_tensor_scatter(op, rewriter):
    """A tm_tensor.scatter, with the generic flattening its index and source in
    front, becomes one gmx scatter on the true axes (torch's
    `x.scatter_add(1, i, src)`, names shortened):

        %g:3 = linalg.generic {iterator_types = ["parallel"]} outs(...) {   (6 = 3 x 2 iterations)
          %t = linalg.index 0 : index
          %c = arith.remsi %t, %c2 ; %r = arith.remsi (arith.divsi %t, %c2), %c3
          %e = tensor.extract %i[%r, %c] : tensor<3x2xi64>
          %s = tensor.extract %src[%r, %c] : tensor<3x2xf32>
          linalg.yield (arith.index_cast %r), %e, %s : i64, i64, f32
        }
        %k = tensor.insert_slice %g#1 into (tensor.insert_slice %g#0 into %z[0, 0] [6, 1] [1, 1])[0, 1] [6, 1] [1, 1]
        %y = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false)
               ins(%g#2, %k : tensor<6xf32>, tensor<6x2xi64>) outs(%x : tensor<3x5xf32>) {
        ^bb0(%u: f32, %o: f32):
          tm_tensor.yield (arith.addf %u, %o) : f32
        } -> tensor<3x5xf32>
    becomes
        %y = "gmx.scatter_multiaxis"(%x, %i, %src) {axes = array<i64: 1>, reduction = "add"}
               : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    `index_put` (indices `N x k` read directly, slices of rows) becomes the
    scatter of those rows, `unique_indices` kept:

        %y = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true)
               ins(%rows : tensor<2x1x5xf32>, %r : tensor<2x1xi64>) outs(%x : tensor<3x5xf32>) {...yield %u}
    becomes
        %y = "gmx.scatter_multiaxis"(%x, %r, %rows) {axes = array<i64: 0>, unique_indices} : ... -> tensor<3x5xf32>
    A constant coordinate counting through a dim shorter than the original's
    (`index.size(d) < x.size(d)`) stays a constant index of that axis.
    """
    spec, write = scatter_spec(op)
    try:
        return replace_by_spec(op, peel_all(spec), rewriter, write=write)
    except NoMatch:  # an iota over part of a dim: the constant coordinate stays an index
        return replace_by_spec(op, spec, rewriter, write=write)


PATTERNS = (pattern(raise_tm_tensor_scatter, SCATTER),)
