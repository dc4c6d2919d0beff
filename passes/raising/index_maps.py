"""An index function read as what gmx does with an index: the one home of
reading a position function as a gmx mode (`position_mode`). A map is
gmx's own wrap of an index (`wraps_like_gmx`, at the width
`absorption_width` picks), a frontend's negative-index normalisation
(`normalises_negative_indices`), a floor modulo (`is_floor_modulo`: mode
wrap) or a clamp (`clamps_like_gmx`: mode clip), each checked exhaustively
on the valid index range and on probes outside it. The functions come
from `index_values.index_function`.
"""

from __future__ import annotations

import numpy as np

from gmx.dialect.gmx import OP_NAME
from gmx.dialect.mlir import ir
from gmx.dialect.modes import Mode
from gmx.dialect.scatter import SCATTER_OP_NAME

from .index_values import constant_value, elementwise_operands
from .integer_ops import element_width
from ..views import defining_op, view_source

# Index functions are checked exhaustively on [-size, size) up to this size.
MAX_CHECKED_AXIS = 1 << 22


_NARROWING_CASTS = ("tosa.cast", "arith.trunci")


def checked_width(leaf_width: int, index_cast_widths: list[int]) -> int:
    """The width whose values an absorption check (`wraps_like_gmx`,
    `is_floor_modulo`, `clamps_like_gmx`) probes for a map from a leaf of
    `leaf_width` bits through narrowing casts of an index to
    `index_cast_widths` bits.

    A narrowing cast of an index assumes in-range values (torch-mlir's i64
    -> i32 in front of tosa.gather / tosa.scatter): the map is judged on the
    values the narrowest cast represents, where it is exact, and the raised
    op reads the wide leaf, so a wide value out of range reaches gmx's check
    (an IndexError, as in PyTorch eager) instead of being truncated into range.
    """
    return min([leaf_width, *index_cast_widths])


def _used_only_as_index(value: ir.Value) -> bool:
    """Whether every use of `value`, through views and elementwise integer
    ops, ends as the indices operand of a gmx gather or scatter."""
    uses = list(value.uses)
    for use in uses:
        owner = use.owner.operation
        if owner.name in (OP_NAME, SCATTER_OP_NAME):
            if use.operand_number != 1:
                return False
            continue
        if len(owner.results) != 1:
            return False
        result = owner.results[0]
        source = view_source(result)
        if (source is None or source != value) and elementwise_operands(owner) is None:
            return False
        if not _used_only_as_index(result):
            return False
    return bool(uses)


def _narrowing_width(op) -> int | None:
    """The result width of `op` when it is an integer cast to fewer bits."""
    if op.name not in _NARROWING_CASTS:
        return None
    wide, narrow = element_width(op.operands[0]), element_width(op.results[0])
    return narrow if wide is not None and narrow is not None and narrow < wide else None


def absorption_width(root: ir.Value, leaf: ir.Value) -> int | None:
    """The width (`checked_width`) at which the map from `leaf` to `root` is
    checked: the leaf's, narrowed by each narrowing cast between them whose
    result is only an index of gmx ops. A narrowing cast used otherwise
    too (its truncation may be the program's arithmetic) keeps the leaf's
    width, where the probes see the truncation. None for a non-integer leaf."""
    leaf_width = element_width(leaf)
    if leaf_width is None:
        return None
    widths, seen, frontier = [], set(), [root]
    while frontier:
        value = frontier.pop()
        if value == leaf or value in seen or constant_value(value) is not None:
            continue
        seen.add(value)
        op = defining_op(value)
        operands = elementwise_operands(op)
        if operands is None:
            continue
        narrow = _narrowing_width(op)
        if narrow is not None:
            if not _used_only_as_index(value):
                return leaf_width
            widths.append(narrow)
        frontier.extend(operands)
    return checked_width(leaf_width, widths)


def _probes(size: int, width: int) -> np.ndarray:
    """Index values outside [-size, size) where a frontend's map may fold an
    invalid index back into range: multiples of the size, powers of two and
    their neighbours, the type's extremes."""
    top = (1 << (width - 1)) - 1
    near = np.arange(-min(size, 64), min(size, 64) + 1, dtype=np.int64)
    centres = [k * size for k in range(-4, 5)] + [sign * (1 << e) for e in range(1, width - 1) for sign in (1, -1)]
    values = (np.array(centres, dtype=np.int64)[:, None] + near[None, :]).reshape(-1)
    values = values[(values >= -top - 1 + 64) & (values <= top - 64)]
    values = np.concatenate([values, np.array([-top - 1, -top, top - 1, top], dtype=np.int64)])
    return values[(values < -size) | (values >= size)]


