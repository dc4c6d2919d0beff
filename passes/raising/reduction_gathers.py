"""raise-reduction-gather: a gather read inside a loop nest with reduction
loops becomes a gmx op feeding the loop nest.

torch-mlir's TorchToLinalg lowers `embedding_bag` (mode sum) to one
`linalg.generic` over (bag, index, column) whose body reads
`weight[indices[j], k]` while it reduces over the indices `j`; linalg's
elementwise fusion puts a gather generic into its consumer reduction the
same way. `raise-linalg-gather` raises only all-parallel gathers, so such a
read stays a `tensor.extract` at a data-dependent position, unchecked.

A `linalg.generic` with a reduction loop, or a `linalg.reduce`, is rewritten
when its block holds a `tensor.extract` of a tensor from outside whose
positions `linalg_gathers.read_element` reads as a gather (each a
`linalg.index`, the constant 0, or gmx's reading, in one mode, of one index
value: an input's element or an index tensor extracted at loop indices), at
least one of them from an index value. The read is a function of the loop
dims its coordinates use alone (parallel or reduction: the body computes it
at every point of the loops, whatever it then does with it), so it is the
gather `g[o] = source[p(o)]` over those dims, in their order: one
`gmx.gather_multiaxis` (`loop_gathers.emit_loop_gather`), which the loop
nest (a `linalg.generic`: a `linalg.reduce` cannot take one more input)
reads as one more input through the projection onto those dims. Everything
else in the body stays; the positions' ops go with the extract when nothing
else uses them. The gathered tensor is as large as those dims (indices x
columns for embedding_bag), each element read once, not once per bag:

    %r = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d1), (d0, d1, d2) -> (d0),
                                          (d0, d1, d2) -> (d0, d2)],
                         iterator_types = ["parallel", "reduction", "parallel"]}
           ins(%indices, %offsets : tensor<8xi64>, tensor<3xi64>) outs(%zeros : tensor<3x4xf32>) {
    ^bb0(%in: i64, %in_0: i64, %out: f32):
      %in_bag = ...                          (offsets[d0] <= d1 < next offset)
      %p = arith.index_cast %in : i64 to index
      %k = linalg.index 2 : index
      %e = tensor.extract %weight[%p, %k] : tensor<10x4xf32>
      %s = arith.addf %e, %out : f32
      %y = arith.select %in_bag, %s, %out : f32
      linalg.yield %y : f32
    } -> tensor<3x4xf32>
becomes
    %i = tensor.expand_shape %indices [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
    %g = "gmx.gather_multiaxis"(%weight, %i) {axes = array<i64: 0>}
           : (tensor<10x4xf32>, tensor<8x1xi64>) -> tensor<8x4xf32>
    %r = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d1), (d0, d1, d2) -> (d0),
                                          (d0, d1, d2) -> (d1, d2), (d0, d1, d2) -> (d0, d2)], ...}
           ins(%indices, %offsets, %g : tensor<8xi64>, tensor<3xi64>, tensor<8x4xf32>) outs(%zeros : tensor<3x4xf32>) {
    ^bb0(%in: i64, %in_0: i64, %e: f32, %out: f32):
      %in_bag = ...
      %s = arith.addf %e, %out : f32
      %y = arith.select %in_bag, %s, %out : f32
      linalg.yield %y : f32
    } -> tensor<3x4xf32>

An index out of range, undefined in the source (no `cf.assert` there), is
gmx's `IndexError` in checked mode once raised. A read whose positions mix
a loop index with an index value, or that the gather cannot express, is
left alone (see `read_element`).
"""

from __future__ import annotations

from dataclasses import replace

from gmx.dialect.gmx import mlir_shape
from gmx.dialect.mlir import ir, linalg

from .gather_spec import Iota
from .linalg_gathers import Body, ElementRead, read_element
from .loop_gathers import IndexRead, LoopGather, emit_loop_gather, pair_unit_dims
from ..patterns import NoMatch, pattern, require
from ..views import shape_of


def loop_nest(op) -> tuple[list, list]:
    """(each operand's indexing map, each loop's iterator: "parallel" or
    "reduction") of a linalg.generic or a linalg.reduce (its inputs read
    by the identity, its inits by the projection that drops `dimensions`)."""
    if op.name == "linalg.generic":
        maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
        return maps, ["reduction" if "reduction" in str(t) else "parallel" for t in op.attributes["iterator_types"]]
    rank = len(shape_of(op.inputs[0]))
    reduced = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    kept = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) for d in range(rank) if d not in reduced])
    maps = [ir.AffineMap.get_identity(rank)] * len(op.inputs) + [kept] * len(op.inits)
    return maps, ["reduction" if d in reduced else "parallel" for d in range(rank)]


def read_dims(coords: list) -> list[int]:
    """The loop dims a read's coordinates use, in order: the gathered tensor's dims.

    >>> read_dims([IndexRead(None, (("loop", 1),)), Iota(2)])
    [1, 2]
    """
    dims = set()
    for coord in coords:
        if isinstance(coord, Iota):
            dims.add(coord.dim)
        elif isinstance(coord, IndexRead):
            dims.update(d for kind, d in coord.dims if kind == "loop")
    return sorted(dims)


