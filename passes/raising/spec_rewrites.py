"""Rewrites of a `GatherSpec` shared by the pattern families of
`--gmx-canonicalize`, and `replace_by_spec`, which replaces a pattern's root
by the gmx op a spec describes (`gather_spec.synthesize`).

Spec in, spec out: none of these emits IR but `replace_by_spec`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from gmx.dialect.mlir import ir

from .coordinate_tuples import column_of
from .coordinates import Work, peel, row_major_iota_sizes
from .gather_spec import GatherSpec, Indexed, Iota, Zero, constant_coordinate, plan_of, synthesize
from ..patterns import NoMatch, require
from .scatter_spec import ScatterWrite, is_scatter, synthesize_scatter, write_of
from ..views import static_shape_of, strip_views, views_between


def _views_needed(plan, spec: GatherSpec) -> int:
    """View ops between the planned gmx op's output and the result."""
    return views_between(plan.gmx_out, spec.result_shape)


def replace_by_spec(root, spec: GatherSpec, rewriter, current: tuple | None = None, views_before: int = 0,
                    write: ScatterWrite | None = None) -> bool:
    """Replace `root` by the gather `spec`, or by the scatter of `write` into
    the positions `spec` reads (a gmx scatter root: its own write); False
    (= success) when rewritten.

    With `current` (the form of the gmx op being folded), NoMatch if the new
    op would look the same and need no fewer views.
    """
    plan = plan_of(spec)
    unchanged = current is not None and plan.form(spec) == current and _views_needed(plan, spec) >= views_before
    require(not unchanged, "the new gmx op would be the same")
    if write is None and is_scatter(root):
        write = write_of(root)
    with rewriter.ip, root.location:
        if write is None:
            value = synthesize(spec)
        else:
            value = synthesize_scatter(spec, write, static_shape_of(root.results[0]))
    rewriter.replace_op(root, [value])
    return False



def split_iota_dims(spec: GatherSpec) -> GatherSpec:
    """Each constant coordinate that counts through several output dims over
    its whole input dim (`row_major_iota_sizes`) becomes an iota per output
    dim, the input dim split into theirs (a view): with a reshape of the
    result that splits the batch (`x[:, i].reshape(2, -1)` on 4x5x8), batch
    row `2 * o0 + o1` is row (o0, o1) of x viewed as 2x2x5x8, a non-axis
    dim of gmx rather than a second axis with a constant index."""
    shape, coords = [], []
    for size, coord in zip(spec.input_shape, spec.coords):
        sizes = _iota_split(coord)
        if sizes is None or int(math.prod(sizes)) != size:
            shape.append(size)
            coords.append(coord)
            continue
        shape.extend(sizes)
        coords.extend(Iota(b) for b, s in enumerate(coord.shape) if s != 1)
    if len(shape) == len(spec.input_shape):
        return spec
    return replace(spec, coords=coords, view=shape)


def _iota_split(coord) -> list[int] | None:
    """`row_major_iota_sizes` of a constant single coordinate, or None."""
    if not isinstance(coord, Indexed) or coord.tuple_size != 1 or coord.maps:
        return None
    array = constant_coordinate(coord)
    return None if array is None else row_major_iota_sizes(array)



def without_unread_unit_dims(shape: list[int], coords: list) -> tuple[list[int], list]:
    """`shape` and its `coords` without the unit dims whose coordinate is 0:
    a view the gather reads the same elements of."""
    kept = [k for k, (size, coord) in enumerate(zip(shape, coords)) if size != 1 or not isinstance(coord, Zero)]
    return [shape[k] for k in kept], [coords[k] for k in kept]



def peel_all(spec: GatherSpec) -> GatherSpec:
    """Peel every single-coordinate Indexed of `spec` (see `coordinates.peel`)."""
    shape = spec.input_shape
    for d in range(len(spec.coords)):
        coord = spec.coords[d]
        if not isinstance(coord, Indexed) or coord.tuple_size != 1:
            continue
        work = Work(spec, [coord])
        peeled = peel(work, 0, shape[d])
        coords = list(work.spec.coords)
        coords[d] = peeled
        spec = replace(work.spec, coords=coords)
    return read_whole_tuples(spec)


