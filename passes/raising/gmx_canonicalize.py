"""--gmx-canonicalize: raise what frontends emit for gathers into gmx.gather_multiaxis.

IR in: any module; frontends' gathers appear as `tosa.gather` on a flattened
input, with reshapes (any of the four spellings, see `views`) around it and
linearised index arithmetic in front of it
(docs/semantics.md#how-frontends-spell-gathers-today), as linalg-on-tensors
`linalg.generic`s reading one element at computed positions, or as
`tensor.gather`.
IR out: one `gmx.gather_multiaxis` per gather, over the unflattened input
with its true axes, and at most one reshape per operand and result.

The patterns, each one rewrite of one recognised shape (the IR before and
after is in each docstring; `lit_tests/passes/gmx-canonicalize*.mlir` has a
positive and a negative case for each):

    raise-tosa-gather         tosa.gather            -> gmx, axes = [1]
    fold-input-reshape        gmx(reshape(x))        -> gmx(x), rank and axes adjusted
    raise-linearised-indices  gmx(reshape(x), sum(c_i * stride_i)) -> gmx(x, c...), true axes
    split-linearised-index    gmx(v, sum(concat(c...) * strides)) -> gmx(view(v), c...): the dims
                              the strides imply (a reshape before indexing, unit dims)
    fold-constant-input       gmx(const)             -> gmx(const without the unit dims it does not gather)
    fold-input-transpose      gmx(transpose(x))      -> gmx(x), axes permuted (tosa or linalg.transpose)
    fold-input-broadcast      gmx(tile(x))           -> gmx(x) broadcasting its unit dims
    fold-value-casts          cast(gmx(cast(x)))     -> gmx(x) when the casts round-trip
    fold-result-reshape       reshape(gmx)           -> gmx with the reshaped output
    view-shared-result        reshape(views(gmx)), the views shared -> one view of the gmx result
                              per user (the gather computed once)
    simplify-indices          gmx(f(i))              -> gmx(i): views, broadcasting tiles, casts
                              and negative-index normalisation absorbed; iota
                              constants become non-axis dims; an identity
                              gather becomes its input; a broadcast constant
                              index is folded
    absorb-floor-modulo       gmx(i mod size)        -> gmx(i) {mode = "wrap"}: the floor-modulo
                              arithmetic of torch.take_along_dim / torch.remainder, and JAX's
                              `remainder` in front of a clamping gather (jnp.take(mode="wrap"))
    fold-dynamic-result-reshape  reshape(gmx) -> gmx with reshaped indices, where a dim is `?`
    fold-dynamic-input-views     gmx(views(x))  -> gmx(view(x)), one expand/collapse, where a dim is `?`
    fold-dynamic-index-views     gmx(views(cast(views(i)))) -> gmx(view(cast(i))), where a dim is `?`
    raise-stablehlo-gather    stablehlo.gather       -> gmx, mode = "clip" (`stablehlo_gathers`)
    raise-jax-fill-gather     select(in_bounds(i), stablehlo.gather(x, wrap(i)), fill) -> gmx(x, i),
                              mode = "fill" (`stablehlo_gathers`)
    raise-linalg-gather       linalg.generic that is provably a gather -> gmx (`linalg_gathers`:
                              TorchToLinalg, tosa-to-linalg, stablehlo-legalize-to-linalg; mode clip
                              for StableHLO's clamp), static or dynamic
    raise-tensor-gather       tensor.gather          -> gmx (`tensor_gathers`), static or dynamic

Calls are inlined first (upstream's `inline`, without its nested
canonicalization, then `symbol-dce`): JAX puts its gathers in private
helpers (`@_take`, `@_where`, `@take_along_axis`) that must be one function
with their operands before anything can be raised.

Every pattern reads its IR into a `GatherSpec`, transforms it and lets
`gather_spec.synthesize` emit the result; a pattern that cannot express the
whole gather (`NoMatch`) changes nothing. The rewrites of an existing gmx op
change index values and axis sizes, which only "raise" survives, so a gmx
op whose `mode` is not "raise" is left as it is (absorb-floor-modulo and the
StableHLO and linalg raisings make one, the last step of a raising). A pattern that raises anything
else (a bug) changes nothing either; it is reported once the driver has
returned: a located warning, or in strict mode (`GMX_STRICT`, see
`gmx.passes.debug`) a located error that fails the pass. Dead ops are erased
by the driver, and equal constants merged, in both modes.
A gather with a `?` dim is read by shapes alone (`dynamic_gathers`): its
views and the reshape of its result are fused, nothing else.
With `fuse=false` it runs alone: every tosa.gather and tensor.gather becomes a
gmx op and nothing around it is fused (the first stage of `--gmx-lower-to-llvm`,
which needs every gather bounds-checked, and tensor.gather lowered at all). Exactness contract: see `coordinates`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace

import numpy as np

from gmx.dialect.gmx import OP_NAME, gather_multiaxis, infer_result_type, mlir_shape, read_mode, static_shape
from gmx.dialect.modes import Mode
from gmx.dialect.locations import location_text
from gmx.dialect.mlir import arith, ir, rewrite, tensor
from gmx.dialect.shapes import GatherShapeError

from . import dynamic_gathers, stablehlo_gathers
from .linalg_gathers import raise_linalg_gather
from .tensor_gathers import raise_tensor_gather
from .coordinates import Work, concat_linearisation, linear_terms, linearised_sizes, peel, row_major_iota_sizes
from .index_values import (
    constant_value,
    elementwise_inputs,
    elementwise_operands,
    evaluation_cache,
    index_function,
    integer_width,
    is_floor_modulo,
)
from .gather_spec import (
    GatherSpec,
    Indexed,
    Iota,
    NoMatch,
    Zero,
    constant_coordinate,
    current_form,
    foldable_constant,
    plan_of,
    refine_output,
    require,
    spec_of_gmx,
    static_dims,
    synthesize,
)
from .. import debug
from ..registry import PassFailed, PassInfo, PassOption, add_python_pass
from ..views import (
    VIEW_OPS,
    common_refinement,
    defining_op,
    emit_view,
    merge_groups,
    op_name,
    static_shape_of,
    strip_views,
    view_source,
    views_between,
)


def _views_needed(plan, spec: GatherSpec) -> int:
    """View ops between the planned gmx op's output and the result."""
    return views_between(plan.gmx_out, spec.result_shape)


