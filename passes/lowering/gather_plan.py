"""How a gather is lowered, decided from its static shapes alone.

Per dim, how the lowering reads the indices and the input without
materialising a broadcast, given the output position `o[d]`:

  ITER     read at o[d]            (the dim is as large as the output's)
  ZERO     read at 0               (a static broadcast dim of size 1)
  RUNTIME  read at 0 if the dim's run-time size is 1, else at o[d]
           (a dynamic dim that may or may not broadcast)

Axis dims of the input are read at the gathered index instead; axis dims of
the logical indices are always ITER (the output takes their size), mapped
into the axis as the op's out-of-range mode says (`gmx.dialect.modes`).
Only "raise" has index values to check: "wrap" and "clip" map every value
into the axis, "fill" yields the fill value for one outside it.

And, for the whole gather, its strategy (`choose_strategy`): in one generic
(`Whole`), checking while it gathers (`Flagged`), or in tiles of output rows
(`RowTiles`) or columns (`ColumnTiles`). Every decision here is a pure
function of shapes, axes, element width and mode; `gather_builder` only
builds what the plan says.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from gmx.dialect.modes import Mode, mode_rule
from gmx.dialect.shapes import coordinate_size, infer_output_shape, logical_indices_shape

# Index values per row tile of a checked gather (256 KiB of i64): a tile's
# indices stay in the L2 cache between its scan and its gather. A gather
# with fewer indices is scanned whole, then gathered in one piece.
TILE_INDICES = 1 << 15
# A column tile (x[i, :, j]) writes one cache line of each output row, and
# the kept dim is tiled only where its entries are read a line or more apart.
CACHE_LINE_BYTES = 64
# A Flagged tile of fewer outputs than this costs more in its loop than
# its share of the work.
MIN_TILE_OUTPUTS = 1024
# A Flagged gather reads each index once, so its tiles need not keep indices
# in cache: a large one is cut into about this many tiles (enough to share
# out among the threads), not into tiles of TILE_INDICES. Measured on a
# 256x256x64 gather of i64 indices (2 threads): tiles of 2 rows (TILE_INDICES)
# cost 1.22-1.29x the unchecked gather, tiles of 8 rows (32 tiles) 1.02-1.06x.
FLAGGED_TILES = 32
# Column tiles bucket the rows by the input slab they read: at most this
# many buckets (a counter per slab).
MAX_SLABS = 1 << 16


class Access(enum.Enum):
    ITER = "iter"
    ZERO = "zero"
    RUNTIME = "runtime"


# -- strategies -----------------------------------------------------------------


@dataclass(frozen=True)
class Whole:
    """One gather generic over the whole output; checked, behind one scan of
    all the indices (a cold path reports bad ones and reads them as 0)."""


@dataclass(frozen=True)
class Flagged:
    """Checked elementwise gathers, in tiles of `rows` output rows (dim 0),
    in parallel: each tile's generic gathers (a bad index read as 0) and
    and-reduces whether every index of the tile was in range into the
    tile's own flag; the reporting scan runs only if a flag is false. The
    indices are read once instead of twice."""

    rows: int


@dataclass(frozen=True)
class RowTiles:
    """Checked: scan and gather `rows` output rows (dim 0) at a time, so the
    gather reads the tile's indices from cache."""

    rows: int


@dataclass(frozen=True)
class ColumnTiles:
    """x[i, :, j]: the output rows (dims before `dim`) are bucketed by the
    input slab (input dims before `dim`, `slabs` of them) that each reads,
    with a counting sort of their read positions; then each slab is read
    once, in memory order, `width` entries of `dim` at a time, and every
    row of its bucket copies its column of the tile. Checked, behind one
    scan of all the indices."""

    dim: int
    width: int
    slabs: int


Strategy = Whole | Flagged | RowTiles | ColumnTiles


def parallel_loop(strategy: Strategy) -> str:
    """What the threads share out in a gather of `strategy` (the loop that
    the builder emits parallel; `gmx-parallel-loops` keeps it parallel if it
    is worth the threads):

      Whole        output dim 0 (the gather generic's first parallel dim),
                   after a scan of the indices into a flag per row of them
      Flagged      tiles of output rows, a flag per tile
      RowTiles     tiles of output rows, each scanned into its flag, then
                   gathered
      ColumnTiles  the input slabs (each writes the rows of its bucket)

    A checked gather's report is never made by a thread: only when a flag
    is false, the caller's thread scans every index in row-major order."""
    match strategy:
        case Flagged() | RowTiles():
            return "row tiles"
        case ColumnTiles():
            return "slabs"
    return "rows"


