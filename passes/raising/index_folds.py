"""Folds of what computes a gmx op's indices: simplify-indices (views,
broadcasts, casts and negative-index normalisation gmx does itself),
absorb-floor-modulo (floor-modulo arithmetic becomes wrap mode) and
drop-inert-mode (constant indices inside their axes need no mode)."""

from __future__ import annotations

from gmx.dialect.gmx import OP_NAME, read_axes, read_mode
from gmx.dialect.mlir import ir
from gmx.dialect.scatter import SCATTER_OP_NAME
from gmx.dialect.modes import Mode

import numpy as np

from .gather_spec import current_form, spec_of_gmx
from .index_maps import absorption_width, is_floor_modulo
from .index_values import constant_value, elementwise_inputs, elementwise_operands, index_function
from .integer_ops import integer_width
from .raised_gather import RaisedGather, Viewed, emit_gather
from .spec_rewrites import keep_broadcast_index, peel_all, replace_by_spec
from ..patterns import pattern, require
from ..views import defining_op, static_shape_of, strip_views


# --- simplify-indices ---------------------------------------------------------------------------------


def simplify_indices(op, rewriter):
    """Index producers gmx does itself are absorbed.

        %c = tosa.cast %i : (tensor<3x4xi64>) -> tensor<3x4xi32>
        %n = tosa.select(tosa.greater(0, %c), tosa.add(%c, 10), %c)
        %g = "gmx.gather_multiaxis"(%w, reshape(%n)) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, ...)
    becomes
        %g = "gmx.gather_multiaxis"(%w, reshape(%i)) {axes = array<i64: 1>}
    ONNX's `where(i < 0, i + n, i)` in front of a scatter, as torch-mlir's
    importer spells it in linalg-on-tensors (elementwise generics, each
    evaluated as the index function it computes):

        %a = linalg.generic ins(%i) { arith.addi %in, %c5 }              (and %n: arith.cmpi slt %in, %c0)
        %w = linalg.generic ins(%n, %a, %i) { arith.select %in, %in_1, %in_2 }
        %s = "gmx.scatter_multiaxis"(%x, %w, %u) {axes = array<i64: 1>, reduction = "add"} : (tensor<3x5xf32>, tensor<3x2xi64>, ...)
    becomes
        %s = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 1>, reduction = "add"}
    Absorbed: views; `tosa.tile` (or a `linalg.generic` yielding its input)
    that only broadcasts (the index keeps its small shape); the columns of
    one tuple tensor (`tensor.extract_slice`s of its last dim), every column
    a coordinate: its tuples, read whole (`read_whole_tuples`); any integer map equal to gmx's own wrap on [-dim,
    dim) (casts, select-normalisation, floor-mod; TOSA ops, arith's, and
    elementwise `linalg.generic`s of them), checked by evaluating it on
    that whole range and on probes outside it; where the frontend narrowed
    the index first (TOSA's i64 -> i32 `tosa.cast` in front of ONNX's
    `where`), the narrowed index, if gmx reading it reads what the program
    reads wherever the program's position is valid (the cast stays). Constant coordinates: an iota becomes a non-axis dim
    (an iota over a full axis is the identity gather, which becomes its
    input); a constant 0 slices the input; a constant index broadcast over
    dims nothing else produces is one folded constant (`keep_broadcast_index`).
    """
    spec = keep_broadcast_index(peel_all(spec_of_gmx(op)), op.operands[1])
    return replace_by_spec(op, spec, rewriter, current_form(op), 0)


# --- absorb-floor-modulo -------------------------------------------------------------------------------


def _floor_modulo_leaf(indices: ir.Value, size: int) -> ir.Value | None:
    """The tensor `t` of which `indices` (under views) is `t mod size`,
    elementwise with the same shape, as the leaf's own integer type; None
    when no such leaf exists."""
    value, _ = strip_views(indices)
    if elementwise_operands(defining_op(value)) is None:
        return None
    shape = static_shape_of(value)
    for leaf in reversed(elementwise_inputs(value)):  # the farthest first: all the arithmetic
        width = integer_width(ir.ShapedType(leaf.type).element_type)
        if static_shape_of(leaf) != shape or width is None or not 8 <= width <= 64:
            continue
        function = index_function(value, leaf)
        if function is not None and is_floor_modulo(function, absorption_width(value, leaf), size):
            return leaf
    return None


