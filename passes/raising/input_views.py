"""Folds of the views of a gmx op's input: fold-input-reshape,
raise-linearised-indices, split-linearised-index and fold-constant-input.

A frontend flattens the data it gathers from (a reshape, or a constant of
the flat shape) and linearises the coordinates; these patterns read the
gather back over the data's own dims.
"""

from __future__ import annotations

import math
from dataclasses import replace

from gmx.dialect.gmx import OP_NAME
from gmx.dialect.scatter import SCATTER_OP_NAME

from .coordinates import Work, peel
from .linear_indices import concat_linearisation, linear_terms, linearised_sizes
from .gather_spec import GatherSpec, Indexed, Iota, Zero, current_form, refine_output, spec_of_gmx, require_static_shape
from .spec_rewrites import keep_broadcast_index, peel_all, replace_by_spec, split_iota_dims, without_unread_unit_dims
from ..patterns import pattern, require
from ..views import foldable_constant, merge_groups, strip_views


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
    source = require_static_shape(x0)
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
    return replace_by_spec(op, spec, rewriter, current_form(op), 0)


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
    Such a sum is taken apart only where it is exact (`linear_indices.exact_split`):
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
    dims; the batch dim is split the same way (`split_iota_dims`):

        %g = "gmx.gather_multiaxis"(%v : tensor<1x160x1xf32>, reshape(%f) : tensor<1x2x96xi32>) -> tensor<1x2x96xf32>
    becomes
        %e = tensor.expand_shape %x [[0, 1], [2], [3]] : tensor<4x5x8xf32> into tensor<2x2x5x8xf32>
        %g = "gmx.gather_multiaxis"(%e, %i : tensor<1x1x6x1xi32>) {axes = array<i64: 2>} -> tensor<2x2x6x8xf32>
        %r = tensor.collapse_shape %g [[0], [1, 2, 3]] : tensor<2x2x6x8xf32> into tensor<2x96xf32>
    """
    spec = _unflatten_input(spec_of_gmx(op), linear=True)
    spec = keep_broadcast_index(split_iota_dims(peel_all(spec)), op.operands[1])
    return replace_by_spec(op, spec, rewriter, current_form(op), 0)



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
    shape, coords = without_unread_unit_dims(spec.input_shape[:d] + sizes + spec.input_shape[d + 1:], coords)
    x0 = strip_views(spec.input)[0]
    new = replace(work.spec, input=x0, coords=coords, view=None if shape == require_static_shape(x0) else shape)
    # a constant index (Big Bird's zeros(...).expand(...) into a block view) peels to
    # iotas and zeros; one stays the index where it alone produces an output dim
    spec = keep_broadcast_index(split_iota_dims(new), op.operands[1])
    return replace_by_spec(op, spec, rewriter, current_form(op), 0)



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
    shape, coords = without_unread_unit_dims(spec.input_shape, spec.coords)
    require(len(shape) < len(spec.input_shape), "no unit dim to drop")
    return replace_by_spec(op, replace(spec, coords=coords, view=shape), rewriter, current_form(op), 0)




# Rooted at scatters too: a scatter writes where the gather of its operands reads.
PATTERNS = (
    pattern(fold_input_reshape, OP_NAME, SCATTER_OP_NAME),
    pattern(raise_linearised_indices, OP_NAME, SCATTER_OP_NAME),
    pattern(split_linearised_index, OP_NAME, SCATTER_OP_NAME),
    pattern(fold_constant_input, OP_NAME, SCATTER_OP_NAME),
)