def _rewrite(root, spec: GatherSpec, rewriter, current: tuple | None = None, views_before: int = 0) -> bool:
    """Replace `root` by the gather `spec`; False (= success) when rewritten.

    With `current` (the form of the gmx op being folded), NoMatch if the new
    op would look the same and need no fewer views.
    """
    plan = plan_of(spec)
    unchanged = current is not None and plan.form(spec) == current and _views_needed(plan, spec) >= views_before
    require(not unchanged, "the new gmx op would be the same")
    with rewriter.ip, root.location:
        value = synthesize(spec)
    rewriter.replace_op(root, [value])
    return False


# --- raise-tosa-gather ------------------------------------------------------------------


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
    n, _, c = static_dims(values)
    _, w = static_dims(indices)
    coords = [Zero() if n == 1 else Iota(0), Indexed(indices, (n, w, 1)), Zero() if c == 1 else Iota(2)]
    return _rewrite(op, GatherSpec(values, [n, w, c], coords, [n, w, c]), rewriter)


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
        sizes = [tensor.dim(indices, arith.constant(ir.IndexType.get(), d))
                 for d, size in enumerate(static_shape(index_type)) if size is None]
        expanded = tensor.expand_shape(expanded_type, indices, [[0], [1, 2]], sizes, expanded_shape)
        value = gather_multiaxis(values, expanded, [1])
        if gathered_type != result_type:
            value = tensor.cast(result_type, value)
    rewriter.replace_op(op, [value])
    return False


def _cast_compatible(a: ir.RankedTensorType, b: ir.RankedTensorType) -> bool:
    """Whether `tensor.cast` may go from `a` to `b`: each dim equal or dynamic in one."""
    return a.element_type == b.element_type and all(
        x is None or y is None or x == y for x, y in zip(static_shape(a), static_shape(b))
    )


# --- fold-input-reshape / raise-linearised-indices ------------------------------------------


def _split_iotas(spec: GatherSpec, splits: dict[int, list[int]]) -> tuple[GatherSpec, dict[int, list[int]]]:
    """Split output dims that iota coordinates run along; returns the new spec
    and, per split dim, its new dims."""
    out, where = [], {}
    for b, size in enumerate(spec.out_shape):
        pieces = splits.get(b, [size])
        where[b] = list(range(len(out), len(out) + len(pieces)))
        out.extend(pieces)
    masked = [Zero() if isinstance(c, Iota) and c.dim in splits else c for c in spec.coords]
    refined = refine_output(replace(spec, coords=masked), out)
    return replace(refined, coords=[c2 if not (isinstance(c1, Iota) and c1.dim in splits) else c1
                                   for c1, c2 in zip(spec.coords, refined.coords)]), where


