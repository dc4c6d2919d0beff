"""IR pieces the gather and scatter builders share: static windows of
tensors, linalg generics' attributes, and-reductions of flags, the marks
of parallel loops, collapsed views. Each emits at the current insertion
point and folds what it can (`folding`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from gmx.dialect.mlir import ir, linalg, scf, tensor

from .folding import Folded, Folder
from .gmx_parallel_loops import PARALLEL_ATTR


def tensor_dim(fold: Folder, value: ir.Value, d: int) -> Folded:
    """Dim `d` of a ranked tensor: its static size, or a tensor.dim."""
    size = ir.RankedTensorType(value.type).shape[d]
    return tensor.dim(value, fold.index(d)) if ir.ShapedType.is_dynamic_size(size) else size


def _window(shape: list[int], dim: int, size: int) -> tuple[list[int], list[int], list[int]]:
    """Static offsets, sizes and strides of `size` entries along `dim` of a
    static shape from a dynamic start (passed as the one dynamic offset)."""
    rank = len(shape)
    offsets, sizes = [0] * rank, list(shape)
    offsets[dim], sizes[dim] = ir.ShapedType.get_dynamic_size(), size
    return offsets, sizes, [1] * rank


def slice_along(source: ir.Value, start: ir.Value, size: int, dim: int = 0) -> ir.Value:
    """`size` entries of a static tensor along `dim` from `start` on."""
    source_type = ir.RankedTensorType(source.type)
    offsets, sizes, strides = _window(list(source_type.shape), dim, size)
    result = ir.RankedTensorType.get(sizes, source_type.element_type)
    return tensor.extract_slice(result, source, [start], [], [], offsets, sizes, strides)


def insert_along(tile: ir.Value, dest: ir.Value, start: ir.Value, size: int, dim: int = 0) -> ir.Value:
    """`tile` written into `dest` along `dim` from `start` on."""
    offsets, sizes, strides = _window(list(ir.RankedTensorType(dest.type).shape), dim, size)
    return tensor.insert_slice(tile, dest, [start], [], [], offsets, sizes, strides)


def copy_into(source: ir.Value, dest: ir.Value) -> ir.Value:
    """`linalg.copy ins(source) outs(dest)`, without the default `cast`
    attribute the Python builder spells out (as upstream prints it)."""
    copied = linalg.copy(source, outs=[dest])
    del copied.owner.attributes["cast"]
    return copied


def iterator_types(kind: str, rank: int) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{kind}>")] * rank)


def affine_maps(maps: Sequence[ir.AffineMap]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])


def empty_generic(inputs: list[ir.Value], outs: list[ir.Value], maps: list[ir.AffineMap], iterators: list[str]):
    """An empty-bodied `linalg.generic` (the caller fills its block) over
    `inputs` into `outs`, with `maps` and `iterators` (their spellings)."""
    return linalg.GenericOp_(
        inputs, outs, affine_maps(maps),
        ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]),
    )


def true_flags(fold: Folder, sizes: list[Folded]) -> ir.Value:
    """An i1 tensor of `sizes` (static, or index values) holding true:
    flags that start valid, each set false where its part fails."""
    true = fold.value(True)
    return linalg.fill(true, outs=[tensor.empty(sizes, true.type)])


def true_flag(fold: Folder) -> ir.Value:
    """A rank-0 i1 tensor holding true: the init of an and-reduction."""
    return true_flags(fold, [])


def and_reduction(values: ir.Value, init: ir.Value, step: Callable[[Folded, ir.Value], Folded], fold: Folder) -> ir.Value:
    """A rank-0 i1 tensor: `step(acc, value)` folded over every element of
    `values` from `init` (one linalg.generic, all its loops reductions);
    `step` builds inside the generic's body."""
    rank = ir.RankedTensorType(values.type).rank
    maps = [ir.AffineMap.get_identity(rank), ir.AffineMap.get(rank, 0, [])]
    generic = linalg.GenericOp_([values], [init], affine_maps(maps), iterator_types("reduction", rank))
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value, acc = block.arguments
        linalg.YieldOp([fold.value(step(acc, value))])
    return generic.results[0]


def row_flags(values: ir.Value, rows: Folded, step: Callable[[Folded, ir.Value], Folded], fold: Folder) -> ir.Value:
    """A rank-1 i1 tensor of `rows` flags: per row (dim 0) of `values`,
    `step(acc, value)` folded over the row's elements from true (one
    linalg.generic, parallel over the rows: each row's flag is its own,
    no flag is shared between threads)."""
    rank = ir.RankedTensorType(values.type).rank
    flags = true_flags(fold, [rows])
    maps = [ir.AffineMap.get_identity(rank), ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(0)])]
    iterators = ir.ArrayAttr.get(
        [ir.Attribute.parse(f"#linalg.iterator_type<{'parallel' if d == 0 else 'reduction'}>") for d in range(rank)]
    )
    generic = linalg.GenericOp_([values], [flags], affine_maps(maps), iterators)
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value, acc = block.arguments
        linalg.YieldOp([fold.value(step(acc, value))])
    return generic.results[0]


def mark_parallel(loop: scf.ForOp) -> None:
    """Tell gmx-parallel-loops that the iterations of `loop` are independent
    (each writes its own part of what it carries)."""
    loop.operation.attributes[PARALLEL_ATTR] = ir.UnitAttr.get()


def collapse_groups(rank: int, dim: int, keep_tail: bool = True) -> list[list[int]]:
    """Reassociation of a rank-`rank` shape into [dims before `dim`, `dim`,
    dims after it] (keep_tail, when there are any after it), or [dims
    before `dim`, `dim` and the dims after it]."""
    head, tail = list(range(dim)), list(range(dim + 1, rank))
    return [head, [dim], tail] if keep_tail and tail else [head, [dim, *tail]]


def collapse(value: ir.Value, groups: list[list[int]]) -> ir.Value:
    """A static tensor collapsed by `groups` (no copy); itself if that
    changes nothing."""
    value_type = ir.RankedTensorType(value.type)
    if len(groups) == value_type.rank:
        return value
    shape = [math.prod(value_type.shape[d] for d in group) for group in groups]
    return tensor.collapse_shape(ir.RankedTensorType.get(shape, value_type.element_type), value, groups)



def argument_writable(value: ir.Value) -> bool | None:
    """A function argument's `bufferization.writable` attribute (None
    where it has none, or `value` is no argument of a function)."""
    if not isinstance(value, ir.BlockArgument):
        return None
    function = value.owner.owner.operation
    if function.name != "func.func" or "arg_attrs" not in function.attributes:
        return None
    attributes = ir.DictAttr(ir.ArrayAttr(function.attributes["arg_attrs"])[value.arg_number])
    if "bufferization.writable" not in attributes:
        return None
    return ir.BoolAttr(attributes["bufferization.writable"]).value
