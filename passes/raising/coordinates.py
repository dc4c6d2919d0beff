"""Reading one coordinate of a gather back to where it comes from.

A coordinate arrives as a tensor laid out over the output space (see
`gather_spec`). Frontends build it from a small index tensor by reshaping,
broadcasting (`tosa.tile`), casting and normalising negative values, or from
constants (iotas), or as a linear combination of per-dim coordinates. The
functions here undo that:

- `strip_layout`: views and broadcasting tiles (the output space is refined
  where the tensor's own shape splits an output dim);
- `peel`: additionally absorbs value maps gmx does itself (casts,
  `select(greater(0, i), add(i, n), i)`, floor-mod) and turns constants into
  `Iota` / `Zero` / a compact constant;
- `linear_terms`: splits a linear index (`reduce_sum(mul(concat(c..), strides))`,
  `add(mul(c0, s), c1)`) into its terms; a sum the user wrote on an index
  (`index_select(0, i + j)`) is one term, the index (`exact_split`).

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
from .index_values import (
    absorption_width,
    constant_value,
    elementwise_inputs,
    elementwise_operands,
    linear_generic,
    index_function,
    splat_value,
    integer_width,
    normalises_negative_indices,
    wraps_like_gmx,
)
from ..views import strip_views, common_refinement, defining_op, merge_groups, op_name, static_shape_of, view_source


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


def _refine_to(work: Work, index: int, own_shape: list[int]) -> list[list[int]]:
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
            groups = _refine_to(work, index, static_shape_of(value))
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
        groups = _refine_to(work, index, shape)
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
        _refine_to(work, index, list(array.shape))
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
        _refine_to(work, index, static_shape_of(work.pending[index].value))
    except NoMatch:
        pass
    return work.pending[index]


# --- Linear indices ------------------------------------------------------------------


def column_of(value: ir.Value) -> tuple[ir.Value, int, int] | None:
    """(tuples, j, k) when `value` is component `j` of the `k`-tuples in the
    last dim of `tuples`, cut out by a static `tensor.extract_slice` (the
    whole of every other dim: linalg-on-tensors' columns of ONNX ScatterND's
    indices); else None."""
    op = defining_op(value)
    if op is None or op.name != "tensor.extract_slice" or len(op.operands) != 1:
        return None
    source = op.operands[0]
    shape = static_shape_of(source)
    offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
    if shape is None or not shape or shape[-1] < 2 or any(s != 1 for s in strides) or any(offsets[:-1]) \
            or sizes != shape[:-1] + [1]:
        return None
    return source, offsets[-1], shape[-1]


def concat_parts(value: ir.Value) -> list[tuple[ir.Value, int, int]] | None:
    """(operand, offset, width) along the last dim of a concat, in either spelling:
    `tosa.concat`/`tensor.concat`, or `tensor.insert_slice`s into `tensor.empty`
    (or a `linalg.fill` of one: torch-mlir's tm_tensor scatter indices)."""
    name = op_name(value)
    shape = static_shape_of(value)
    if shape is None:
        return None
    last = len(shape) - 1
    if name in ("tosa.concat", "tensor.concat"):
        attribute = defining_op(value).attributes["axis" if name == "tosa.concat" else "dim"]
        if ir.IntegerAttr(attribute).value != last:
            return None
        parts, offset = [], 0
        for operand in defining_op(value).operands:
            width = static_shape_of(operand)[-1]
            parts.append((operand, offset, width))
            offset += width
        return parts
    parts = []
    while op_name(value) == "tensor.insert_slice":
        op = defining_op(value)
        source = op.operands[0]
        offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
        strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
        if len(op.operands) != 2 or any(s != 1 for s in strides) or any(offsets[:-1]) or sizes[:-1] != shape[:-1]:
            return None
        if static_shape_of(source) != sizes:
            return None
        parts.append((source, offsets[-1], sizes[-1]))
        value = op.operands[1]
    if op_name(value) == "linalg.fill":  # every element is overwritten: the fill is never read
        value = defining_op(value).operands[1]
    if op_name(value) != "tensor.empty" or not parts:
        return None
    parts.sort(key=lambda p: p[1])
    offset = 0
    for _, start, width in parts:
        if start != offset:
            return None
        offset += width
    return parts if offset == shape[-1] else None


def _reduced_concat_terms(coord: Indexed) -> list[tuple[Indexed, int]] | None:
    """reduce_sum(mul(view(concat(parts)), strides), last) as (coordinate, stride)
    terms in concat order; without the mul, every stride is 1."""
    value = coord.value
    if op_name(value) != "tosa.reduce_sum":
        return None
    summed = defining_op(value).operands[0]
    shape = static_shape_of(summed)
    if ir.IntegerAttr(defining_op(value).attributes["axis"]).value != len(shape) - 1:
        return None
    n = shape[-1]
    if op_name(summed) == "tosa.mul" and splat_value(defining_op(summed).operands[2]) == 0:
        a, b = defining_op(summed).operands[0], defining_op(summed).operands[1]
        strides, tuples = constant_value(b), a
        if strides is None:
            strides, tuples = constant_value(a), b
    else:  # every stride 1 (unit dims after the first): torch-mlir leaves the mul out
        strides, tuples = np.ones(n, np.int64), summed
    if strides is None or strides.size != n:
        return None
    while (source := view_source(tuples)) is not None and static_shape_of(source)[-1] == n:
        tuples = source
    parts = concat_parts(tuples)
    if parts is None:
        return None
    terms = []
    for operand, offset, width in parts:
        for j in range(width):
            term = replace(coord, value=operand, component=j, tuple_size=width)
            if width == 1:
                term = replace(term, component=0, tuple_size=1)
            terms.append((term, int(strides.reshape(-1)[offset + j])))
    return terms


def linear_terms(work: Work, index: int, size_of_stride: dict[int, int], factor: int = 1) -> list[tuple[int, int]]:
    """Split pending coordinate `index` (scaled by `factor`) into linear terms
    over dims whose sizes `size_of_stride` gives by their row-major stride.

    Returns (pending index, coefficient) pairs; new pending coordinates are
    appended to `work`. The parts of `reduce_sum(mul(concat(parts), strides))`
    are the frontend's per-dim coordinates: always terms. A sum or a scaled
    value (`add`, `mul` by a constant) is the frontend's linearisation only
    where `exact_split` accepts the terms it gives (ONNX GatherND's
    `add(mul(c0, s0), c1)` on normalised coordinates); else it is the user's
    own index arithmetic (`index_select(0, i + j)`, `i * 3`), one term.
    """
    strip_layout(work, index)
    coord = work.pending[index]
    if coord.tuple_size != 1:
        return [(index, factor)]
    if op_name(coord.value) in ("tosa.cast", "arith.extsi", "arith.trunci"):
        # A cast of a sum is part of the arithmetic (the sum of valid terms is
        # below the element count); a cast of one coordinate is kept unless
        # it is lossless, and `peel` decides about it.
        source = defining_op(coord.value).operands[0]
        if not (_is_sum(source) or _widening(source, coord.value)):
            return [(index, factor)]
        trial = Work(work.spec, work.pending)
        trial.pending[index] = replace(coord, value=source)
        return _commit_if_split(work, trial, index, factor, linear_terms(trial, index, size_of_stride, factor))
    reduced = _reduced_concat_terms(coord)
    if reduced is not None:
        return _expand_terms(work, reduced, size_of_stride, factor)
    trial = Work(work.spec, work.pending)
    children = _sum_operands(trial, index)
    if children is None:
        return [(index, factor)]
    terms = _expand_terms(trial, children, size_of_stride, factor)
    evidence = [(coefficient, _evidence(trial.pending[i], size_of_stride.get(coefficient))) for i, coefficient in terms]
    if not exact_split(evidence, size_of_stride):
        return [(index, factor)]
    return _commit_if_split(work, trial, index, factor, terms)


def _commit_if_split(work: Work, trial: Work, index: int, factor: int, terms: list) -> list[tuple[int, int]]:
    """`terms` found on `trial`, which `work` takes over, unless they are the
    coordinate itself (then `work` keeps it as it was)."""
    if terms == [(index, factor)]:
        return terms
    work.spec, work.pending = trial.spec, trial.pending
    return terms


def _sum_operands(work: Work, index: int) -> list[tuple[Indexed, int]] | None:
    """(operand, factor) of pending coordinate `index` when it is an `add`
    (operands broadcasting to its shape: `i[:, None] * 4 + arange(4)`) or a
    `mul` by a splat constant, else None. An add of broadcast operands refines
    the output space so that each operand's broadcast dims are dims of it."""
    coord = work.pending[index]
    name = op_name(coord.value)
    op = defining_op(coord.value)
    if name == "tosa.add":
        return _add_operands(work, index)
    if name == "linalg.generic":  # linalg-on-tensors' `c0 * 5 + c1`, all operands of the sum's shape
        coefficients = linear_generic(op)
        inputs = list(op.opview.inputs)
        if coefficients is None or any(static_shape_of(v) != static_shape_of(coord.value) for v in inputs):
            return None
        return [(replace(coord, value=v), c) for v, c in zip(inputs, coefficients) if c != 0]
    if name == "tosa.mul" and splat_value(op.operands[2]) == 0:
        for this, other in ((0, 1), (1, 0)):
            factor = splat_value(op.operands[other])
            if factor is not None and static_shape_of(op.operands[this]) == static_shape_of(coord.value):
                return [(replace(coord, value=op.operands[this]), factor)]
    return None


def _add_operands(work: Work, index: int) -> list[tuple[Indexed, int]] | None:
    """The operands of an add as terms, each broadcast where its dim is 1."""
    value = work.pending[index].value
    shape = static_shape_of(value)
    operands = list(defining_op(value).operands)
    if all(static_shape_of(o) == shape for o in operands):
        return [(replace(work.pending[index], value=o), 1) for o in operands]
    try:
        groups = _refine_to(work, index, shape)
    except NoMatch:
        return None
    coord = work.pending[index]
    terms = []
    for operand in operands:
        own = static_shape_of(operand)
        broadcast = coord.shape
        for dim, group in enumerate(groups):
            if own[dim] == 1 and shape[dim] != 1:
                broadcast = tuple(1 if b in group else s for b, s in enumerate(broadcast))
        terms.append((replace(coord, value=operand, shape=broadcast), 1))
    return terms


# What is known of a term's values (`_evidence`), for `exact_split`.
IN_RANGE = "in range"  # a constant within [0, size) of its dim
NORMALISED = "normalised"  # the frontend's negative-index normalisation for its dim
UNKNOWN = "unknown"


def exact_split(terms: list[tuple[int, str]], size_of_stride: dict[int, int]) -> bool:
    """Whether a sum with these (coefficient, evidence) terms may be read as
    one coordinate per dim: gmx then reads what the flat index reads.

    Each coefficient must be a distinct stride. A term known to lie in its
    dim (IN_RANGE), or normalised by the frontend for it (NORMALISED: the
    frontend's per-dim coordinate, see `coordinates`' contract), is a
    coordinate. At most the term of the largest stride may be UNKNOWN: with
    all the others in their dims, the sum is a valid flat index exactly when
    it is a valid index of its dim (a negative one wrapping to the same
    element). The user's `i * C + j` on a reshaped (R, C) input has an
    unknown `j` (j = C + 1 is a valid flat index): not split.
    """
    coefficients = [c for c, _ in terms]
    if len(set(coefficients)) != len(coefficients) or not all(c in size_of_stride for c in coefficients):
        return False
    top = max(coefficients)
    return all(evidence != UNKNOWN or c == top for c, evidence in terms)


def _evidence(coord: Indexed, size: int | None) -> str:
    """What is known of `coord`'s values as a coordinate of a dim of `size`."""
    if size is None:
        return UNKNOWN
    array = constant_value(coord.value)
    if array is not None:
        return IN_RANGE if bool(np.all((array >= 0) & (array < size))) else UNKNOWN
    for leaf in elementwise_inputs(coord.value):
        function = index_function(coord.value, leaf)
        if function is not None and normalises_negative_indices(function, size):
            return NORMALISED
    return UNKNOWN


def concat_linearisation(work: Work, index: int) -> list[tuple[int, int]] | None:
    """Pending coordinate `index` as torch-mlir's linearisation of coordinate
    tuples, `reduce_sum(mul(concat(c_0, ..., c_k), strides))` (the mul left
    out where every stride is 1), through views and casts of the sum: one
    (pending index, stride) per coordinate, in concat order, which is the
    order of the dims they address; None for any other index. The parts are
    appended to `work` as they are, not split further.
    """
    strip_layout(work, index)
    coord = work.pending[index]
    while coord.tuple_size == 1 and op_name(coord.value) in ("tosa.cast", "arith.extsi", "arith.trunci"):
        source = defining_op(coord.value).operands[0]
        if not (_is_sum(source) or _widening(source, coord.value)):
            return None
        work.pending[index] = replace(coord, value=source)
        strip_layout(work, index)
        coord = work.pending[index]
    terms = _reduced_concat_terms(coord) if coord.tuple_size == 1 else None
    if terms is None:
        return None
    first = len(work.pending)
    work.pending.extend(term for term, _ in terms)
    return [(first + j, stride) for j, (_, stride) in enumerate(terms)]


def linearised_sizes(strides: list[int], total: int) -> list[int] | None:
    """The sizes of the dims that a row-major linearisation with `strides`
    (in dim order) addresses in a dim of `total` elements:
    `[total / s_0, s_0 / s_1, ..., s_(k-1) / s_k]`, a unit dim where two
    strides are equal; None unless `s_k` is 1 and each stride divides the
    one before (and `total`).

        linearised_sizes([8, 1], 24) == [3, 8]
        linearised_sizes([6, 1, 1], 24) == [4, 6, 1]
    """
    if not strides or strides[-1] != 1 or any(s <= 0 for s in strides):
        return None
    sizes, before = [], total
    for stride in strides:
        if before % stride:
            return None
        sizes.append(before // stride)
        before = stride
    return sizes


def _is_sum(value: ir.Value) -> bool:
    """Whether a linear sum lies under `value` through views, tiles and casts."""
    while True:
        value = strip_views(value)[0]
        name = op_name(value)
        if name in ("tosa.add", "tosa.mul", "tosa.reduce_sum"):
            return True
        if name not in ("tosa.tile", "tosa.cast"):
            return False
        value = defining_op(value).operands[0]


def _widening(source: ir.Value, result: ir.Value) -> bool:
    a = integer_width(ir.ShapedType(source.type).element_type)
    b = integer_width(ir.ShapedType(result.type).element_type)
    return a is not None and b is not None and a <= b


def _expand_terms(work: Work, terms: list[tuple[Indexed, int]], size_of_stride: dict[int, int],
                  factor: int = 1) -> list[tuple[int, int]]:
    """Append `terms` (laid out over the current output space, each scaled
    by `factor`) to `work` and split each further.

    All of them are appended before any is split: splitting one may refine
    the output space (`x[:, i].reshape(2, 48)`: the gmx output 2x48 becomes
    2x6x8 when the first term, a 2x6x8 tile, is looked through), and only
    pending coordinates are refined with it; a term appended later would keep
    the old space's shape.
    """
    first = len(work.pending)
    work.pending.extend(term for term, _ in terms)
    result = []
    for offset, (_, coefficient) in enumerate(terms):
        result.extend(linear_terms(work, first + offset, size_of_stride, factor * coefficient))
    return result