def _unflatten_input(spec: GatherSpec, linear: bool) -> GatherSpec:
    """The spec over the input's source `x0` (the input is a reshape of it).

    Each input dim must be a merge of source dims. A merged dim addressed by
    an iota splits its output dim; one addressed by an index tensor needs a
    linear index with the source's row-major strides (`linear`).
    """
    x0, count = strip_views(spec.input)
    require(count > 0, "input is not a reshape")
    source = static_dims(x0)
    groups = merge_groups(source, spec.input_shape)
    require(groups is not None, "input is not a merge of its source's dims")
    linear_dims = [d for d, g in enumerate(groups) if len(g) > 1 and isinstance(spec.coords[d], Indexed)]
    require(bool(linear_dims) == linear, "a linear index (raise-linearised-indices)" if linear_dims
            else "no linear index (fold-input-reshape)")
    iota_splits = {spec.coords[d].dim: [source[x] for x in g]
                   for d, g in enumerate(groups) if len(g) > 1 and isinstance(spec.coords[d], Iota)}
    spec, where = _split_iotas(spec, iota_splits)
    coords = [Zero()] * len(source)
    pending = []
    for d, group in enumerate(groups):
        coord = spec.coords[d]
        if len(group) == 1:
            coords[group[0]] = coord
        elif len(group) > 1 and isinstance(coord, Iota):
            require(coord.start == 0, "an offset iota over a merged input dim")
            for x, b in zip(group, where[coord.dim]):
                coords[x] = Iota(b)
        elif len(group) > 1 and isinstance(coord, Indexed):
            pending.append((group, coord))
    new = GatherSpec(x0, spec.out_shape, coords, spec.result_shape)
    for group, coord in pending:
        new = _split_linear(new, group, coord, [source[x] for x in group])
    return new


def _split_linear(spec: GatherSpec, group: list[int], coord: Indexed, sizes: list[int]) -> GatherSpec:
    """Replace a linear coordinate over source dims `group` by one per dim."""
    require(coord.tuple_size == 1, "the linear index is a coordinate of tuples")
    strides = [int(math.prod(sizes[i + 1:])) for i in range(len(sizes))]
    work = Work(spec, [coord])
    terms = linear_terms(work, 0, dict(zip(strides, sizes)))
    by_stride = {}
    for index, coefficient in terms:
        require(coefficient not in by_stride, "two terms share a stride")
        by_stride[coefficient] = index
    require(sorted(by_stride) == sorted(strides), f"strides {sorted(by_stride)} are not {strides}")
    for stride, size in zip(strides, sizes):
        # kept in `work` so that later refinements of the output renumber it
        work.pending[by_stride[stride]] = peel(work, by_stride[stride], size)
    coords = list(work.spec.coords)
    for x, stride in zip(group, strides):
        coords[x] = work.pending[by_stride[stride]]
    return replace(work.spec, coords=coords)


def fold_input_reshape(op, rewriter):
    """A reshape of the input folds into the gmx op's rank and axes.

        %x = tosa.reshape %w, %s : (tensor<10x8xf32>, !tosa.shape<3>) -> tensor<1x10x8xf32>
        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x12x1xi64>) -> tensor<1x12x8xf32>
    becomes (the unit dim stays only because the output needs it)
        %x = tensor.expand_shape %w [[0, 1], [2]] ... into tensor<1x10x8xf32>
        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} ...
    A merged input dim read by an iota splits into the source dims; one read by
    an index tensor is `raise-linearised-indices`' job.
    """
    spec = _unflatten_input(spec_of_gmx(op), linear=False)
    return _rewrite(op, spec, rewriter, current_form(op), 0)


