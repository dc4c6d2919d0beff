"""What `stablehlo.gather` and `stablehlo.scatter` read of their dimension
numbers, and the gmx op that indexes the same positions: pure functions,
no IR but the attribute readers.

A scatter writes where the gather of the same dimension numbers reads
(StableHLO's spec defines them as each other's inverse):
`update_window_dims` are the gather's `offset_dims`, `inserted_window_dims`
its `collapsed_slice_dims`, `input_batching_dims` /
`scatter_indices_batching_dims` its `operand_batching_dims` /
`start_indices_batching_dims`, `scatter_dims_to_operand_dims` its
`start_index_map`, and the update window's extent per operand dim its
`slice_sizes` (`scatter_as_gather`). So one plan (`plan_dims`) says
which gmx op indexes both: its slots (the gmx op's dims: an operand dim or
a unit dim inserted, an index batch dim or a unit dim) and its axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gmx.dialect.mlir import ir, stablehlo

from ..patterns import NoMatch, require

# --- the decision: pure functions of the dimension numbers -------------------------------------


@dataclass(frozen=True)
class GatherDims:
    """A `stablehlo.gather`'s dimension numbers and slice sizes."""

    offset_dims: tuple = ()
    collapsed_slice_dims: tuple = ()
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()
    start_index_map: tuple = ()
    index_vector_dim: int = 0
    slice_sizes: tuple = ()


@dataclass(frozen=True)
class Slot:
    """One dim of the gmx op: the operand dim it reads (None: a unit dim
    inserted into the input), the start-indices dim it follows (None: a
    unit dim of the indices), and whether StableHLO's result has it (False:
    a unit dim collapsed away after the gather)."""

    operand: int | None
    index: int | None
    in_result: bool = True


@dataclass(frozen=True)
class DimsPlan:
    """The gmx op that indexes the positions the dimension numbers do: its
    dims (slots) and its axes (the lowering's plan is `gather_plan.GatherPlan`)."""

    slots: tuple  # of Slot, the gmx op's dims in order
    axes: tuple  # gmx axes: coordinate j of the index vector reads slot axes[j]


def absorb_iota_coordinates(dims: GatherDims, iotas: dict, operand_shape: Sequence, index_shape: Sequence) -> GatherDims:
    """The same gather with coordinate j made a batching pair where the index
    vector's component j is an iota along a batch dim of the indices
    (`iotas`: j -> that dim) as large as the operand dim it indexes: torch-mlir
    spells `torch.gather`'s untouched dims so (a concatenate of iotas).
    The values of such an iota are in range, so the clamp never applies."""
    batching_operand, batching_index = list(dims.operand_batching_dims), list(dims.start_indices_batching_dims)
    start_index_map, collapsed = list(dims.start_index_map), list(dims.collapsed_slice_dims)
    for j, b in sorted(iotas.items(), reverse=True):
        d = dims.start_index_map[j]
        size = operand_shape[d]
        if size is None or size != index_shape[b] or b in batching_index or d not in collapsed:
            continue
        batching_operand.append(d)
        batching_index.append(b)
        del start_index_map[j]
        collapsed.remove(d)
    return replace(
        dims,
        operand_batching_dims=tuple(batching_operand),
        start_indices_batching_dims=tuple(batching_index),
        start_index_map=tuple(start_index_map),
        collapsed_slice_dims=tuple(sorted(collapsed)),
    )


