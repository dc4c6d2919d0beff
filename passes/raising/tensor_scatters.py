"""raise-tensor-scatter: upstream's `tensor.scatter` becomes gmx.

Upstream defines `tensor.scatter` (TensorOps.td) but no pass lowers or
bufferizes it; raised into gmx it gets gmx's lowering. It is the inverse of
`tensor.gather` (`tensor_gathers`): for indices of shape `B + [k]` and
`scatter_dims = [s_0, ..., s_{k-1}]`, with `source` shaped as that gather's
result (`B + dest shape`, the scattered dims unit dims or dropped),

    result = dest;  result[p] = source[b, s],  p[s_j] = indices[b, j],  p[d] = s[d] otherwise

That is `stablehlo.gather`'s layout with the index vector last
(`stablehlo_dims.plan_dims` plans it: the scattered dims collapsed where
the source drops them, one-element window dims where it keeps them).
`unique` (which the verifier demands) is the op's `unique_indices`; an index
out of range is undefined for `tensor.scatter`, and gmx's checked "raise"
refines it. Indices of type `index` are cast to i64 first
(`tensor_gathers.integer_indices`).

    %r = tensor.scatter %u into %x[%i] scatter_dims([0, 2]) unique
             : (tensor<3x5xf32>, tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<4x5x6xf32>
becomes
    %e = tensor.expand_shape %i [[0], [1, 2]] output_shape [3, 1, 2] : tensor<3x2xi32> into tensor<3x1x2xi32>
    %v = tensor.expand_shape %u [[0], [1, 2]] output_shape [3, 5, 1] : tensor<3x5xf32> into tensor<3x5x1xf32>
    %r = "gmx.scatter_multiaxis"(%x, %e, %v) {axes = array<i64: 0, 2>, unique_indices}
             : (tensor<4x5x6xf32>, tensor<3x1x2xi32>, tensor<3x5x1xf32>) -> tensor<4x5x6xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from gmx.dialect.mlir import ir
from gmx.dialect.modes import Mode

from .raised_scatter import emit_scatter
from .stablehlo_dims import GatherDims
from .stablehlo_indices import Built, Indexing, ranked_shape_of
from .stablehlo_scatters import planned_scatter
from .tensor_gathers import integer_indices
from ..patterns import pattern, require


def tensor_scatter_dims(dest_shape: Sequence, batch_rank: int, scatter_dims: Sequence[int],
                        rank_reducing: bool) -> GatherDims:
    """The gather dimension numbers of a `tensor.scatter` into `dest_shape`
    (the gather reading where it writes).

    >>> tensor_scatter_dims([4, 5, 6], 1, [0, 2], True).offset_dims
    (1,)
    >>> tensor_scatter_dims([4, 5, 6], 1, [1], False).slice_sizes
    (4, 1, 6)
    """
    kept = [d for d in range(len(dest_shape)) if not (rank_reducing and d in scatter_dims)]
    return GatherDims(
        offset_dims=tuple(range(batch_rank, batch_rank + len(kept))),
        collapsed_slice_dims=tuple(scatter_dims) if rank_reducing else (),
        start_index_map=tuple(scatter_dims),
        index_vector_dim=batch_rank,
        slice_sizes=tuple(1 if d in scatter_dims else dest_shape[d] for d in range(len(dest_shape))),
    )


def raise_tensor_scatter(op, rewriter):
    """A tensor.scatter is one gmx scatter (see the module docstring)."""
    with op.location:
        source, dest, indices = op.operands[0], op.operands[1], op.operands[2]
        dest_shape, source_shape, index_shape = ranked_shape_of(dest), ranked_shape_of(source), ranked_shape_of(indices)
        require(len(index_shape) >= 1, "rank-0 indices")
        scatter_dims = list(ir.DenseI64ArrayAttr(op.attributes["scatter_dims"]))
        batch_rank = len(index_shape) - 1
        rank_reducing = len(source_shape) != batch_rank + len(dest_shape)
        read = Indexing(dest, indices, tensor_scatter_dims(dest_shape, batch_rank, scatter_dims, rank_reducing), None)
        start = Built(index_shape, lambda: integer_indices(indices))
        scatter = planned_scatter(read, start, source, ir.RankedTensorType(op.results[0].type), "scatter's source",
                                  Mode.RAISE, unique="unique" in op.attributes)
        with rewriter.ip:
            rewriter.replace_op(op, [emit_scatter(scatter)])
    return False


PATTERNS = (pattern(raise_tensor_scatter, "tensor.scatter"),)