def raise_linearised_indices(op, rewriter):
    """A gather from a flattened input with a linear index becomes a gather with
    one coordinate per source dim.

        %v = tosa.reshape %x : tensor<4x5x6xf32> -> tensor<1x120x1xf32>
        %c = tosa.concat %iota0, %idx, %iota2 {axis = 3}       (tensor<4x3x6x3xi32>)
        %f = tosa.reduce_sum(tosa.mul(reshape(%c) : tensor<72x3xi32>, [[30, 6, 1]])) {axis = 1}
        %g = "gmx.gather_multiaxis"(%v, reshape(%f) : tensor<1x72x1xi32>) {axes = array<i64: 1>}
    becomes
        %g = "gmx.gather_multiaxis"(%x, %idx : tensor<4x3x6xi64>) {axes = array<i64: 1>} -> tensor<4x3x6xf32>
        (+ one reshape back to 1x72x1 until `fold-result-reshape` removes it)
    Terms may also be written `add(mul(c0, s0), c1)` (ONNX GatherND); the
    coefficients must be exactly the row-major strides of the merged dims.
    Such a sum is taken apart only where it is exact (`coordinates.exact_split`):
    arithmetic the user wrote on an index is the index, not coordinates:

        x.index_select(0, i + j) on x : tensor<10x4xf32>
        %f = reduce_sum(mul(concat(tile(add(%i, %j)), %iota), [[4, 1]]))
        %g = "gmx.gather_multiaxis"(%v : tensor<1x40x1xf32>, reshape(%f)) {axes = array<i64: 1>}
    becomes
        %g = "gmx.gather_multiaxis"(%x, reshape(add(%i, %j)) : tensor<3x1xi32>) {axes = array<i64: 0>} -> tensor<3x4xf32>
    and `y.reshape(-1).index_select(0, i * 4 + j)` stays a gather on the
    flattened y (j = 5 is a valid flat index, no column of y).
    A reshape of the result that merges the gathered dim (`x[:, i].reshape(2, 48)`,
    `flatten(1)`, ONNX `Reshape(batch, -1)`) has usually been folded into the
    output first; reading the terms refines it back:

        %g = "gmx.gather_multiaxis"(%v : tensor<1x80x1xf32>, reshape(%f) : tensor<1x2x48xi32>) -> tensor<1x2x48xf32>
        (%f linearises the 2x6x8 tiles of iota, %i and iota with strides [40, 8, 1])
    becomes
        %g = "gmx.gather_multiaxis"(%x, %i : tensor<1x6x1xi32>) {axes = array<i64: 1>} : (tensor<2x5x8xf32>, ...) -> tensor<2x6x8xf32>
        %r = tensor.collapse_shape %g [[0], [1, 2]] : tensor<2x6x8xf32> into tensor<2x48xf32>

    Where that reshape splits the batch instead (`x[:, i].reshape(2, -1)` on
    4x5x8: output 2x2x6x8), the batch coordinate counts through two output
    dims; the batch dim is split the same way (`_split_iota_dims`):

        %g = "gmx.gather_multiaxis"(%v : tensor<1x160x1xf32>, reshape(%f) : tensor<1x2x96xi32>) -> tensor<1x2x96xf32>
    becomes
        %e = tensor.expand_shape %x [[0, 1], [2], [3]] : tensor<4x5x8xf32> into tensor<2x2x5x8xf32>
        %g = "gmx.gather_multiaxis"(%e, %i : tensor<1x1x6x1xi32>) {axes = array<i64: 2>} -> tensor<2x2x6x8xf32>
        %r = tensor.collapse_shape %g [[0], [1, 2, 3]] : tensor<2x2x6x8xf32> into tensor<2x96xf32>
    """
    spec = _unflatten_input(spec_of_gmx(op), linear=True)
    spec = _keep_broadcast_index(_split_iota_dims(_peel_all(spec)), op.operands[1])
    return _rewrite(op, spec, rewriter, current_form(op), 0)


def _split_iota_dims(spec: GatherSpec) -> GatherSpec:
    """Each constant coordinate that counts through several output dims over
    its whole input dim (`row_major_iota_sizes`) becomes an iota per output
    dim, the input dim split into theirs (a view): with a reshape of the
    result that splits the batch (`x[:, i].reshape(2, -1)` on 4x5x8), batch
    row `2 * o0 + o1` is row (o0, o1) of x viewed as 2x2x5x8, a non-axis
    dim of gmx rather than a second axis with a constant index."""
    shape, coords = [], []
    for size, coord in zip(spec.input_shape, spec.coords):
        sizes = _iota_split(coord)
        if sizes is None or int(math.prod(sizes)) != size:
            shape.append(size)
            coords.append(coord)
            continue
        shape.extend(sizes)
        coords.extend(Iota(b) for b, s in enumerate(coord.shape) if s != 1)
    if len(shape) == len(spec.input_shape):
        return spec
    return replace(spec, coords=coords, view=shape)


def _iota_split(coord) -> list[int] | None:
    """`row_major_iota_sizes` of a constant single coordinate, or None."""
    if not isinstance(coord, Indexed) or coord.tuple_size != 1 or coord.maps:
        return None
    array = constant_coordinate(coord)
    return None if array is None else row_major_iota_sizes(array)


# --- split-linearised-index ------------------------------------------------------------------


