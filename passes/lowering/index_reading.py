"""How both ops read their operands: the indices (through a narrowing
cast, by indexing map or tensor.extract: coordinate j of a folded tuple at
`d_last * c + j`, broadcast dims at 0), the sizes the run time knows, and
the position in the input each coordinate tuple names under the op's
mode (`gmx.dialect.modes.normalize_index`, in IR). The gather reads the
input there; the scatter writes the result there.

`IndexReading` is the base of the builders: it holds the operands, sizes
and folder, and asks them for `plan` (a `gather_plan.GatherPlan`: per-dim
accesses, axes, mode).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from gmx.dialect.gmx import read_mode, static_shape
from gmx.dialect.modes import Mode, mode_rule
from gmx.dialect.mlir import arith, ir, tensor

from .folding import Folded, Folder
from .gather_plan import Access, GatherPlan
from .reporters import Reporter
from ..views import defining_op, emit_view, static_shape_of, strip_views

_NARROWING = ("tosa.cast", "arith.trunci")


def read_through_narrowing(indices: ir.Value) -> tuple[ir.Value, ir.Type | None]:
    """(wide indices, narrow element type) when `indices` is an integer
    truncation (tosa.cast, arith.trunci), possibly under static views, of
    wider integer indices; the view is emitted on the wide tensor (at the
    insertion point). Else (indices, None)."""
    narrowed, views = strip_views(indices)
    cast = defining_op(narrowed)
    if cast is None or cast.name not in _NARROWING:
        return indices, None
    wide, narrow = cast.operands[0], ir.RankedTensorType(narrowed.type).element_type
    wide_element = ir.RankedTensorType(wide.type).element_type
    if not (isinstance(wide_element, ir.IntegerType) and isinstance(narrow, ir.IntegerType)):
        return indices, None
    if wide_element.width <= narrow.width or not (wide_element.is_signless and narrow.is_signless):
        return indices, None
    return (emit_view(wide, static_shape_of(indices)) if views else wide), narrow


def read_operands(op) -> tuple[ir.Value, ir.Type | None, ir.RankedTensorType, Mode]:
    """What both builders read off a verified gmx op before planning:
    (indices, read wide when narrowed by a cast; the narrow element type or
    None; the result type; the mode). Indices narrowed by a cast
    (torch-mlir's i64 -> i32 for tosa.gather) are read wide and truncated
    where read: no pass over them first."""
    indices, narrow_type = read_through_narrowing(op.indices)
    mode, _ = read_mode(op)
    return indices, narrow_type, ir.RankedTensorType(op.output.type), mode


def element_bits_of(element_type: ir.Type) -> int:
    """Bit width of an int or float element type (32 if it has none)."""
    if isinstance(element_type, (ir.IntegerType, ir.FloatType)):
        return element_type.width
    return 32


@dataclass(frozen=True)
class Sizes:
    """Per-dim sizes of a gather's operands and output: ints where static,
    values (tensor.dim and what follows from it) where dynamic; and, for
    the non-axis dims whose broadcast only the run time decides, whether
    each side is 1."""

    input: list[Folded]
    indices: list[Folded]
    logical: list[Folded]  # the indices' with the last dim divided by c
    output: list[Folded]
    input_is_one: dict[int, Folded]
    logical_is_one: dict[int, Folded]


def tensor_dims(fold: Folder, value: ir.Value) -> list[Folded]:
    """Each dim of a ranked tensor: its static size, or a tensor.dim."""
    shape = static_shape(value.type)
    return [tensor.dim(value, fold.index(d)) if n is None else n for d, n in enumerate(shape)]


def emit_sizes(fold: Folder, plan: GatherPlan, input: ir.Value, indices: ir.Value) -> Sizes:
    """The gather's sizes, emitting what only the run time knows (once, at
    the insertion point, where they dominate the whole lowering)."""
    input_sizes, indices_sizes = tensor_dims(fold, input), tensor_dims(fold, indices)
    logical = list(indices_sizes)
    if logical:
        logical[-1] = fold.divui(logical[-1], plan.coordinate_size)
    # Broadcast checks and RUNTIME reads ask it of both sides; a dynamic
    # non-axis output dim, of the input (its size is the other side's if 1).
    dynamic = [d for d, n in enumerate(plan.output_shape) if n is None and d not in plan.axes]
    input_is_one = {d: fold.cmp("eq", input_sizes[d], 1) for d in sorted({*plan.broadcast_checks, *dynamic})}
    logical_is_one = {d: fold.cmp("eq", logical[d], 1) for d in plan.broadcast_checks}
    output = list(plan.output_shape)
    for d in dynamic:
        output[d] = fold.select(input_is_one[d], logical[d], input_sizes[d])
    for d in plan.axes:
        output[d] = logical[d]
    return Sizes(input_sizes, indices_sizes, logical, output, input_is_one, logical_is_one)


@dataclass(frozen=True)
class IndexReading:
    """Reading coordinates and mapping them to input positions: the base
    of the builders, which add their `plan` (a GatherPlan, or a property
    giving one), the plan of how positions are read."""

    sizes: Sizes
    input: ir.Value
    indices: ir.Value  # read wide when narrowed by a cast
    narrow_type: ir.Type | None  # the element type the op read them as
    result_type: ir.RankedTensorType
    site: int  # the op's entry of `gmx.error_sites`
    fold: Folder
    reporter: Reporter  # what renders the checks' reports

    def _indices_map(self, j: int) -> ir.AffineMap:
        """Indexing map of coordinate j: broadcast dims at 0, last at d*c + j."""
        exprs = []
        for d, access in enumerate(self.plan.indices_access):
            expr = ir.AffineConstantExpr.get(0) if access is Access.ZERO else ir.AffineDimExpr.get(d)
            exprs.append(expr)
        last = self.plan.rank - 1
        exprs[last] = exprs[last] * self.plan.coordinate_size + j
        return ir.AffineMap.get(self.plan.rank, 0, exprs)

    def _position(self, access: Access, here: Callable[[], Folded], is_one: Folded | None) -> Folded:
        """Read position along a dim for an ITER/ZERO/RUNTIME access, given
        the output position `here()` and whether the dim is 1 (RUNTIME)."""
        if access is Access.ZERO:
            return 0
        if access is Access.ITER:
            return here()
        return self.fold.select(is_one, 0, here())

    def _extract_indices(self, indices: ir.Value, loop_index: Callable[[int], ir.Value]) -> list[ir.Value]:
        """Read each coordinate with tensor.extract (used when a dim of the
        indices may broadcast at run time; never in a tile)."""
        fold = self.fold
        base = [
            self._position(access, functools.partial(loop_index, d), self.sizes.logical_is_one.get(d))
            for d, access in enumerate(self.plan.indices_access)
        ]
        last = fold.mul(base[-1], self.plan.coordinate_size)
        return [
            tensor.extract(indices, [fold.index(p) for p in [*base[:-1], fold.add(last, j)]])
            for j in range(len(self.plan.axes))
        ]

    def _narrowed(self, value: ir.Value) -> ir.Value:
        """An index value as the op sees it (after a looked-through cast)."""
        return value if self.narrow_type is None else arith.trunci(self.narrow_type, value)

    def _input_positions(
        self, raw_values: list[ir.Value], clamp: bool, loop_index: Callable[[int], ir.Value], row_offset
    ) -> tuple[list[Folded], list[Folded]]:
        """(read position in the input per dim, and with `clamp` whether each
        index is in range)."""
        gathered, in_range = {}, []
        for axis, raw in zip(self.plan.axes, raw_values):
            gathered[axis], ok = self._axis_position(axis, raw, clamp)
            in_range.append(ok)
        positions = [
            gathered[d] if d in gathered else self._kept_position(d, loop_index, row_offset)
            for d in range(self.plan.rank)
        ]
        return positions, (in_range if clamp or not mode_rule(self.plan.mode).reads_every_row else [])

    def _kept_position(self, d: int, loop_index: Callable[[int], ir.Value], row_offset) -> Folded:
        """Where non-axis dim d of the input is read, as its access says.
        Inside a row tile, output row 0 is row `row_offset` of the whole
        output."""

        def here() -> Folded:
            position = loop_index(d)
            return self.fold.add(position, row_offset) if d == 0 and row_offset is not None else position

        return self._position(self.plan.input_access[d], here, self.sizes.input_is_one.get(d))

    def _axis_position(self, axis: int, raw: ir.Value, clamp: bool,
                       guarded: bool = False) -> tuple[Folded, Folded | None]:
        """(position, in range) of an index value on its axis, as the mode
        maps it (`gmx.dialect.modes.normalize_index`):

          raise  a negative one wraps once; with `clamp`, one still outside
                 [0, size) is read as 0 (after, or while finding out, that
                 it is out of range). Without, `in range` is None.
          wrap   floor modulo of the size (the size is not 0: checked);
          clip   clamped to [0, size - 1] (likewise);
          fill   as raise with `clamp`: one outside is read as 0 (the size
                 is not 0 there: `_gather`), and `in range` chooses between
                 the element and the fill value;
          drop   likewise, `in range` saying whether the update is written;
          skip   as drop, a negative value not wrapped (outside as it is:
                 the unsigned test against the size skips it).

        `guarded`: the caller uses the position only where `in range` holds
        (a scatter's skip), so a bad one is left as it is, not made 0.
        """
        fold, size = self.fold, self.sizes.input[axis]
        if self.plan.target == "iree" and self.plan.mode in (Mode.WRAP, Mode.CLIP):
            raw = self._selected_for_iree(raw, size)
        value = arith.index_cast(ir.IndexType.get(), raw)
        if self.plan.mode is Mode.WRAP:
            if isinstance(size, int) and size & (size - 1) == 0:
                return fold.andi(value, size - 1), None  # two's complement: floor modulo
            rem = fold.remsi(value, size)
            return fold.select(fold.cmp("slt", rem, 0), fold.add(rem, size), rem), None
        if self.plan.mode is Mode.CLIP:
            return fold.minsi(fold.maxsi(value, 0), fold.add(size, -1)), None
        rule = mode_rule(self.plan.mode)
        wrapped = fold.select(fold.cmp("slt", value, 0), fold.add(value, size), value) \
            if rule.wraps_negative_once else value
        if not clamp and rule.reads_every_row:
            return wrapped, None
        in_range = fold.cmp("ult", wrapped, size)
        if guarded:  # the caller uses the position only where it is in range
            return wrapped, in_range
        return fold.select(in_range, wrapped, 0), in_range

    def _selected_for_iree(self, raw: ir.Value, size: Folded) -> ir.Value:
        """A "wrap" or "clip" index value with a negative one wrapped once
        ("wrap") or made -1 ("clip"), which the mode then maps as it would
        have: a select on the value read. IREE 3.13's CollapseDimensions
        leaves the dims of a generic with no inputs that selects on a value
        it extracts (its rule for bounds-checked gathers, as "fill" and
        "raise" read); folded into one dim, a gathered row is read element
        by element (take_along_dim_bcast, 2 cores: 4.0 ms folded, about the
        engine's time kept)."""
        fold = self.fold
        # "clip": -1, which it clips to 0 as it would the value (0 here would
        # be canonicalized into an arith.maxsi, and the select lost).
        replacement = -1 if self.plan.mode is Mode.CLIP else fold.add(raw, _as_type(fold, size, raw.type))
        return fold.value(fold.select(fold.cmp("slt", raw, 0), replacement, raw, raw.type), raw.type)


def _as_type(fold: Folder, size: Folded, integer_type: ir.Type) -> Folded:
    """An index-typed size as `integer_type` (an int stays an int)."""
    return size if isinstance(size, int) else arith.index_cast(integer_type, size)