def wraps_like_gmx(function, leaf_width: int, size: int, read=None) -> bool:
    """Whether gmx on `t` (or on `read(t)`) reads what the program reads
    through `function(t)`.

    Wherever `function(t)` is a valid position [0, size), the program is
    defined, so gmx must read the same element: what it reads must be a
    valid index [-size, size) that wraps to that position. Checked
    exhaustively on [-size, size), and on probes outside it (a floor-mod, or
    a truncating cast, maps some of those into range: such maps are not
    absorbed, unless gmx reads the cast index, `read`: TOSA's narrowing of
    an i64 index to i32 kept, the frontend's arithmetic after it absorbed).
    """
    if size <= 0 or size > MAX_CHECKED_AXIS or size > (1 << (leaf_width - 1)):
        return False
    read = read or (lambda t: t)
    t = np.arange(-size, size, dtype=np.int64)
    result = np.asarray(function(t)).astype(np.int64)
    gmx = np.broadcast_to(np.asarray(read(t)).astype(np.int64), t.shape)
    if result.shape != t.shape or np.any(result < -size) or np.any(result >= size):
        return False
    if np.any(gmx < -size) or np.any(gmx >= size):
        return False
    if not np.all(np.where(result < 0, result + size, result) == np.where(gmx < 0, gmx + size, gmx)):
        return False
    probes = _probes(size, leaf_width)
    outside = np.asarray(function(probes)).astype(np.int64)
    gmx = np.asarray(read(probes)).astype(np.int64)
    defined = (outside >= 0) & (outside < size)
    same = (gmx >= -size) & (gmx < size) & (np.where(gmx < 0, gmx + size, gmx) == outside)
    return not np.any(defined & ~same)


def normalises_negative_indices(function, size: int) -> bool:
    """Whether `function` is a negative-index normalisation for a dim of
    `size`: it maps every valid index [-size, size) to its position in
    [0, size) (a negative one wrapped once), as gmx reads it.

    Frontends emit such a map on each per-dim coordinate of a gather (ONNX
    GatherND before linearising, torch-mlir's `x[i]`); the identity is none."""
    if size <= 0 or size > MAX_CHECKED_AXIS:
        return False
    t = np.arange(-size, size, dtype=np.int64)
    result = np.asarray(function(t)).astype(np.int64)
    return result.shape == t.shape and bool(np.array_equal(result, np.where(t < 0, t + size, t)))


def is_floor_modulo(function, leaf_width: int, size: int) -> bool:
    """Whether `function(t)` is `t mod size` (floor modulo: the result in
    [0, size), negatives too), what gmx's `mode = "wrap"` reads, for every
    `t` of the leaf's width with `|t| * size` in range: a frontend's floor
    division multiplies the index by the size (torch-mlir tests the sign of
    `t * size`), and beyond that its own arithmetic overflows where the
    source program (PyTorch's `%`) still means the true floor modulo.
    Checked exhaustively on [-2 size, 2 size) and on probes far outside
    (multiples of the size, powers of two, the bound), where a truncating
    remainder, a cast before the modulo or another modulus differs."""
    if size <= 0 or size > MAX_CHECKED_AXIS or size > (1 << (leaf_width - 1)):
        return False
    bound = ((1 << (leaf_width - 1)) - 1) // size  # |t| * size does not overflow
    probes = _probes(size, leaf_width)
    t = np.concatenate([np.arange(-2 * size, 2 * size, dtype=np.int64), probes[(probes >= -bound) & (probes <= bound)],
                        np.array([-bound, bound], dtype=np.int64)])
    result = np.asarray(function(t))
    return result.shape == t.shape and bool(np.array_equal(result.astype(np.int64), np.mod(t, size)))


def clamps_like_gmx(function, leaf_width: int, size: int) -> bool:
    """Whether `function(t)` is gmx's `clip` mode for a dim of `size`: `t`
    clamped to [0, size - 1] (StableHLO's clamp of a start index), checked
    exhaustively on [-size, size) and on the probes outside it."""
    if size <= 0 or size > MAX_CHECKED_AXIS or size > (1 << (leaf_width - 1)):
        return False
    t = np.concatenate([np.arange(-size, size, dtype=np.int64), _probes(size, leaf_width)])
    result = np.asarray(function(t)).astype(np.int64)
    return result.shape == t.shape and bool(np.array_equal(result, np.clip(t, 0, size - 1)))


def position_mode(function, leaf_width: int, size: int) -> Mode | None:
    """The gmx mode a position function is on a dim of `size` (Mode.RAISE,
    CLIP or WRAP), or None when it is none of them (any other map)."""
    if clamps_like_gmx(function, leaf_width, size):
        return Mode.CLIP
    if is_floor_modulo(function, leaf_width, size):
        return Mode.WRAP
    if wraps_like_gmx(function, leaf_width, size):
        return Mode.RAISE
    return None