def absorb_floor_modulo(op, rewriter):
    """Floor-modulo arithmetic by the axis size in front of a gather becomes its wrap mode.

    torch-mlir spells `torch.take_along_dim(x, i, 1)` (and `i % 5`,
    `torch.remainder`) on an axis of 5 as a floor division in TOSA:

        %q = tosa.intdiv %i, %c5 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>) -> tensor<4x3x6xi64>
        %f = tosa.select (0 > %i * 5 and %q * 5 != %i), %q - 1, %q
        %m = tosa.sub %i, (tosa.mul %c5, %f)
        %c = tosa.cast %m : (tensor<4x3x6xi64>) -> tensor<4x3x6xi32>
        %g = "gmx.gather_multiaxis"(%x, %c) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi32>) -> tensor<4x3x6xf32>
    becomes
        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>, mode = "wrap"} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
    The wide indices are gathered (a cast after the modulo is exact; one
    before it is read as exact when it is only an index, `absorption_width`). Absorbed: exactly `t mod size` for every value
    of `t`'s type (`is_floor_modulo`: exhaustive near the axis, probes far
    from it), the size being that of every gathered axis. Left alone: a
    truncating remainder (`torch.fmod`), a modulo by another size, a gather
    in mode "fill".

    JAX spells `jnp.take(x, i, axis=1, mode="wrap")` (axis of 5) as its
    `remainder` helper in front of a clamping gather, raised to mode "clip"
    (StableHLO's constant arithmetic, the divisor guard, is evaluated):

        %d = stablehlo.select (stablehlo.compare EQ, %c5, %c0), %c1, %c5      (5: the divisor guarded against 0)
        %r = stablehlo.remainder %i, (broadcast %d) : tensor<1x3xi64>
        %w = stablehlo.select ((%r < 0) != (%d < 0) and %r != 0), %r + %d, %r
        %g = "gmx.gather_multiaxis"(%x, view(%w)) {axes = array<i64: 1>, mode = "clip"} : (tensor<4x5x1xf32>, tensor<1x1x3xi64>) -> tensor<4x1x3xf32>
    becomes
        %g = "gmx.gather_multiaxis"(%x, view(%i)) {axes = array<i64: 1>, mode = "wrap"}
    (the floor modulo's result is in [0, size): clamping it changes nothing).
    """
    require(op.name == OP_NAME, "not a gmx op")
    mode, _ = read_mode(op)
    require(mode in (Mode.RAISE, Mode.WRAP, Mode.CLIP), f'mode "{mode}"')
    x, indices = op.operands[0], op.operands[1]
    axes = read_axes(op)
    input_shape = static_shape_of(x)
    require(bool(axes) and input_shape is not None, "no axes, or a dynamic input")
    sizes = {input_shape[a] for a in axes}
    require(len(sizes) == 1, "gathered axes of different sizes")
    (size,) = sizes
    leaf = _floor_modulo_leaf(indices, size)
    require(leaf is not None, f"the indices are not a floor modulo by the axis size {size}")
    shape = static_shape_of(indices)
    with rewriter.ip, op.location:
        value = emit_gather(RaisedGather(Viewed(x), Viewed(leaf, shape if static_shape_of(leaf) != shape else None),
                                         axes, Mode.WRAP))
    rewriter.replace_op(op, [value])
    return False




# --- drop-inert-mode ------------------------------------------------------------------------------------


def drop_inert_mode(op, rewriter):
    """A gmx op in mode clip, wrap or fill whose indices are constants inside
    their axes reads what mode raise reads: the mode goes, and the other
    folds (simplify-indices: a constant arange is a slice) apply again.

    torch-mlir's StableHLO gathers an embedding at its position_ids buffer
    (arange(T)) with StableHLO's clamp:

        %g = "gmx.gather_multiaxis"(%w, %c) {axes = array<i64: 0>, mode = "clip"} : (tensor<32x1x16xf32>, tensor<8x1x1xi64>) -> tensor<8x1x16xf32>
        (%c: dense<[0, 1, ..., 7]>)
    becomes
        %g = "gmx.gather_multiaxis"(%w, %c) {axes = array<i64: 0>} : ...
    Left alone: an index that is not a constant, or a constant with a value
    outside [0, size) (negative ones too: clip and raise read them differently).
    """
    mode, _ = read_mode(op)
    require(mode is not Mode.RAISE, "mode raise")
    x, indices = op.operands[0], op.operands[1]
    axes = read_axes(op)
    input_shape = static_shape_of(x)
    require(bool(axes) and input_shape is not None, "no axes, or a dynamic input")
    array = constant_value(indices)
    require(array is not None, "indices that are not a constant")
    coordinates = array.reshape(-1, len(axes))  # the last dim folds the coordinate tuples
    sizes = np.array([input_shape[a] for a in axes])
    require(bool(np.all((coordinates >= 0) & (coordinates < sizes))), "a constant index outside its axis")
    with rewriter.ip, op.location:
        value = emit_gather(RaisedGather(Viewed(x), Viewed(indices), axes))
    rewriter.replace_op(op, [value])
    return False


PATTERNS = (
    pattern(simplify_indices, OP_NAME, SCATTER_OP_NAME),  # a scatter's indices are a gather's
    pattern(absorb_floor_modulo, OP_NAME),
    pattern(drop_inert_mode, OP_NAME),
)