def split_linearised_index(op, rewriter):
    """A gathered dim read by torch-mlir's linearised coordinate tuples is split
    into the dims their strides imply; the gmx op reads the input as that view.

    raise-linearised-indices needs the dims that the strides address to be
    the dims of the input's source. They are not when the program reshaped
    the data before indexing it (torch-mlir composes that reshape with its
    own flattening, or folds it into a constant), and not where a unit dim
    makes two strides equal. The strides, in the concat's (= the dims')
    order, still say which dims the coordinates address (`linearised_sizes`):

        %v = tosa.reshape %x : tensor<24x4xf32> -> tensor<1x24x4xf32>      (x.reshape(3, 8, 4))
        %c = tosa.concat %i, %j {axis = 1}                                  (tensor<3x2xi32>)
        %f = tosa.reduce_sum(tosa.mul(%c, [[8, 1]])) {axis = 1}
        %g = "gmx.gather_multiaxis"(%v, reshape(%f) : tensor<1x3x1xi32>) {axes = array<i64: 1>}
    becomes
        %e = tensor.expand_shape %x [[0, 1], [2]] : tensor<24x4xf32> into tensor<3x8x4xf32>
        %g = "gmx.gather_multiaxis"(%e, %ij : tensor<3x1x2xi32>) {axes = array<i64: 0, 1>} -> tensor<3x1x4xf32>
    (an `%i` that is `arange(3)` becomes a non-axis dim: `axes = [1]`). A
    view the input's source is a merge of folds into the gmx op afterwards
    (fold-input-reshape); one of a constant is a new constant of the view's
    shape. Unit dims whose coordinate is 0 are left out of the view
    (`torch.gather(x, 1, i)` on `x : tensor<4x6x1xf32>`, strides [6, 1, 1]).
    Only this spelling: user arithmetic (`add`/`mul` of an index) says nothing
    about the dims of the data.
    """
    spec = spec_of_gmx(op)
    linear = [d for d, c in enumerate(spec.coords) if isinstance(c, Indexed) and c.tuple_size == 1]
    require(len(linear) == 1, "not one single-coordinate axis")
    d = linear[0]
    work = Work(spec, [spec.coords[d]])
    parts = concat_linearisation(work, 0)
    require(parts is not None, "the index is no linearisation of coordinate tuples")
    sizes = linearised_sizes([stride for _, stride in parts], spec.input_shape[d])
    require(sizes is not None and len(sizes) > 1, f"strides {[s for _, s in parts]} address no dims of {spec.input_shape[d]}")
    for (index, _), size in zip(parts, sizes):
        work.pending[index] = peel(work, index, size)
    coords = work.spec.coords[:d] + [work.pending[index] for index, _ in parts] + work.spec.coords[d + 1:]
    shape, coords = _without_unread_unit_dims(spec.input_shape[:d] + sizes + spec.input_shape[d + 1:], coords)
    x0 = strip_views(spec.input)[0]
    new = replace(work.spec, input=x0, coords=coords, view=None if shape == static_dims(x0) else shape)
    # a constant index (Big Bird's zeros(...).expand(...) into a block view) peels to
    # iotas and zeros; one stays the index where it alone produces an output dim
    spec = _keep_broadcast_index(_split_iota_dims(new), op.operands[1])
    return _rewrite(op, spec, rewriter, current_form(op), 0)


def _without_unread_unit_dims(shape: list[int], coords: list) -> tuple[list[int], list]:
    """`shape` and its `coords` without the unit dims whose coordinate is 0:
    a view the gather reads the same elements of."""
    kept = [k for k, (size, coord) in enumerate(zip(shape, coords)) if size != 1 or not isinstance(coord, Zero)]
    return [shape[k] for k in kept], [coords[k] for k in kept]


# --- fold-constant-input --------------------------------------------------------------------


