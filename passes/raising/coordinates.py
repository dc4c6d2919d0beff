"""Reading one coordinate of a gather back to where it comes from.

A coordinate arrives as a tensor laid out over the output space (see
`gather_spec`). Frontends build it from a small index tensor by reshaping,
broadcasting (`tosa.tile`), casting and normalising negative values, or from
constants (iotas), or as a linear combination of per-dim coordinates. The
functions here undo the first two:

- `strip_layout`: views and broadcasting tiles (the output space is refined
  where the tensor's own shape splits an output dim);
- `peel`: additionally absorbs value maps gmx does itself (casts,
  `select(greater(0, i), add(i, n), i)`, floor-mod) and turns constants into
  `Iota` / `Zero` / a compact constant.

`linear_indices` splits a linear index into its terms, and
`coordinate_tuples` reads the tuples of coordinates packed in a last dim.

Contract (what frontends guarantee, and what makes the raising exact): every
per-dim coordinate lies in [-dim, dim). Under it the raised gather reads
the same element as the original program; outside it the original reads
some other element silently, and the raised one reports the index.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from gmx.dialect.mlir import ir

from .gather_spec import GatherSpec, Indexed, Iota, Zero, constant_coordinate, refine_output
from ..patterns import NoMatch, require
from .index_maps import absorption_width, wraps_like_gmx
from .index_values import constant_value, elementwise_inputs, elementwise_operands, index_function
from .integer_ops import integer_width
from ..views import common_refinement, defining_op, merge_groups, op_name, static_shape_of, view_source


class Work:
    """A spec plus coordinates still being taken apart, refined together."""

    def __init__(self, spec: GatherSpec, pending: list[Indexed] | None = None):
        self.spec = spec
        self.pending = list(pending or [])

    def refine(self, fine: list[int]) -> None:
        extra = GatherSpec(self.spec.input, self.spec.out_shape, list(self.spec.coords) + self.pending)
        refined = refine_output(extra, fine)
        n = len(self.spec.coords)
        self.spec = replace(self.spec, out_shape=refined.out_shape, coords=refined.coords[:n])
        self.pending = refined.coords[n:]


def refine_to(work: Work, index: int, own_shape: list[int]) -> list[list[int]]:
    """Refine the output space so that the dims of `own_shape` (the pending
    coordinate's actual tensor shape) are unions of output dims; returns, for
    each dim of `own_shape`, its output dims."""
    coord = work.pending[index]
    spanned = [b for b, s in enumerate(coord.shape) if s != 1]
    nonunit = [coord.shape[b] for b in spanned]
    fine_pieces = common_refinement(nonunit or [1], own_shape)
    require(fine_pieces is not None, "coordinate shape does not align with the output")
    # split each spanned output dim into its pieces
    out, pieces = [], iter(fine_pieces)
    for b, size in enumerate(work.spec.out_shape):
        if b not in spanned:
            out.append(size)
            continue
        product = 1
        while product < size:
            piece = next(pieces)
            out.append(piece)
            product *= piece
    if out != list(work.spec.out_shape):
        work.refine(out)
    coord = work.pending[index]
    spanned = [b for b, s in enumerate(coord.shape) if s != 1]
    groups = merge_groups([coord.shape[b] for b in spanned], own_shape)
    require(groups is not None, "coordinate shape does not merge output dims")
    return [[spanned[i] for i in group] for group in groups]


def broadcast_of(value: ir.Value) -> tuple[ir.Value, list[int]] | None:
    """(source, the dims of `value` it spans, in order) when `value` is a
    `linalg.generic` broadcasting one tensor over more dims (torch-mlir's
    linalg-on-tensors `expand`: the body yields its input, the input's map
    picks some of the output's dims in order, the output's map is a
    permutation); else None."""
    generic = defining_op(value)
    if generic is None or generic.name != "linalg.generic" or len(generic.opview.inputs) != 1 \
            or len(generic.results) != 1:
        return None
    block = generic.regions[0].blocks[0]
    operations = list(block.operations)
    if len(operations) != 1 or operations[0].operands[0] != block.arguments[0]:
        return None
    maps = [ir.AffineMapAttr(a).value for a in generic.attributes["indexing_maps"]]
    dims = [e.position if isinstance(e, ir.AffineDimExpr) else None for e in maps[0].results]
    if None in dims or dims != sorted(dims) or not maps[1].is_permutation:
        return None
    return generic.opview.inputs[0], dims


def strip_layout(work: Work, index: int) -> None:
    """Look through views and broadcasting tiles (or generics) of pending coordinate `index`."""
    while True:
        coord = work.pending[index]
        value = coord.value
        source = view_source(value)
        if source is not None and (coord.tuple_size == 1 or static_shape_of(source)[-1] == coord.tuple_size):
            work.pending[index] = replace(coord, value=source)
            continue
        if coord.tuple_size == 1 and _strip_broadcast_generic(work, index):
            continue
        if op_name(value) != "tosa.tile" or coord.tuple_size != 1:
            return
        multiples = constant_value(defining_op(value).operands[1])
        tiled = defining_op(value).operands[0]
        inner = static_shape_of(tiled)
        if multiples is None or inner is None:
            return
        if any(m > 1 and s > 1 for m, s in zip(multiples, inner)):
            return  # a real repetition, not a broadcast
        try:
            groups = refine_to(work, index, static_shape_of(value))
        except NoMatch:
            return
        coord = work.pending[index]
        shape = list(coord.shape)
        for dim, group in enumerate(groups):
            if multiples[dim] > 1:
                for b in group:
                    shape[b] = 1
        work.pending[index] = replace(coord, value=tiled, shape=tuple(shape))


def _strip_broadcast_generic(work: Work, index: int) -> bool:
    """Pending coordinate `index` read before the broadcasting generic it
    comes from (`broadcast_of`, output map the identity), its coordinate
    shape 1 along the dims the broadcast adds; False when it is no such
    broadcast, or the output space cannot be refined to its shape."""
    coord = work.pending[index]
    broadcast = broadcast_of(coord.value)
    shape = static_shape_of(coord.value)
    if broadcast is None or shape is None or static_shape_of(broadcast[0]) is None \
            or ir.AffineMapAttr(defining_op(coord.value).attributes["indexing_maps"][1]).value \
            != ir.AffineMap.get_identity(len(shape)):
        return False
    source, spanned = broadcast
    try:
        groups = refine_to(work, index, shape)
    except NoMatch:
        return False
    coord = work.pending[index]
    own = list(coord.shape)
    for dim, group in enumerate(groups):
        if dim not in spanned and shape[dim] != 1:
            for b in group:
                own[b] = 1
    work.pending[index] = replace(coord, value=source, shape=tuple(own))
    return True


def _absorb_value_map(coord: Indexed, size: int) -> Indexed | None:
    """The coordinate with an absorbable elementwise map removed, or None."""
    value = coord.value
    if elementwise_operands(defining_op(value)) is None:
        return None
    shape = static_shape_of(value)
    inputs = [v for v in reversed(elementwise_inputs(value))  # a gmx op takes no `index` elements
              if static_shape_of(v) == shape and isinstance(ir.ShapedType(v.type).element_type, ir.IntegerType)]
    for leaf in inputs:
        width = absorption_width(value, leaf)
        function = index_function(value, leaf)
        if width is None or function is None:
            continue
        if wraps_like_gmx(function, width, size):
            return replace(coord, value=leaf)
        for read in inputs:  # gmx reading a cast of the leaf (TOSA's i64 index narrowed to i32)
            cast = index_function(read, leaf) if read != leaf and _is_cast(read) else None
            if cast is not None and wraps_like_gmx(function, width, size, cast):
                return replace(coord, value=read)
    return None


def _is_cast(value: ir.Value) -> bool:
    """Whether `value` is an integer cast of another tensor (8 to 64 bits)."""
    width = integer_width(ir.ShapedType(value.type).element_type)
    return op_name(value) in ("tosa.cast", "arith.extsi", "arith.trunci") and width is not None and 8 <= width <= 64


def _hoist_value_map(work: Work, index: int) -> bool:
    """Move an elementwise map above the broadcast it follows: f(tile(t)) is
    tile(f(t)), and f then runs on the small tensor. Only when a broadcast
    really goes away."""
    coord = work.pending[index]
    value = coord.value
    if elementwise_operands(defining_op(value)) is None:
        return False
    shape = static_shape_of(value)
    for leaf in reversed(elementwise_inputs(value)):
        if static_shape_of(leaf) != shape or index_function(value, leaf) is None or _has_generic(value, leaf):
            continue
        trial = Work(work.spec, list(work.pending))
        trial.pending[index] = replace(coord, value=leaf)
        strip_layout(trial, index)
        stripped = trial.pending[index]
        if int(math.prod(static_shape_of(stripped.value))) >= int(math.prod(shape)):
            return False
        work.spec, work.pending = trial.spec, trial.pending
        work.pending[index] = replace(stripped, maps=coord.maps + ((value, leaf),))
        return True
    return False


def _has_generic(root: ir.Value, leaf: ir.Value) -> bool:
    """Whether the elementwise map from `leaf` to `root` has a `linalg.generic`
    (which `gather_spec.clone_map` cannot rebuild on another shape)."""
    stack = [root]
    while stack:
        value = stack.pop()
        op = defining_op(value)
        if value == leaf or op is None:
            continue
        if op.name == "linalg.generic":
            return True
        stack.extend(elementwise_operands(op) or [])
    return False


def _classify_constant(work: Work, index: int, array: np.ndarray, size: int):
    """Iota, Zero or a compact constant Indexed for a constant coordinate."""
    try:
        refine_to(work, index, list(array.shape))
    except NoMatch:
        pass
    coord = work.pending[index]
    compact = array.reshape(coord.shape)
    spanned = [b for b, s in enumerate(coord.shape) if s != 1]
    # drop dims along which the constant does not vary
    shape = list(coord.shape)
    for b in spanned:
        first = np.take(compact, [0], axis=b)
        if np.all(compact == first):
            compact, shape[b] = first, 1
    spanned = [b for b, s in enumerate(shape) if s != 1]
    flat = compact.reshape(-1)
    if not spanned and flat[0] in (0, -size):
        return Zero()
    if len(spanned) == 1 and _is_iota(flat, size):
        return Iota(spanned[0], int(flat[0]))
    if tuple(shape) == tuple(coord.shape) and list(compact.shape) == static_shape_of(coord.value):
        return replace(coord, shape=tuple(shape))
    return replace(coord, shape=tuple(shape), array=compact.reshape(shape))


def _is_iota(flat: np.ndarray, size: int) -> bool:
    """`flat` counts up by one from a start s >= 0 and stays inside an axis of
    `size` (`arange(n) + s`; no wrap-around: a negative start would read
    from the end)."""
    start = int(flat[0])
    return 0 <= start and start + flat.size <= size and np.array_equal(flat, np.arange(start, start + flat.size))


def row_major_iota_sizes(array: np.ndarray) -> list[int] | None:
    """The sizes of the dims of `array` that are not 1, when `array` counts
    0, 1, 2, ... over them in row-major order (an iota of several output
    dims: the dim it indexes is their merge); None otherwise.

        row_major_iota_sizes(np.array([[0, 1], [2, 3]])) == [2, 2]
    """
    sizes = [s for s in array.shape if s != 1]
    if len(sizes) < 2 or not np.array_equal(array.reshape(-1), np.arange(array.size)):
        return None
    return sizes


def peel(work: Work, index: int, size: int):
    """Pending coordinate `index` (of an input dim of `size`) as Iota, Zero or the
    smallest Indexed it comes from; the output space may be refined."""
    while True:
        strip_layout(work, index)
        coord = work.pending[index]
        if coord.tuple_size != 1:
            return coord
        # a coordinate peeled before may carry its compacted values (`array`):
        # its value is then the larger tensor they were read from
        array = constant_value(coord.value) if coord.array is None else constant_coordinate(coord)
        if array is not None:
            return _classify_constant(work, index, array, size)
        absorbed = _absorb_value_map(coord, size)
        if absorbed is not None:
            work.pending[index] = absorbed
        elif not _hoist_value_map(work, index):
            break
    try:  # give a real index tensor its natural shape in the output space
        refine_to(work, index, static_shape_of(work.pending[index].value))
    except NoMatch:
        pass
    return work.pending[index]