# -- the plan ---------------------------------------------------------------------


def _non_axis_access(own, other) -> Access:
    """Access of one operand's non-axis dim of static size `own` (None: ?)."""
    if own == 1:
        return Access.ZERO
    if own is not None:
        return Access.ITER
    # A dynamic dim facing a static 1 is the output's own size.
    return Access.ITER if other == 1 else Access.RUNTIME


def checks_index_values(mode, axes) -> bool:
    """Whether a checked gather's or scatter's index values are checked,
    on either backend (without axes none is read, and only a mode that
    reports index errors, "raise", makes a value an error)."""
    return bool(axes) and mode_rule(mode).reports_index_errors


@dataclass(frozen=True)
class GatherPlan:
    """Per-dim read plan, run-time checks and strategy of a gather's lowering.
    Shapes hold None for `?`."""

    rank: int
    axes: tuple[int, ...]
    coordinate_size: int
    input_shape: tuple
    logical_shape: tuple  # the indices shape with the last dim divided by c
    output_shape: tuple
    static: bool  # input, indices and output all have static shapes
    input_access: tuple  # Access per dim; None for axis dims
    indices_access: tuple  # Access per dim of the logical indices
    broadcast_checks: tuple[int, ...]  # non-axis dims whose compatibility is dynamic
    divisibility_check: bool  # the indices last dim is dynamic and c > 1
    nonempty_axis_checks: tuple[int, ...]  # axes whose input size may be 0 (an error)
    element_bits: int  # of the input's elements
    checked: bool  # the option: report indices outside their axis
    mode: Mode = Mode.RAISE  # what an index outside its axis means
    fill_axes: tuple[int, ...] = ()  # fill mode: axes whose size may be 0 (all filled)
    target: str = "llvm"  # "iree": one plain generic (IREE tiles it; no index tensor crosses its dispatches)

    @property
    def indices_by_map(self) -> bool:
        """Indices can be read through affine indexing maps (no RUNTIME dim).
        Not for IREE: its vectorizer takes a generic's inputs for values
        that vary along every loop, so a row read at an index from a map
        becomes an element-wise gather; read with tensor.extract, it is a
        contiguous load."""
        return Access.RUNTIME not in self.indices_access and self.target != "iree"

    @property
    def checks_indices(self) -> bool:
        """Index values are checked (`checks_index_values`)."""
        return self.checked and checks_index_values(self.mode, self.axes)

    @property
    def empty_axis_needs_indices(self) -> bool:
        """Whether an axis of size 0 is an error only where there are index
        values ("wrap", "clip": nothing maps into it). In "raise" mode it is
        a shape error where the output is not empty, and the scan reports
        the values of an empty output's indices."""
        return mode_rule(self.mode).maps_into_range

    @functools.cached_property
    def strategy(self) -> Strategy:
        return choose_strategy(self)


def plan_gather(
    input_shape: Sequence,
    indices_shape: Sequence,
    axes: Sequence[int],
    *,
    element_bits: int = 32,
    checked: bool = True,
    mode: Mode = Mode.RAISE,
    target: str = "llvm",
) -> GatherPlan:
    """The plan of a verified gather (shapes with None for `?`)."""
    rank = len(input_shape)
    logical = logical_indices_shape(indices_shape, axes)
    output = infer_output_shape(input_shape, indices_shape, axes)
    input_access, indices_access, checks = [], [], []
    for d in range(rank):
        a, b = input_shape[d], logical[d]
        if d in axes:
            input_access.append(None)
            indices_access.append(Access.ITER)
            continue
        input_access.append(_non_axis_access(a, b))
        indices_access.append(_non_axis_access(b, a))
        if (a is None or b is None) and 1 not in (a, b):
            checks.append(d)
    c = coordinate_size(axes)
    mode = Mode(mode)
    may_be_empty = tuple(ax for ax in axes if input_shape[ax] in (None, 0))
    empty_axis_is_error = mode_rule(mode).empty_axis_is_error
    return GatherPlan(
        rank=rank,
        axes=tuple(axes),
        coordinate_size=c,
        input_shape=tuple(input_shape),
        logical_shape=tuple(logical),
        output_shape=tuple(output),
        static=None not in (*input_shape, *indices_shape, *output),
        input_access=tuple(input_access),
        indices_access=tuple(indices_access),
        broadcast_checks=tuple(checks),
        divisibility_check=rank > 0 and c > 1 and indices_shape[-1] is None,
        nonempty_axis_checks=may_be_empty if empty_axis_is_error else (),
        element_bits=element_bits,
        checked=checked,
        mode=mode,
        fill_axes=() if empty_axis_is_error else may_be_empty,
        target=target,
    )


