"""A linear index split into its terms (`linear_terms`).

Frontends linearise per-dim coordinates (`reduce_sum(mul(concat(c..),
strides))`, `add(mul(c0, s), c1)`); a sum the user wrote on an index
(`index_select(0, i + j)`) is one term, the index (`exact_split`). The
terms are the pending coordinates of a `coordinates.Work`, each then read
by `coordinates.peel`; see `coordinates` for the contract that makes the
split exact.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gmx.dialect.mlir import ir

from .coordinate_tuples import concat_parts
from .coordinates import Work, refine_to, strip_layout
from .gather_spec import Indexed
from ..patterns import NoMatch
from .index_maps import normalises_negative_indices
from .index_values import constant_value, elementwise_inputs, index_function, splat_value
from .integer_ops import integer_width, linear_generic
from ..views import strip_views, defining_op, op_name, static_shape_of, view_source


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
        groups = refine_to(work, index, shape)
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