def onto(coords: list, dims: list[int]) -> list:
    """The coordinates over the gathered tensor's dims (loop dim `dims[o]` is its dim o).

    >>> onto([IndexRead(None, (("loop", 1),)), Iota(2)], [1, 2])
    [IndexRead(tensor=None, dims=(('loop', 0),), whole=True), Iota(dim=1, start=0)]
    """
    moved = []
    for coord in coords:
        if isinstance(coord, Iota):
            coord = replace(coord, dim=dims.index(coord.dim))
        elif isinstance(coord, IndexRead):
            coord = replace(coord, dims=tuple((k, dims.index(d) if k == "loop" else d) for k, d in coord.dims))
        moved.append(coord)
    return moved


def loop_sizes(operands: list, maps: list, loops: int) -> list[tuple]:
    """Per loop dim, (its static size or None, (operand, dim) whose size it is)."""
    sizes = [None] * loops
    for operand, affine_map in zip(operands, maps):
        shape = shape_of(operand)
        for position, expr in enumerate(affine_map.results):
            if isinstance(expr, ir.AffineDimExpr) and (sizes[expr.position] is None or sizes[expr.position][0] is None):
                sizes[expr.position] = (shape[position], (operand, position))
    require(None not in sizes, "a loop dim no operand sizes")
    return sizes


def _find_read(body: Body):
    """The first tensor.extract of the block that is a gather, and its read."""
    reasons = []
    for operation in body.block.operations:
        if operation.name != "tensor.extract" or body.inside(operation.operands[0]):
            continue
        try:
            read = read_element(body, operation)
            require(any(isinstance(c, IndexRead) for c in read.coords), "no position read from an index")
            return operation, read
        except NoMatch as reason:
            reasons.append(str(reason))
    raise NoMatch(f"no tensor.extract in the body is a gather ({'; '.join(reasons) or 'none from outside'})")


def _gather_of(op, extract, read: ElementRead, maps: list) -> tuple[LoopGather, ir.AffineMap]:
    """The gather the read is over the loop dims it uses, and the map the loop nest reads it by."""
    operands = list(op.operands)
    dims = read_dims(read.coords)
    sizes = loop_sizes(operands, maps, maps[0].n_dims)
    shape = [sizes[d][0] for d in dims]
    element = ir.RankedTensorType(extract.operands[0].type).element_type
    result_type = ir.RankedTensorType.get(mlir_shape(shape), element)
    coords = pair_unit_dims(onto(read.coords, dims), shape)
    dynamic = {o: sizes[d][1] for o, d in enumerate(dims) if shape[o] is None}
    gather = LoopGather(extract.operands[0], coords, result_type, dynamic, read.mode)
    return gather, ir.AffineMap.get(maps[0].n_dims, 0, [ir.AffineDimExpr.get(d) for d in dims])


def raise_reduction_gather(op, rewriter):
    """A `linalg.generic` with a reduction loop, or a `linalg.reduce`, whose
    body reads an element of a tensor at positions computed from index
    values (embedding_bag's `weight[indices[j], k]`) -> a gmx op over the
    loop dims the read uses, read by the loop nest as one more input."""
    op = op.operation.opview
    require(all(isinstance(r.type, ir.RankedTensorType) for r in op.results) and len(op.results) >= 1,
            "not on tensors")
    with op.location:
        maps, iterators = loop_nest(op)
        require("reduction" in iterators, "no reduction loop (raise-linalg-gather's)")
        body = Body(op, maps)
        extract, read = _find_read(body)
        gather, read_map = _gather_of(op, extract, read, maps)
    inputs, outputs = list(op.inputs), list(op.outputs if op.name == "linalg.generic" else op.inits)
    block = body.block
    dying = dying_with(extract, read.ops)
    kept = [a for a in range(len(inputs)) if not only_used_by(block.arguments[a], dying)]
    gathered = emit_loop_gather(op, gather, rewriter)
    with rewriter.ip, op.location:
        all_maps = [maps[a] for a in kept] + [read_map] + maps[len(inputs):]
        iterator_types = ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators])
        generic = linalg.GenericOp_([inputs[a] for a in kept] + [gathered], outputs,
                                    ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in all_maps]), iterator_types)
    new = generic.regions[0].blocks[0]
    extract.results[0].replace_all_uses_with(new.arguments[len(kept)])
    for operation in dying:  # users first
        rewriter.erase_op(operation)
    moved = kept + [None] + list(range(len(inputs), len(block.arguments)))
    for argument in block.arguments:
        if argument.arg_number in moved:
            argument.replace_all_uses_with(new.arguments[moved.index(argument.arg_number)])
    for operation in list(block.operations):
        new.append(operation)
    rewriter.replace_op(op, list(generic.results))
    return False


def dying_with(extract, ops: list) -> list:
    """`extract` and those of `ops` (its positions' ops) that only it uses,
    directly or not: users before the values they use."""
    dying = [extract]
    while True:
        found = [o for o in ops if not any(o == d for d in dying) and only_used_by_results(o, dying)]
        if not found:
            return dying
        dying += found[:1]


def only_used_by_results(operation, dying: list) -> bool:
    return all(only_used_by(result, dying) for result in operation.results)


def only_used_by(value: ir.Value, dying: list) -> bool:
    """Whether `value` is used, and only by ops of `dying`."""
    uses = [use.owner for use in value.uses]
    return bool(uses) and all(any(owner == d for d in dying) for owner in uses)


PATTERNS = (pattern(raise_reduction_gather, "linalg.generic", "linalg.reduce"),)