# -- choosing the strategy -----------------------------------------------------------


def choose_strategy(plan: GatherPlan) -> Strategy:
    """Flagged for checked elementwise gathers, else column tiles where a
    kept dim is read far apart, else row tiles for checked gathers of many
    indices, else Whole. Only static, non-empty gathers are ever tiled or flagged.
    For IREE, always Whole: it tiles and distributes the generic itself."""
    if plan.target == "iree":
        return Whole()
    if plan.checks_indices and reads_an_index_per_output(plan):
        return Flagged(flagged_rows_per_tile(plan))
    if (columns := column_tiles(plan)) is not None:
        return columns
    if plan.checks_indices and (rows := rows_per_tile(plan)) is not None:
        return RowTiles(rows)
    return Whole()


def innermost_wide_dim(plan: GatherPlan) -> int | None:
    """The innermost output dim of size > 1, for a static non-empty gather
    (else None)."""
    shape = plan.output_shape
    if not plan.static or 0 in shape:
        return None
    wide = [d for d in range(plan.rank) if shape[d] > 1]
    return wide[-1] if wide else None


def reads_an_index_per_output(plan: GatherPlan) -> bool:
    """Whether the indices vary along the innermost non-unit output dim,
    so each output reads its own index (elementwise gathers such as
    take_along_axis) and no row can be copied whole. A scan first would
    then read as many indices as the gather does. Static, non-empty
    outputs only: there every index is read by some output, so checking
    while gathering sees them all."""
    dim = innermost_wide_dim(plan)
    return dim is not None and plan.indices_access[dim] is Access.ITER