def read_whole_tuples(spec: GatherSpec) -> GatherSpec:
    """Coordinates that are the columns of one tuple tensor (`column_of`:
    a `tensor.extract_slice` of its last dim), each column once, read as the
    tuples' components, so that the gmx op reads the tensor whole (ONNX
    ScatterND's indices in linalg-on-tensors, cut into columns, each
    normalised). A lone column stays as it is (its own extract_slice)."""
    columns = {}
    for d, coord in enumerate(spec.coords):
        if isinstance(coord, Indexed) and coord.tuple_size == 1 and coord.array is None and not coord.maps:
            column = column_of(strip_views(coord.value)[0])
            if column is not None:
                columns[d] = column
    sources = [source for source, _, _ in columns.values()]
    if len(columns) < 2 or any(s != sources[0] for s in sources):
        return spec
    width = next(iter(columns.values()))[2]
    if len(columns) != width or sorted(j for _, j, _ in columns.values()) != list(range(width)):
        return spec
    coords = list(spec.coords)
    for d, (source, j, _) in columns.items():
        coords[d] = replace(coords[d], value=source, component=j, tuple_size=width)
    return replace(spec, coords=coords)


def broadcast_dims(coords: list, out_shape: list[int]) -> list[int]:
    """Output dims (of size > 1) that no coordinate produces: neither an iota
    runs along them nor an index tensor spans them (a broadcast)."""
    spanned = {c.dim for c in coords if isinstance(c, Iota)}
    spanned |= {b for c in coords if isinstance(c, Indexed) for b, s in enumerate(c.shape) if s != 1}
    return [b for b, size in enumerate(out_shape) if size != 1 and b not in spanned]


def broadcast_index_candidates(coords: list, out_shape: list[int], input_shape: list[int]) -> list[int]:
    """Input dims whose constant coordinate (an iota, or a zero on a dim
    larger than 1) may become the index that produces `broadcast_dims`, the
    likeliest first: `expand` and `repeat` add leading dims, so the index's
    own dims follow the broadcast ones; the iota nearest after them, then
    the smallest, then zeros."""
    last = max(broadcast_dims(coords, out_shape), default=-1)

    def rank(d: int) -> tuple:
        coord = coords[d]
        if isinstance(coord, Zero):
            return (2, 0, 0)
        after = coord.dim > last
        return (0 if after else 1, coord.dim - last if after else 0, out_shape[coord.dim])

    dims = [d for d, c in enumerate(coords) if isinstance(c, Iota) or (isinstance(c, Zero) and input_shape[d] > 1)]
    return sorted(dims, key=rank)


def keep_broadcast_index(spec: GatherSpec, element_source: ir.Value) -> GatherSpec:
    """When the output has dims only a broadcast of a constant index produced,
    one constant coordinate stays a constant index (of `element_source`'s
    element type), which `synthesize` folds over those dims.

    `w[torch.arange(8).expand(2, 8)]`: the index peels to an iota along the
    8, and nothing would produce the 2 (a gmx op broadcasts its output only
    along its indices); the iota stays the index, a folded 2x8 constant:

        %t = tosa.tile %arange, %m : (tensor<1x8xi64>, !tosa.shape<2>) -> tensor<2x8xi64>
        %g = "gmx.gather_multiaxis"(%w1, reshape(normalise(cast(%t)))) {axes = array<i64: 1>} : (tensor<1x10x4xf32>, tensor<2x8x1xi32>) -> ...
    becomes
        %c = arith.constant dense<[[[0], ..., [7]], [[0], ..., [7]]]> : tensor<2x8x1xi32>
        %g = "gmx.gather_multiaxis"(%w1, %c) {axes = array<i64: 1>} : (tensor<1x10x4xf32>, tensor<2x8x1xi32>) -> tensor<2x8x4xf32>
    """
    if any(isinstance(c, Indexed) for c in spec.coords) or not broadcast_dims(spec.coords, spec.out_shape):
        return spec
    for d in broadcast_index_candidates(spec.coords, spec.out_shape, spec.input_shape):
        coord = spec.coords[d]
        shape = [1] * len(spec.out_shape)
        if isinstance(coord, Iota):
            shape[coord.dim] = spec.out_shape[coord.dim]
        array = (np.arange(coord.start, coord.start + math.prod(shape)).reshape(shape) if isinstance(coord, Iota)
                 else np.zeros(shape, np.int64))
        coords = list(spec.coords)
        coords[d] = Indexed(element_source, tuple(shape), array=array)
        candidate = replace(spec, coords=coords)
        try:
            plan_of(candidate)
        except NoMatch:
            continue
        return candidate
    return spec

