"""Folds of what a gmx op's input is computed by: fold-input-transpose and
fold-input-broadcast (a transpose or a broadcasting tile of the data becomes
the gmx op's own axes or broadcasting)."""

from __future__ import annotations

from dataclasses import replace

from gmx.dialect.gmx import OP_NAME
from gmx.dialect.mlir import ir

from .gather_spec import Indexed, Zero, spec_of_gmx, require_static_shape
from .index_values import constant_value
from .spec_rewrites import replace_by_spec
from ..patterns import pattern, require
from ..views import defining_op, op_name


# --- fold-input-transpose ------------------------------------------------------------------


def fold_input_transpose(op, rewriter):
    """A transpose of the input folds into the axes (the coordinate of
    transposed dim d reads source dim perms[d]).

        %t = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : tensor<4x5x6xf32> -> tensor<4x6x5xf32>
        %g = "gmx.gather_multiaxis"(%t, %ij) {axes = array<i64: 0, 1>} : (..., tensor<3x1x2xi64>) -> tensor<3x1x5xf32>
    becomes
        %g = "gmx.gather_multiaxis"(%x, %ij) {axes = array<i64: 0, 2>} : (tensor<4x5x6xf32>, ...) -> tensor<3x5x1xf32>
    Only when the output needs no transpose (its non-axis dims stay in order).
    A `linalg.transpose` (`permutation`, the same convention; torch-mlir's
    linalg-on-tensors `x[i, :, j]`) folds the same way.
    """
    spec = spec_of_gmx(op)
    transpose = op.operands[0]
    require(op_name(transpose) in ("tosa.transpose", "linalg.transpose"), "input is not a transpose")
    attributes = defining_op(transpose).attributes
    perms = list(ir.DenseI32ArrayAttr(attributes["perms"]) if "perms" in attributes
                 else ir.DenseI64ArrayAttr(attributes["permutation"]))
    x0 = defining_op(transpose).operands[0]
    require_static_shape(x0)
    coords = [None] * len(perms)
    for d, p in enumerate(perms):
        coords[p] = spec.coords[d]
    return replace_by_spec(op, replace(spec, input=x0, coords=coords), rewriter)


# --- fold-input-broadcast ------------------------------------------------------------------


def fold_input_broadcast(op, rewriter):
    """A `tosa.tile` that broadcasts the input folds into gmx's own broadcasting.

        %t = tosa.tile %x, %m : (tensor<1x5x6xf32>, !tosa.shape<3>) -> tensor<4x5x6xf32>
        %g = "gmx.gather_multiaxis"(%t, %i) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
    becomes
        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
    Only dims of size 1 may be tiled, and not along an axis.
    """
    spec = spec_of_gmx(op)
    tiled = op.operands[0]
    require(op_name(tiled) == "tosa.tile", "input is not a tosa.tile")
    x0 = defining_op(tiled).operands[0]
    source = require_static_shape(x0)
    multiples = constant_value(defining_op(tiled).operands[1])
    require(multiples is not None, "tile multiples are not constant")
    coords = list(spec.coords)
    for d, (m, size) in enumerate(zip(multiples, source)):
        if m == 1:
            continue
        require(size == 1 and not isinstance(coords[d], Indexed), "a real repetition or an axis")
        coords[d] = Zero()
    return replace_by_spec(op, replace(spec, input=x0, coords=coords), rewriter)




PATTERNS = (
    pattern(fold_input_transpose, OP_NAME),
    pattern(fold_input_broadcast, OP_NAME),
)