def column_tiles(plan: GatherPlan) -> ColumnTiles | None:
    """Column tiles, or None to gather in output order.

    When the innermost non-unit output dim d is kept from the input (not
    gathered, not broadcast) but gathered dims follow it in the input, as
    in x[i, :, j], consecutive outputs of a row read the input a cache
    line or more apart: in output order every output reads a line of its
    own, and rows that read the same lines (the same slab, other columns
    of it) come far apart. Bucketing the rows by slab and reading each
    slab once, a tile of `width` entries of d at a time, reads every
    input line once from memory and shares it, while in L1, between the
    rows of the bucket. `width` is one cache line of output elements (a
    row of a tile writes one line), or the largest divisor of d below it.

    Tiled: static shapes, indices broadcast along d (a row reads one
    column of its slab), more than one row, entries of d at least a cache
    line apart in the input, at most MAX_SLABS slabs, and a mode in which
    every row reads its slab (not "fill", whose rows outside the input
    read nothing)."""
    dim = innermost_wide_dim(plan)
    if not plan.axes or dim is None or not mode_rule(plan.mode).reads_every_row:
        return None
    shape = plan.output_shape
    kept = dim not in plan.axes and plan.input_access[dim] is Access.ITER
    if not kept or plan.indices_access[dim] is not Access.ZERO or math.prod(shape[:dim]) == 1:
        return None
    line = max(1, CACHE_LINE_BYTES * 8 // plan.element_bits)
    slabs = math.prod(plan.input_shape[:dim])
    if math.prod(plan.input_shape[dim + 1:]) < line or slabs > MAX_SLABS:
        return None
    width = max(w for w in range(1, min(line, shape[dim]) + 1) if shape[dim] % w == 0)
    return ColumnTiles(dim, width, slabs)


def _tile_height(rows: int, per_row: int, limit: int = TILE_INDICES) -> int:
    """The largest divisor of `rows` whose tile holds at most `limit` of
    `per_row` per row (at least one row)."""
    fitting = max(1, limit // max(per_row, 1))
    return max(t for t in range(1, min(fitting, rows) + 1) if rows % t == 0)


def flagged_rows_per_tile(plan: GatherPlan) -> int:
    """Output rows (dim 0) per tile of a Flagged gather (static, non-empty):
    tiles of at most TILE_INDICES outputs, or of a FLAGGED_TILES-th of the
    outputs where that is more (the indices are read once: a tile need not
    fit in cache, only share the work out), so that each flag covers a
    thread's share of work; all rows in one tile when the divisors of dim 0
    give tiles of fewer than MIN_TILE_OUTPUTS (a prime dim 0 of a rank-1
    gather)."""
    shape = plan.output_shape
    per_row = math.prod(shape[1:])
    limit = max(TILE_INDICES, math.prod(shape) // FLAGGED_TILES)
    rows = _tile_height(shape[0], per_row, limit)
    return rows if rows * per_row >= MIN_TILE_OUTPUTS else shape[0]


def rows_per_tile(plan: GatherPlan) -> int | None:
    """Output rows (dim 0) per tile, or None to scan and gather whole.

    Scanning all indices and then gathering reads indices that do not fit
    in cache twice from memory; a tile of at most TILE_INDICES index values
    keeps its indices in cache between the two. Tiled: static shapes, rank
    >= 2, a non-empty output, indices that run along dim 0 (not broadcast
    there) and more than TILE_INDICES of them, and a divisor of dim 0 as
    the tile height, so that every tile has the same static shape. (A
    block gather reads few indices per output: scanned whole, its gather
    runs in one piece, its next rows prefetched across what would be tile
    boundaries.)"""
    shape = plan.output_shape
    if not plan.static or plan.rank < 2 or 0 in shape or plan.indices_access[0] is not Access.ITER:
        return None
    per_row = math.prod(plan.logical_shape[1:]) * plan.coordinate_size  # index values per output row
    if shape[0] * per_row <= TILE_INDICES:
        return None
    return _tile_height(shape[0], per_row)


# -- IREE's CPU tiles ------------------------------------------------------------------

# Output bytes per IREE workgroup on the CPU (`iree_cpu_tiles`): 4M f32
# outputs make 128 workgroups, enough for 16 cores and more.
IREE_WORKGROUP_BYTES = 1 << 17


@dataclass(frozen=True)
class IreeCpuTiles:
    """IREE's CPU tile sizes for a gather generic: per output dim, the
    workgroup tile (`distribution`) and the vector tile."""

    distribution: tuple[int, ...]
    vector: tuple[int, ...]


def iree_cpu_tiles(output_shape: Sequence, element_bits: int) -> IreeCpuTiles | None:
    """Workgroup tiles that hold whole output rows (the innermost dim,
    unless a row alone is over IREE_WORKGROUP_BYTES), then as many outer
    entries as fit in IREE_WORKGROUP_BYTES, innermost first; vectors of
    one cache line along the row. None for a dynamic, empty or rank-0
    output (IREE's own choice stands).

    IREE's default cuts rows into 64-element tiles, each computing its
    index again (embedding, 1 thread: 2.2 ms, 1.35 ms with whole rows;
    torch.gather 8.8 ms, 6.5 ms); a vector over more than one row becomes
    an element-wise gather, so vectors stay in one row."""
    shape = list(output_shape)
    if not shape or None in shape or 0 in shape:
        return None
    budget = max(1, IREE_WORKGROUP_BYTES * 8 // max(element_bits, 8))
    tiles = [1] * len(shape)
    for d in reversed(range(len(shape))):
        tiles[d] = min(shape[d], budget)
        budget //= tiles[d]
        if tiles[d] < shape[d] or budget <= 1:
            break
    line = max(1, CACHE_LINE_BYTES * 8 // max(element_bits, 8))
    width = min(line, tiles[-1])
    vector = [1] * (len(shape) - 1) + [1 << (width.bit_length() - 1)]  # a power of two
    return IreeCpuTiles(tuple(tiles), tuple(vector))