def plan_dims(dims: GatherDims, operand_shape: Sequence, index_shape: Sequence) -> DimsPlan:
    """The gmx op that computes `stablehlo.gather` with `dims` (shapes with
    None for `?`), as slots: the operand with unit dims inserted is its
    input, the start indices (index vector last) reshaped its indices, and
    its result with the `in_result=False` slots collapsed is the gather's.
    NoMatch (saying why) for what gmx cannot express without a window or a
    transpose."""
    rank, index_rank, ivd = len(operand_shape), len(index_shape), dims.index_vector_dim
    indexed = set(dims.start_index_map)
    require(dims.start_index_map, "no start index: nothing is gathered")
    if ivd < index_rank:
        require(ivd == index_rank - 1 or index_shape[ivd] == 1,
                "the index vector is not the last dim of the start indices (a transpose)")
    pairs = dict(zip(dims.start_indices_batching_dims, dims.operand_batching_dims))
    for d in range(rank):
        size, slice_size = operand_shape[d], dims.slice_sizes[d]
        if d in indexed:
            if slice_size != 1:
                require(slice_size != size, f"operand dim {d} is indexed over its full extent (a start StableHLO ignores)")
                raise NoMatch(f"operand dim {d} is indexed with a slice of {slice_size} (a window)")
        elif d in dims.collapsed_slice_dims:
            require(size == 1, f"operand dim {d} is collapsed but not indexed: only element 0 of {size} (a window)")
        elif d not in dims.operand_batching_dims:
            require(size is not None and slice_size == size,
                    f"operand dim {d}: a slice of {slice_size} of {'?' if size is None else size} (a window)")
    offsets = [d for d in range(rank) if d not in dims.collapsed_slice_dims and d not in dims.operand_batching_dims]
    batch = [b for b in range(index_rank) if b != ivd]
    slots, offset_iter, batch_iter = [], iter(offsets), iter(batch)
    for p in range(len(batch) + len(offsets)):
        if p in dims.offset_dims:
            slots.append(Slot(next(offset_iter), None))
        else:
            b = next(batch_iter)
            slots.append(Slot(pairs.get(b), b))
    for d in sorted(dims.collapsed_slice_dims):
        placed = [p for p, s in enumerate(slots) if s.operand is not None]
        low = max((p for p in placed if slots[p].operand < d), default=-1)
        high = min((p for p in placed if slots[p].operand > d), default=len(slots))
        free = [p for p in range(low + 1, high) if slots[p].operand is None]
        if free:
            slots[free[0]] = replace(slots[free[0]], operand=d)
        else:
            slots.insert(low + 1, Slot(d, None, in_result=False))
    order = [s.operand for s in slots if s.operand is not None]
    require(order == sorted(order), f"the operand's dims would be read in the order {order} (a transpose)")
    where = {s.operand: p for p, s in enumerate(slots) if s.operand is not None}
    return DimsPlan(tuple(slots), tuple(where[d] for d in dims.start_index_map))


def gmx_shapes(plan: DimsPlan, operand_shape: Sequence, index_shape: Sequence) -> tuple[list, list]:
    """The shapes of the gmx op's input and indices for `plan` (None for `?`):
    the operand with unit dims, and the start indices' batch dims with unit
    dims, the index vector folded into the last."""
    input_shape = [1 if s.operand is None else operand_shape[s.operand] for s in plan.slots]
    indices_shape = [1 if s.index is None else index_shape[s.index] for s in plan.slots]
    last = indices_shape[-1]
    indices_shape[-1] = None if last is None else last * len(plan.axes)
    return input_shape, indices_shape


def gather_dims(op) -> GatherDims:
    numbers = stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    return GatherDims(
        offset_dims=tuple(numbers.offset_dims),
        collapsed_slice_dims=tuple(numbers.collapsed_slice_dims),
        operand_batching_dims=tuple(numbers.operand_batching_dims),
        start_indices_batching_dims=tuple(numbers.start_indices_batching_dims),
        start_index_map=tuple(numbers.start_index_map),
        index_vector_dim=numbers.index_vector_dim,
        slice_sizes=tuple(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"])),
    )


@dataclass(frozen=True)
class ScatterDims:
    """A `stablehlo.scatter`'s dimension numbers."""

    update_window_dims: tuple = ()
    inserted_window_dims: tuple = ()
    input_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()
    scatter_dims_to_operand_dims: tuple = ()
    index_vector_dim: int = 0


def scatter_as_gather(dims: ScatterDims, operand_rank: int, updates_shape: Sequence) -> GatherDims:
    """The gather whose reads are `dims`' writes: the same dims under the
    gather's names, the slice sizes the update window's extents (1 on an
    inserted or batching dim, else the size of the next window dim of the
    updates; None where it is `?`).

    >>> scatter_as_gather(ScatterDims((1,), (0,), (), (), (0,), 1), 2, [3, 4]).slice_sizes
    (1, 4)
    """
    window = iter(dims.update_window_dims)
    unit = set(dims.inserted_window_dims) | set(dims.input_batching_dims)
    sizes = tuple(1 if d in unit else updates_shape[next(window)] for d in range(operand_rank))
    return GatherDims(
        offset_dims=dims.update_window_dims,
        collapsed_slice_dims=dims.inserted_window_dims,
        operand_batching_dims=dims.input_batching_dims,
        start_indices_batching_dims=dims.scatter_indices_batching_dims,
        start_index_map=dims.scatter_dims_to_operand_dims,
        index_vector_dim=dims.index_vector_dim,
        slice_sizes=sizes,
    )


def scatter_dims(op) -> ScatterDims:
    numbers = stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
    return ScatterDims(
        update_window_dims=tuple(numbers.update_window_dims),
        inserted_window_dims=tuple(numbers.inserted_window_dims),
        input_batching_dims=tuple(numbers.input_batching_dims),
        scatter_indices_batching_dims=tuple(numbers.scatter_indices_batching_dims),
        scatter_dims_to_operand_dims=tuple(numbers.scattered_dims_to_operand_dims),
        index_vector_dim=numbers.index_vector_dim,
    )
