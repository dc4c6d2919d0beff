"""Folds of what a gmx op's result goes through: fold-value-casts (a
lossless cast round trip) and fold-result-reshape (views of the result)."""

from __future__ import annotations

from dataclasses import replace

from gmx.dialect.gmx import OP_NAME
from gmx.dialect.scatter import SCATTER_OP_NAME
from gmx.dialect.mlir import ir

from .gather_spec import current_form, refine_output, spec_of_gmx, require_static_shape
from .spec_rewrites import replace_by_spec
from ..patterns import pattern, require
from ..views import VIEW_OPS, common_refinement, defining_op, emit_view, op_name, static_shape_of, view_source, views_between


# --- fold-value-casts ------------------------------------------------------------------------------


LOSSLESS_CASTS = {("i1", "i8"), ("i1", "i16"), ("i1", "i32"), ("i8", "i16"), ("i8", "i32"), ("i16", "i32"),
                  ("i8", "i64"), ("i16", "i64"), ("i32", "i64"), ("f16", "f32"), ("bf16", "f32"), ("f32", "f64"),
                  ("f16", "f64"), ("bf16", "f64")}


def _element(value: ir.Value) -> str:
    return str(ir.ShapedType(value.type).element_type)


def fold_value_casts(op, rewriter):
    """A lossless cast of the input undone after the gather: gather the original.

        %w = tosa.cast %x : (tensor<4x5xi1>) -> tensor<4x5xi8>
        %g = "gmx.gather_multiaxis"(%w, %i) ... -> tensor<3x5xi8>
        %r = tosa.cast %g : (tensor<3x5xi8>) -> tensor<3x5xi1>
    becomes
        %r = "gmx.gather_multiaxis"(%x, %i) ... -> tensor<3x5xi1>
    (TOSA has no i1 gather, so frontends widen booleans around it.)
    """
    require(op.name == "tosa.cast", "not a tosa.cast")
    gather, _ = _gather_under_views(op.operands[0])
    widened = gather.operands[0]
    require(op_name(widened) == "tosa.cast", "the gathered input is not a tosa.cast")
    x0 = defining_op(widened).operands[0]
    require(_element(x0) == _element(op.results[0]), "not a round trip")
    require((_element(x0), _element(widened)) in LOSSLESS_CASTS, "the first cast loses values")
    spec = replace(spec_of_gmx(gather), input=x0, result_shape=require_static_shape(op.results[0]))
    return replace_by_spec(op, spec, rewriter)


# --- fold-result-reshape ------------------------------------------------------------------------


def _gather_under_views(value: ir.Value) -> tuple[object, int]:
    """The gmx op whose result reaches `value` through single-use views
    only, and how many views the op consuming `value` (itself one) and
    those views are."""
    count = 1
    while True:
        # every value on the way has this one user: a view that other ops read
        # too would leave them the gather as it is, and a second gmx op (the
        # gather computed twice) for this one
        require(_single_use(value), "a view of a value with other uses")
        if _is_gmx(value):
            return defining_op(value), count
        source = view_source(value)
        require(source is not None, "not a view of a gmx result")
        value, count = source, count + 1


def _is_gmx(value: ir.Value) -> bool:
    return op_name(value) == OP_NAME


def _single_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def fold_result_reshape(op, rewriter):
    """A reshape of the gmx result folds into the gmx output (chains of views collapse).

        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x12x1xi64>) -> tensor<1x12x8xf32>
        %r = tosa.reshape %g, %s : (tensor<1x12x8xf32>, !tosa.shape<3>) -> tensor<3x4x8xf32>
    becomes
        %g = "gmx.gather_multiaxis"(%x, %i2) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<3x4x1xi64>) -> tensor<3x4x8xf32>
    A chain of views counts as many views as it has: one that ends at rank 0
    (a scalar index into a rank-1 input)

        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<5xf32>, tensor<1xi32>) -> tensor<1xf32>
        %e = tensor.expand_shape %g [[0, 1, 2]] output_shape [1, 1, 1] : tensor<1xf32> into tensor<1x1x1xf32>
        %r = tosa.reshape %e, %s : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
    becomes the one view the output needs
        %r = tensor.collapse_shape %g [] : tensor<1xf32> into tensor<f32>
    """
    result = op.results[0]
    target = static_shape_of(result)
    require(target is not None and 0 not in target, "dynamic or empty result")
    gather, views = _gather_under_views(op.operands[0])
    spec = spec_of_gmx(gather)
    fine = common_refinement(spec.out_shape, target)
    require(fine is not None, "the reshape and the gather's output have no common refinement")
    spec = replace(refine_output(spec, fine), result_shape=target)
    return replace_by_spec(op, spec, rewriter, current_form(gather), views)



# --- view-shared-result ----------------------------------------------------------------------------


def view_shared_result(op, rewriter):
    """A chain of views from a gmx result that other ops also read becomes one
    view of the gmx result (the gather stays computed once; each user views it).

        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<3x4xi64>, tensor<3x1xi32>) -> tensor<3x1xi64>
        %e = tensor.expand_shape %g [[0, 1], [2]] output_shape [1, 3, 1] : tensor<3x1xi64> into tensor<1x3x1xi64>
        %a = tosa.reshape %e, %s31 : (tensor<1x3x1xi64>, !tosa.shape<2>) -> tensor<3x1xi64>
        %b = tosa.reshape %e, %s3 : (tensor<1x3x1xi64>, !tosa.shape<1>) -> tensor<3xi64>
    becomes (`%a` is `%g`)
        %b = tensor.collapse_shape %g [[0, 1]] : tensor<3x1xi64> into tensor<3xi64>
    A view of a single-use chain is fold-result-reshape's (the gmx op takes its shape).
    A gmx scatter's result has its input's shape, which nothing folds into:
    every chain of views of it becomes one view, shared or not (the
    reshape back from torch-mlir's flattening is then the scatter itself):

        %s = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 1>} : (tensor<3x5xf32>, ...) -> tensor<3x5xf32>
        %e = tensor.expand_shape %s [[0, 1], [2, 3]] output_shape [1, 15, 1] ... into tensor<1x15x1xf32>
        %r = tosa.reshape %e, %s35 : (tensor<1x15x1xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
    becomes (`%r` is `%s`) nothing.
    """
    target = static_shape_of(op.results[0])
    require(target is not None, "dynamic result")
    chain = [op.operands[0]]
    while op_name(chain[-1]) not in (OP_NAME, SCATTER_OP_NAME):
        source = view_source(chain[-1])
        require(source is not None, "not a view of a gmx result")
        chain.append(source)
    require(len(chain) > 1 and (op_name(chain[-1]) == SCATTER_OP_NAME or not all(_single_use(v) for v in chain)),
            "no shared view in the chain (fold-result-reshape)")
    require(views_between(static_shape_of(chain[-1]), target) < len(chain), "no fewer views")
    with rewriter.ip, op.location:
        viewed = emit_view(chain[-1], target)
    rewriter.replace_op(op, [viewed])
    return False


PATTERNS = (
    pattern(fold_value_casts, "tosa.cast"),
    pattern(fold_result_reshape, *VIEW_OPS),
    pattern(view_shared_result, *VIEW_OPS),
)