def fold_constant_input(op, rewriter):
    """A constant input loses the unit dims it is not gathered along: the gmx op
    reads a constant of the shape it needs, as it would read the source of a
    reshape (fold-input-reshape). torch-mlir's ONNX importer has already
    folded the data's flattening reshape into the constant, so there is no
    reshape to look through (ONNX Gather on an initializer):

        %w = "tosa.const"() <{values = dense<[[[0.0], [1.0], ..., [5.0]]]> : tensor<1x6x1xf32>}>
        %g = "gmx.gather_multiaxis"(%w, %i) {axes = array<i64: 1>} : (tensor<1x6x1xf32>, tensor<1x1x3xi32>) -> tensor<1x1x3xf32>
    becomes
        %w = "tosa.const"() <{values = dense<[0.0, 1.0, ..., 5.0]> : tensor<6xf32>}>
        %g = "gmx.gather_multiaxis"(%w, %i) {axes = array<i64: 0>} : (tensor<6xf32>, tensor<3xi32>) -> tensor<3xf32>
        (+ one reshape back to 1x1x3 until fold-result-reshape removes it)
    A split of the constant's dims comes from split-linearised-index.
    """
    spec = spec_of_gmx(op)
    require(foldable_constant(spec.input) is not None, "input is not a constant that folds a reshape")
    shape, coords = _without_unread_unit_dims(spec.input_shape, spec.coords)
    require(len(shape) < len(spec.input_shape), "no unit dim to drop")
    return _rewrite(op, replace(spec, coords=coords, view=shape), rewriter, current_form(op), 0)


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
    static_dims(x0)
    coords = [None] * len(perms)
    for d, p in enumerate(perms):
        coords[p] = spec.coords[d]
    return _rewrite(op, replace(spec, input=x0, coords=coords), rewriter)


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
    source = static_dims(x0)
    multiples = constant_value(defining_op(tiled).operands[1])
    require(multiples is not None, "tile multiples are not constant")
    coords = list(spec.coords)
    for d, (m, size) in enumerate(zip(multiples, source)):
        if m == 1:
            continue
        require(size == 1 and not isinstance(coords[d], Indexed), "a real repetition or an axis")
        coords[d] = Zero()
    return _rewrite(op, replace(spec, input=x0, coords=coords), rewriter)


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
    spec = replace(spec_of_gmx(gather), input=x0, result_shape=static_dims(op.results[0]))
    return _rewrite(op, spec, rewriter)


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
    return _rewrite(op, spec, rewriter, current_form(gather), views)


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
    """
    target = static_shape_of(op.results[0])
    require(target is not None, "dynamic result")
    value, count = op.operands[0], 1
    while not _is_gmx(value):
        value, count = view_source(value), count + 1
        require(value is not None, "not a view of a gmx result")
    require(count > 1 and not all(_single_use(v) for v in _views_above(op.operands[0])),
            "no shared view in the chain (fold-result-reshape)")
    require(views_between(static_shape_of(value), target) < count, "no fewer views")
    with rewriter.ip, op.location:
        viewed = emit_view(value, target)
    rewriter.replace_op(op, [viewed])
    return False


def _views_above(value: ir.Value) -> list[ir.Value]:
    """`value` and the values it is a view of, down to a gmx result."""
    chain = [value]
    while not _is_gmx(chain[-1]):
        chain.append(view_source(chain[-1]))
    return chain


# --- simplify-indices ---------------------------------------------------------------------------------


def _peel_all(spec: GatherSpec) -> GatherSpec:
    """Peel every single-coordinate Indexed of `spec` (see `coordinates.peel`)."""
    shape = spec.input_shape
    for d in range(len(spec.coords)):
        coord = spec.coords[d]
        if not isinstance(coord, Indexed) or coord.tuple_size != 1:
            continue
        work = Work(spec, [coord])
        peeled = peel(work, 0, shape[d])
        coords = list(work.spec.coords)
        coords[d] = peeled
        spec = replace(work.spec, coords=coords)
    return spec


def broadcast_dims(coords: list, out_shape: list[int]) -> list[int]:
    """Output dims (of size > 1) that no coordinate produces: neither an iota
    runs along them nor an index tensor spans them (a broadcast)."""
    spanned = {c.dim for c in coords if isinstance(c, Iota)}
    spanned |= {b for c in coords if isinstance(c, Indexed) for b, s in enumerate(c.shape) if s != 1}
    return [b for b, size in enumerate(out_shape) if size != 1 and b not in spanned]


def broadcast_index_candidates(coords: list, out_shape: list[int], input_shape: list[int]) -> list[int]:
    """Input dims whose constant coordinate (an iota, or a zero on a dim
    larger than 1) may become the index that produces `broadcast_dims`, the
    likeliest first: `expand` and `repeat` add leading dims, so the index's
    own dims follow the broadcast ones; the iota nearest after them, then
    the smallest, then zeros."""
    last = max(broadcast_dims(coords, out_shape), default=-1)

    def rank(d: int) -> tuple:
        coord = coords[d]
        if isinstance(coord, Zero):
            return (2, 0, 0)
        after = coord.dim > last
        return (0 if after else 1, coord.dim - last if after else 0, out_shape[coord.dim])

    dims = [d for d, c in enumerate(coords) if isinstance(c, Iota) or (isinstance(c, Zero) and input_shape[d] > 1)]
    return sorted(dims, key=rank)


def _keep_broadcast_index(spec: GatherSpec, element_source: ir.Value) -> GatherSpec:
    """When the output has dims only a broadcast of a constant index produced,
    one constant coordinate stays a constant index (of `element_source`'s
    element type), which `synthesize` folds over those dims.

    `w[torch.arange(8).expand(2, 8)]`: the index peels to an iota along the
    8, and nothing would produce the 2 (a gmx op broadcasts its output only
    along its indices); the iota stays the index, a folded 2x8 constant:

        %t = tosa.tile %arange, %m : (tensor<1x8xi64>, !tosa.shape<2>) -> tensor<2x8xi64>
        %g = "gmx.gather_multiaxis"(%w1, reshape(normalise(cast(%t)))) {axes = array<i64: 1>} : (tensor<1x10x4xf32>, tensor<2x8x1xi32>) -> ...
    becomes
        %c = arith.constant dense<[[[0], ..., [7]], [[0], ..., [7]]]> : tensor<2x8x1xi32>
        %g = "gmx.gather_multiaxis"(%w1, %c) {axes = array<i64: 1>} : (tensor<1x10x4xf32>, tensor<2x8x1xi32>) -> tensor<2x8x4xf32>
    """
    if any(isinstance(c, Indexed) for c in spec.coords) or not broadcast_dims(spec.coords, spec.out_shape):
        return spec
    for d in broadcast_index_candidates(spec.coords, spec.out_shape, spec.input_shape):
        coord = spec.coords[d]
        shape = [1] * len(spec.out_shape)
        if isinstance(coord, Iota):
            shape[coord.dim] = spec.out_shape[coord.dim]
        array = (np.arange(coord.start, coord.start + math.prod(shape)).reshape(shape) if isinstance(coord, Iota)
                 else np.zeros(shape, np.int64))
        coords = list(spec.coords)
        coords[d] = Indexed(element_source, tuple(shape), array=array)
        candidate = replace(spec, coords=coords)
        try:
            plan_of(candidate)
        except NoMatch:
            continue
        return candidate
    return spec


def simplify_indices(op, rewriter):
    """Index producers gmx does itself are absorbed.

        %c = tosa.cast %i : (tensor<3x4xi64>) -> tensor<3x4xi32>
        %n = tosa.select(tosa.greater(0, %c), tosa.add(%c, 10), %c)
        %g = "gmx.gather_multiaxis"(%w, reshape(%n)) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, ...)
    becomes
        %g = "gmx.gather_multiaxis"(%w, reshape(%i)) {axes = array<i64: 1>}
    Absorbed: views; `tosa.tile` that only broadcasts (the index keeps its
    small shape); any integer map equal to gmx's own wrap on [-dim, dim)
    (casts, select-normalisation, floor-mod), checked by evaluating it on
    that whole range. Constant coordinates: an iota becomes a non-axis dim
    (an iota over a full axis is the identity gather, which becomes its
    input); a constant 0 slices the input; a constant index broadcast over
    dims nothing else produces is one folded constant (`_keep_broadcast_index`).
    """
    spec = _keep_broadcast_index(_peel_all(spec_of_gmx(op)), op.operands[1])
    return _rewrite(op, spec, rewriter, current_form(op), 0)


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
        element_type = ir.ShapedType(leaf.type).element_type
        width = integer_width(element_type)
        if static_shape_of(leaf) != shape or width is None or not 8 <= width <= 64:
            continue
        function = index_function(value, leaf)
        if function is not None and is_floor_modulo(function, width, size):
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
    The wide indices are gathered (a cast after the modulo is exact, one
    before it would not be). Absorbed: exactly `t mod size` for every value
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
    axes = list(ir.DenseI64ArrayAttr(op.attributes["axes"]))
    input_shape = static_shape_of(x)
    require(bool(axes) and input_shape is not None, "no axes, or a dynamic input")
    sizes = {input_shape[a] for a in axes}
    require(len(sizes) == 1, "gathered axes of different sizes")
    (size,) = sizes
    leaf = _floor_modulo_leaf(indices, size)
    require(leaf is not None, f"the indices are not a floor modulo by the axis size {size}")
    shape = static_shape_of(indices)
    with rewriter.ip, op.location:
        wide = emit_view(leaf, shape) if static_shape_of(leaf) != shape else leaf
        value = gather_multiaxis(x, wide, axes, mode=Mode.WRAP)
    rewriter.replace_op(op, [value])
    return False


PATTERNS = (
    ("tosa.gather", raise_tosa_gather),
    (OP_NAME, fold_input_reshape),
    (OP_NAME, raise_linearised_indices),
    (OP_NAME, split_linearised_index),
    (OP_NAME, fold_constant_input),
    (OP_NAME, fold_input_transpose),
    (OP_NAME, fold_input_broadcast),
    ("tosa.cast", fold_value_casts),
    (OP_NAME, simplify_indices),
    (OP_NAME, absorb_floor_modulo),
    ("linalg.generic", raise_linalg_gather),
    ("tensor.gather", raise_tensor_gather),
) + tuple((name, fold_result_reshape) for name in VIEW_OPS) + tuple(
    (name, view_shared_result) for name in VIEW_OPS
) + dynamic_gathers.PATTERNS + tuple(
    (name, dynamic_gathers.RESULT_PATTERN) for name in VIEW_OPS
) + stablehlo_gathers.PATTERNS


# --- the driver --------------------------------------------------------------------------------

DEBUG_TYPE = "gmx-canonicalize"
# Rounds of the greedy driver: real programs need a handful; more means
# patterns undo each other.
MAX_ITERATIONS = 64


def pattern_name(function) -> str:
    """A pattern's name as this module's docstring lists it (`raise-tosa-gather`)."""
    return function.__name__.replace("_", "-")


@dataclass(frozen=True)
class PatternFailure:
    """An internal error (a bug) of one pattern on one op, or of the whole
    rewrite (`what` says which)."""

    location: ir.Location
    what: str  # `pattern raise-tosa-gather`, or `the rewrite`
    error: str  # `RuntimeError: what it said`
    outcome: str = "op left unchanged"  # what the user's IR is after it

    def message(self) -> str:
        return f"{DEBUG_TYPE}: {self.what} failed ({self.error})"


class _PatternRun:
    """The patterns of one run, adapted to the driver (a truthy return is
    "no match"): NoMatch is no match, its reason printed under
    `--debug-only=gmx-canonicalize`; any other exception is a bug, recorded
    and reported once the driver has returned (an exception must not unwind
    through the C++ driver). Either way the op is left unchanged."""

    def __init__(self):
        self.failures: list[PatternFailure] = []
        self.failing = debug.failing_pattern()

    def adapt(self, function):
        name = pattern_name(function)

        def apply(op, rewriter):
            try:
                if name == self.failing:
                    raise RuntimeError(f"injected by {debug.FAIL_PATTERN_ENV}")
                with evaluation_cache():  # the IR only changes in the final rewrite
                    return function(op, rewriter)
            except NoMatch as reason:
                debug.debug(DEBUG_TYPE, op.location, f"{name}: no match: {reason}")
                return True
            except Exception as error:  # a bug must not lose the user's IR
                self.failures.append(PatternFailure(op.location, f"pattern {name}", f"{type(error).__name__}: {error}"))
                return True

        apply.__name__ = function.__name__
        return apply


def _report(failures: list[PatternFailure]) -> None:
    """Each distinct failure once: a located warning, or in strict mode
    (`GMX_STRICT`) a located error that fails the pass."""
    failures = list({(str(f.location), f.what, f.error): f for f in failures}.values())
    if not failures:
        return
    if not debug.strict():
        for failure in failures:
            sys.stderr.write(f"{location_text(failure.location)}: warning: {failure.message()}; {failure.outcome}\n")
        return
    for failure in failures:
        failure.location.emit_error(f"{failure.message()}; an error in strict mode ({debug.STRICT_ENV})")
    raise PassFailed(f"{len(failures)} pattern failure(s)")


# `fuse=false`: what every checked lowering needs first (a tosa.gather
# bounds-checked as gmx; a tensor.gather, which upstream cannot lower), with
# nothing around it fused.
RAISE_ONLY = (("tosa.gather", raise_tosa_gather), ("tensor.gather", raise_tensor_gather))


def _first_location(module) -> ir.Location:
    """Where a failure of the whole rewrite is reported: the module's first
    op (an implicit module has no location of its own)."""
    for op in module.regions[0].blocks[0].operations:
        return op.location
    return module.location


def canonicalize(module, fuse: bool = True) -> None:
    """Apply the gmx patterns (`fuse=False`: raise-tosa-gather and raise-tensor-gather alone) to
    `module` until none applies.

    Raises PassFailed, its errors emitted, when a pattern failed in strict mode.
    """
    run = _PatternRun()
    patterns = rewrite.RewritePatternSet()
    for root, function in PATTERNS if fuse else RAISE_ONLY:
        patterns.add(root, run.adapt(function))
    config = rewrite.GreedyRewriteConfig()
    config.enable_folding = False  # no upstream folds on the user's IR (dead ops still go, equal constants merge)
    config.max_iterations = MAX_ITERATIONS
    try:
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze(), config)
    except RuntimeError as error:  # the driver's one failure: patterns that keep rewriting (a bug)
        run.failures.append(PatternFailure(_first_location(module), "the rewrite", f"{error} in {MAX_ITERATIONS} iterations",
                                           "the IR is as its last round left it"))
    _report(run.failures)


# Before the patterns (fuse=true): calls inlined, with no nested
# canonicalization (no upstream folds on the user's IR), dead private
# functions dropped.
INLINE = ("inline{default-pipeline=}", "symbol-dce")


def _build(pm, options) -> None:
    if options["fuse"]:
        for element in INLINE:
            pm.add(element)
    add_python_pass(pm, lambda module: canonicalize(module, options["fuse"]), PASS)


PASS = PassInfo(
    argument="gmx-canonicalize",
    description="Raise tosa.gather with reshapes and linearised indices, stablehlo.gather, gather-shaped "
    "linalg.generic and tensor.gather into gmx.gather_multiaxis; gmx folds",
    build=_build,
    options=(
        PassOption(
            "fuse",
            True,
            "fold what surrounds each gather into it (false: raise-tosa-gather and raise-tensor-gather alone, "
            "every tosa.gather a gmx op with axes = [1], every tensor.gather a gmx op, nothing around it fused)",
        ),
    ),
)
