"""raise-tosa-gather: a `tosa.gather` becomes a gmx op with axes = [1].

The first step of every TOSA raising; the folds of the other families then
look through what surrounds it.
"""

from __future__ import annotations

from gmx.dialect.gmx import infer_result_type, mlir_shape, static_shape
from gmx.dialect.mlir import ir
from gmx.dialect.shapes import GatherShapeError

from .gather_spec import GatherSpec, Indexed, Iota, Zero, require_static_shape
from .raised_gather import RaisedGather, Viewed, emit_gather
from .spec_rewrites import replace_by_spec
from ..patterns import NoMatch, pattern, require
from ..views import static_shape_of


def raise_tosa_gather(op, rewriter):
    """A bare tosa.gather is gmx with axes = [1] on indices with a unit dim added.

        %g = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
    becomes
        %e = tensor.expand_shape %i [[0], [1, 2]] output_shape [2, 4, 1] : ... into tensor<2x4x1xi32>
        %g = "gmx.gather_multiaxis"(%v, %e) {axes = array<i64: 1>} : ... -> tensor<2x4x3xf32>
    Dynamic shapes too (torch-mlir's `1x?` embedding indices), the unit dim
    added with `tensor.dim` sizes and the result cast back to the op's type
    where gmx infers a more or less static one:

        %g = tosa.gather %v, %i : (tensor<1x10x4xf32>, tensor<1x?xi32>) -> tensor<?x?x4xf32>
    becomes
        %w = tensor.dim %i, %c1 : tensor<1x?xi32>
        %e = tensor.expand_shape %i [[0], [1, 2]] output_shape [1, %w, 1] : ... into tensor<1x?x1xi32>
        %r = "gmx.gather_multiaxis"(%v, %e) {axes = array<i64: 1>} : ... -> tensor<1x?x4xf32>
        %g = tensor.cast %r : tensor<1x?x4xf32> to tensor<?x?x4xf32>
    TOSA leaves an index outside [0, K) undefined; gmx reports it, after
    wrapping a negative one once (docs/semantics.md#index-values).
    """
    values, indices = op.operands[0], op.operands[1]
    if static_shape_of(values) is None or static_shape_of(indices) is None:
        return _raise_dynamic_tosa_gather(op, rewriter)
    n, _, c = require_static_shape(values)
    _, w = require_static_shape(indices)
    coords = [Zero() if n == 1 else Iota(0), Indexed(indices, (n, w, 1)), Zero() if c == 1 else Iota(2)]
    return replace_by_spec(op, GatherSpec(values, [n, w, c], coords, [n, w, c]), rewriter)


def _raise_dynamic_tosa_gather(op, rewriter) -> bool:
    """raise-tosa-gather where a dim is dynamic: the rewrite written out."""
    values, indices = op.operands[0], op.operands[1]
    result_type = ir.RankedTensorType(op.results[0].type)
    index_type = ir.RankedTensorType(indices.type)
    expanded_shape = mlir_shape(static_shape(index_type) + [1])
    expanded_type = ir.RankedTensorType.get(expanded_shape, index_type.element_type, loc=op.location)
    try:
        gathered_type = infer_result_type(values.type, expanded_type, [1])
    except GatherShapeError as error:
        raise NoMatch(str(error)) from None
    require(_cast_compatible(gathered_type, result_type), f"gmx infers {gathered_type}, the op has {result_type}")
    with rewriter.ip, op.location:
        value = emit_gather(RaisedGather(Viewed(values), Viewed(indices, static_shape(index_type) + [1]), [1],
                                         result_type=result_type))
    rewriter.replace_op(op, [value])
    return False


def _cast_compatible(a: ir.RankedTensorType, b: ir.RankedTensorType) -> bool:
    """Whether `tensor.cast` may go from `a` to `b`: each dim equal or dynamic in one."""
    return a.element_type == b.element_type and all(
        x is None or y is None or x == y for x, y in zip(static_shape(a), static_shape(b))
    )



PATTERNS = (pattern(raise_tosa_gather, "tosa.gather"),)
