"""raise-tensor-gather: upstream's `tensor.gather` becomes gmx.

Upstream defines `tensor.gather` (TensorOps.td) but no pass lowers or
bufferizes it; raised into gmx it gets gmx's lowering. Its semantics: for
indices of shape `B + [k]` and `gather_dims = [g_0, ..., g_{k-1}]`,

    result[b, s] = source[p],  p[g_j] = indices[b, j],  p[d] = s[d] otherwise

with the result shaped `B + source shape`, the gathered dims kept as unit
dims (rank-preserving) or dropped (rank-reducing). That is a gather over
loops (`loop_gathers`): a tuple of k coordinates read from one tensor.
An index out of range is undefined for `tensor.gather`; gmx's checked
`raise` refines it. Indices of type `index` are cast to i64 first (gmx
indices are signless integers), by a linalg.generic.

    %g = tensor.gather %x[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<3x5xf32>
becomes
    %e = tensor.expand_shape %i [[0], [1, 2]] output_shape [3, 1, 2] : tensor<3x2xi32> into tensor<3x1x2xi32>
    %r = "gmx.gather_multiaxis"(%x, %e) {axes = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<3x1x2xi32>) -> tensor<3x5x1xf32>
    %g = tensor.collapse_shape %r [[0], [1, 2]] : tensor<3x5x1xf32> into tensor<3x5xf32>
"""

from __future__ import annotations

from gmx.dialect.gmx import static_shape
from gmx.dialect.mlir import arith, ir, linalg, tensor

from .gather_spec import Iota
from ..patterns import pattern, require
from .loop_gathers import IndexRead, LoopGather, replace_by_gmx


def tensor_gather_coords(source_rank: int, batch_rank: int, gather_dims: list[int], rank_reducing: bool) -> list:
    """Per source dim: `("index", j)` (component j of the index tuple) or
    `Iota(d)` (the result's dim d), for a `tensor.gather`.

    >>> tensor_gather_coords(3, 1, [0, 2], True)
    [('index', 0), Iota(dim=1), ('index', 1)]
    >>> tensor_gather_coords(3, 1, [1], False)
    [Iota(dim=1), ('index', 0), Iota(dim=3)]
    """
    coords, position = [], batch_rank
    for s in range(source_rank):
        if s in gather_dims:
            coords.append(("index", gather_dims.index(s)))
            if not rank_reducing:
                position += 1
        else:
            coords.append(Iota(position))
            position += 1
    return coords


def integer_indices(indices: ir.Value) -> ir.Value:
    """`index` indices as i64 (an elementwise linalg.generic), others as they are."""
    index_type = ir.RankedTensorType(indices.type)
    if not isinstance(index_type.element_type, ir.IndexType):
        return indices
    i64 = ir.IntegerType.get_signless(64)
    shape = static_shape(index_type)
    index = ir.IndexType.get()
    sizes = [size if size is not None else tensor.dim(indices, arith.constant(index, d)) for d, size in enumerate(shape)]
    init = tensor.empty(sizes, i64)
    identity = ir.AffineMap.get_identity(len(shape))
    parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    generic = linalg.GenericOp([init.type], [indices], [init],
                               ir.ArrayAttr.get([ir.AffineMapAttr.get(identity)] * 2),
                               ir.ArrayAttr.get([parallel] * len(shape)))
    block = generic.regions[0].blocks.append(ir.IndexType.get(), i64)
    with ir.InsertionPoint(block):
        linalg.YieldOp([arith.index_cast(i64, block.arguments[0])])
    return generic.results[0]


def raise_tensor_gather(op, rewriter):
    """A tensor.gather is one gmx op (see the module docstring)."""
    source, indices = op.operands[0], op.operands[1]
    result_type = ir.RankedTensorType(op.results[0].type)
    index_shape = static_shape(ir.RankedTensorType(indices.type))
    require(len(index_shape) >= 1, "rank-0 indices")
    gather_dims = list(ir.DenseI64ArrayAttr(op.attributes["gather_dims"]))
    source_rank, batch_rank = ir.RankedTensorType(source.type).rank, len(index_shape) - 1
    rank_reducing = result_type.rank != batch_rank + source_rank
    sizes = {d: (indices, d) for d in range(batch_rank) if static_shape(result_type)[d] is None}
    for s, coord in enumerate(tensor_gather_coords(source_rank, batch_rank, gather_dims, rank_reducing)):
        if isinstance(coord, Iota) and static_shape(result_type)[coord.dim] is None:
            sizes[coord.dim] = (source, s)

    def coords(index_tensor):
        batch = tuple(("loop", d) for d in range(batch_rank))
        return [IndexRead(index_tensor, batch + (("at", c[1]),)) if isinstance(c, tuple) else c
                for c in tensor_gather_coords(source_rank, batch_rank, gather_dims, rank_reducing)]

    gather = LoopGather(source, coords(indices), result_type, sizes)
    if not isinstance(ir.RankedTensorType(indices.type).element_type, ir.IndexType):
        return replace_by_gmx(op, gather, rewriter)
    # the cast is emitted only once the gather is known to match
    return replace_by_gmx(op, gather, rewriter,
                          prepare=lambda: LoopGather(source, coords(integer_indices(indices)), result_type, sizes))


PATTERNS = (pattern(raise_tensor_gather, "tensor.gather"),)
