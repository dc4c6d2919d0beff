"""How a scatter is lowered, decided from its static shapes alone.

A scatter writes where the gather of the same input, indices and axes
reads: its positions are read by that gather's plan (`plan_gather`: the
per-dim accesses of the indices and the input, the mode). What the
scatter adds is its order. Updates meeting at one position are combined
in row-major order of the updates (G, the gather's output shape), so the
strategy (`choose_scatter_strategy`) is one of:

  Serial   one loop nest over G in row-major order, on one thread;
  Split    a loop over tiles of `tile` entries of G dim `dim`, in
           parallel, each running the nest over the rest of G in
           row-major order (dim `dim` over its tile only);
  Targets  a loop over `parts` ranges of the input's `axis`, in parallel,
           each running the whole nest and writing only the updates
           whose position is in its range; or, `sorted`, the index
           tuples first sorted by range (a stable counting sort), each
           range then walking only its own tuples in row-major order.

Split is exact (the same bits as Serial on any number of threads) where
every position is written from one tile only:

- owner-computes: `dim` is a non-axis dim that the input has (not
  broadcast: its position there is the update's own, `o[dim]`), so the
  updates of one tile write only the input entries of that tile along
  `dim`, and updates meeting at a position meet in the same tile, in
  row-major order. torch.scatter along dim 1 splits the rows (dim 0); a
  scatter of rows with a payload too short for Targets splits the
  payload's columns: each thread applies every update, in order, to its
  columns.
- `unique_indices`: no two updates share a position (the op's promise),
  so any dim of G may be split; the outermost wide one is.

Targets is exact for the same reason: a position belongs to one range, and
its updates are applied there in row-major order (the sort is stable). It
suits scatters whose only extent outside the axis is a row payload
(index_add of rows, an embedding gradient, a GNN's scatter_add into
nodes): each range reads every index, or (sorted) only its own, and
writes whole, contiguous rows of its own. The sort costs about as much as
four passes over the indices, two of them serial (`sorts_targets`).

Every decision here is a pure function of shapes, axes, element width,
mode and reduction; `scatter_builder` only builds what the plan says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gmx.dialect.modes import Mode
from gmx.dialect.reductions import Reduction

from .gather_plan import CACHE_LINE_BYTES, Access, GatherPlan, plan_gather
from .parallel_work import runs_in_parallel

# A split dim is cut into at least this many tiles where it can be (enough
# to share out among 16 threads), its tiles no wider than a cache line of
# elements when it is the innermost dim of G (narrower tiles would share
# lines between threads).
SPLIT_TILES = 16
# Ranges of targets (or tiles of a payload's columns) read every index
# again: one per PAYLOAD_PER_PART entries that each index value writes (its
# row payload), at most TARGET_PARTS. Measured on 2 shared cores, one
# thread, 200k indices of 64 entries (a GNN's scatter_add): the loop in
# one piece 18.5 ms, in 2 ranges 27 ms, in 4 38 ms, in 16 84 ms.
TARGET_PARTS = 16
PAYLOAD_PER_PART = 32
# From this many ranges, the index tuples are sorted by range first (each
# range then reads only its own) rather than read again by every range.
# Measured on 2 shared cores, CPU time of all threads per call, medians of
# 41, sorted against read by every range: 2 ranges (GNN's 65,536 x 64,
# ScatterND of 32,768 rows of 64) 1.02x to 1.05x the time; 4 ranges
# (embedding gradient, 32,768 x 128) 0.98x to 1.01x; 8 ranges (16,384 x
# 256) 0.97x; 16 ranges (MoE combine, 8,192 x 1,024) 0.92x to 0.96x.
SORTED_PARTS = 8


@dataclass(frozen=True)
class Serial:
    """The nest over G in row-major order, on one thread."""


@dataclass(frozen=True)
class Split:
    """Tiles of `tile` entries of G dim `dim`, in parallel; in each, the
    nest over G in row-major order, dim `dim` over the tile."""

    dim: int
    tile: int


@dataclass(frozen=True)
class Targets:
    """The input's entries along `axis` cut into `parts` ranges, in
    parallel; in each, the nest over all of G in row-major order, writing
    only the updates whose position along `axis` is in the range; or,
    `sorted`, the index tuples sorted by range first, each range walking
    only its own (in row-major order), the nest over the rest of G for
    each."""

    axis: int
    parts: int
    sorted: bool = False

    def chunk(self, input_shape: Sequence[int]) -> int:
        """Entries of `axis` per range."""
        return -(-input_shape[self.axis] // self.parts)

    def ranges(self, input_shape: Sequence[int]) -> int:
        """How many ranges `chunk` cuts the axis into (at most `parts`)."""
        return -(-input_shape[self.axis] // self.chunk(input_shape))


ScatterStrategy = Serial | Split | Targets


@dataclass(frozen=True)
class ScatterPlan:
    """How a verified scatter with static shapes is lowered."""

    reading: GatherPlan  # the positions: the gather's plan of the same operands
    updates_access: tuple  # per dim of G: ITER, or ZERO where updates broadcast (size 1)
    reduction: Reduction
    unique_indices: bool
    strategy: ScatterStrategy

    @property
    def checks_indices(self) -> bool:
        """"raise" mode, checked, with index values to check: every index is
        scanned before anything is written."""
        return self.reading.checks_indices


def plan_scatter(
    input_shape: Sequence[int],
    indices_shape: Sequence[int],
    updates_shape: Sequence[int],
    axes: Sequence[int],
    *,
    element_bits: int = 32,
    checked: bool = True,
    mode: Mode = Mode.RAISE,
    reduction: Reduction = Reduction.NONE,
    unique_indices: bool = False,
) -> ScatterPlan:
    """The plan of a verified scatter with static shapes."""
    reading = plan_gather(input_shape, indices_shape, axes, element_bits=element_bits, checked=checked, mode=mode)
    if not reading.static or None in updates_shape:
        raise ValueError("plan_scatter plans static shapes only")
    access = tuple(Access.ZERO if n == 1 else Access.ITER for n in updates_shape)
    strategy = choose_scatter_strategy(reading, unique_indices)
    return ScatterPlan(reading, access, Reduction(reduction), unique_indices, strategy)


def copies_input(argument: bool, writable: bool | None) -> bool:
    """Whether the scatter's loops start from a copy of `input` (a
    `tensor.empty` that `linalg.copy` fills) rather than from `input`:
    where `input` is a function argument marked read-only (`writable`
    False: every argument of an entry point that is not donated). Started
    from that argument, one-shot bufferization would copy it into a buffer
    of its own, and destination passing copy that again into the caller's
    result; started from an empty tensor, `eliminate-empty-tensors` makes
    the caller's result buffer the one the copy fills and the loops write:
    one copy. A donated (writable) argument, or any other tensor, is
    written in place where bufferization can."""
    return argument and writable is False


def scans_tile_by_tile(plan: ScatterPlan, fresh_destination: bool) -> bool:
    """Whether a checked "raise" scatter checks its indices tile by tile,
    inside its Split loop (the branch of each tile's loop that skips a bad
    index writes false into a flag of the tile's own), rather than
    scanning all of them in a pass of their own before anything is
    written: where the loops write a fresh buffer (`fresh_destination`:
    the copy of a read-only argument, `copies_input`), which the caller
    drops when a report makes the call raise, so that writing before
    every index is known good is unseen; and where a tile's indices are a
    slice of them (`_tiles_read_slices`). A donated input, written in
    place, is scanned first (a bad index leaves it as it was), unless its
    tiles are saved (`saves_tiles`)."""
    return plan.checks_indices and fresh_destination and _tiles_read_slices(plan)


def saves_tiles(plan: ScatterPlan, fresh_destination: bool, index_bits: int) -> bool:
    """Whether a checked "raise" scatter that writes in place (not
    `fresh_destination`: a donated input) checks its indices tile by tile
    as `scans_tile_by_tile` does, each tile first copying the input
    entries it may write into a buffer of the call's own, from which a
    call with a bad index restores them all before it raises (so the input
    is left as it was), rather than scanning every index before the first
    write: where each tile writes only a slice of the input of its own (an
    owner dim, `owner_dims`), its indices are a slice of them
    (`_tiles_read_slices`), and the bytes saved (the input's) are no more
    than the scan would read (the indices', of `index_bits` each).

    Why: the scan is a pass of its own over all the indices, which the
    loops then read again from memory (they no longer fit in cache), while
    the saving copy reads what the tile is about to read anyway and only
    adds its stores. Measured on 2 shared cores (a C loop nest,
    torch.scatter_reduce amax of 1024x4096 f32 at i64 indices, medians of
    15 interleaved): unchecked 7.1 ms, scanned first 9.6 ms, saved 7.5 ms
    (streaming stores) to 9.4 ms (plain ones, a fresh buffer per call)."""
    strategy, reading = plan.strategy, plan.reading
    if not (plan.checks_indices and not fresh_destination and isinstance(strategy, Split)):
        return False
    saved = math.prod(reading.input_shape) * reading.element_bits
    scanned = math.prod(reading.logical_shape) * reading.coordinate_size * index_bits
    return strategy.dim in owner_dims(reading) and _tiles_read_slices(plan) and saved <= scanned


def _tiles_read_slices(plan: ScatterPlan) -> bool:
    """Whether each tile of a Split reads a slice of the indices: they vary
    along the split dim, which is not the dim their tuples are folded
    into."""
    strategy, reading = plan.strategy, plan.reading
    return (isinstance(strategy, Split) and reading.indices_access[strategy.dim] is not Access.ZERO
            and (reading.coordinate_size == 1 or strategy.dim < reading.rank - 1))


def owner_dims(reading: GatherPlan) -> list[int]:
    """The dims of G a scatter can split exactly whatever its indices: the
    non-axis dims the input has (read at the update's own position, ITER),
    more than one entry wide."""
    return [
        d for d in range(reading.rank)
        if d not in reading.axes and reading.input_access[d] is Access.ITER and reading.output_shape[d] > 1
    ]


def choose_scatter_strategy(reading: GatherPlan, unique_indices: bool = False) -> ScatterStrategy:
    """In order of preference, where it applies:

    - Split an owner dim (`owner_dims`) that the indices vary along (each
      update its own index: torch.scatter's rows), the outermost;
    - with `unique_indices`, Split the outermost dim of G more than one wide;
    - Targets over the first axis of more than one entry, in one range per
      PAYLOAD_PER_PART entries each index value writes (at most
      TARGET_PARTS, nor more than the index values: `index_count`), where
      that is 2 or more (index_add of rows, a GNN's
      scatter_add into nodes, x[i, :, j] = v): each range reads every
      index, or only its own once sorted (`sorts_targets`), and writes
      whole rows of its own;
    - Split the outermost owner dim (a payload's columns), in as many tiles;
    - else Serial (rank 1, a payload of a few entries, nothing to scatter).
    """
    shape = reading.output_shape
    if not shape or 0 in shape:
        return Serial()
    owners = owner_dims(reading)
    indexed = [d for d in owners if reading.indices_access[d] is not Access.ZERO]
    if indexed:
        return Split(indexed[0], split_tile(shape, indexed[0], reading.element_bits))
    if unique_indices and (wide := [d for d in range(reading.rank) if shape[d] > 1]):
        return Split(wide[0], split_tile(shape, wide[0], reading.element_bits))
    payload = math.prod(n for d, n in enumerate(shape) if reading.indices_access[d] is Access.ZERO)
    parts = min(TARGET_PARTS, payload // PAYLOAD_PER_PART)
    axes = [a for a in reading.axes if reading.input_shape[a] > 1]
    ranges = min(parts, index_count(reading))  # more ranges than index values: some write nothing
    if axes and ranges >= 2:
        parts = min(ranges, reading.input_shape[axes[0]])
        return Targets(axes[0], parts, sorts_targets(parts, math.prod(shape)))
    if owners and parts >= 2:
        return Split(owners[0], fewest_tiles(shape[owners[0]], parts))
    return Serial()


def sorts_targets(parts: int, updates: int) -> bool:
    """Whether a Targets scatter of `parts` ranges and `updates` entries
    of G sorts its index tuples by range first: from SORTED_PARTS ranges
    (fewer read the indices again for less than the sort costs), and only
    where the updates are worth the threads (`runs_in_parallel`): the sort
    is serial, and gmx-parallel-loops cannot count the updates each range
    walks, so it keeps the ranges parallel whatever their work."""
    return parts >= SORTED_PARTS and runs_in_parallel(parts, updates)


def index_count(reading: GatherPlan) -> int:
    """How many index values (tuples) G reads: the extent of the dims the
    indices vary along. Ranges of targets beyond it would write nothing
    (one token written into a KV cache: one range busy, the others only
    waking threads)."""
    return math.prod(n for d, n in enumerate(reading.output_shape) if reading.indices_access[d] is not Access.ZERO)


def fewest_tiles(size: int, parts: int) -> int:
    """The tile (a divisor of `size`) that cuts it into at most `parts` tiles, as many as can be."""
    return min(t for t in range(1, size + 1) if size % t == 0 and size // t <= parts)


def split_tile(shape: Sequence[int], dim: int, element_bits: int) -> int:
    """Entries of `dim` per tile: 1 (a tile is a slab of G) unless `dim`
    is the innermost wide dim of G; there, the widest divisor of its size
    that is at most a cache line of elements and leaves SPLIT_TILES tiles
    (1 when none does)."""
    if math.prod(shape[dim + 1:]) > 1:
        return 1
    line = max(1, CACHE_LINE_BYTES * 8 // element_bits)
    size = shape[dim]
    fitting = [t for t in range(1, min(line, size) + 1) if size % t == 0 and size // t >= SPLIT_TILES]
    return max(fitting, default=1)
