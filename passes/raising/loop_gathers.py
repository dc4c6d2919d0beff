"""A gather written as coordinates over a loop nest, and the gmx op it becomes.

Gathers that other dialects spell element by element (a `linalg.generic`
whose body is a `tensor.extract`, see `linalg_gathers`) or with their own op
(`tensor.gather`, see `tensor_gathers`) are read into a `LoopGather`:

    out[o] = source[p],   p[s] = coords[s](o)      (o ranges over the output's dims)

where a coordinate is `Iota(d)` (`p[s] = o[d]`, a `linalg.index d`) or an
`Indexed` read of an index tensor at loop dims (`IndexRead`: per dim of the
tensor, a loop dim or a constant position). `replace_by_gmx` emits the one
`gmx.gather_multiaxis` it is: static shapes through `gather_spec.synthesize`
(as every `--gmx-canonicalize` pattern), shapes with `?` dims here, with the
same layout (`gather_spec.layout_of`) and views that only add or remove unit dims (`views.emit_view`).
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.dialect.gmx import infer_result_type, mlir_shape, static_shape
from gmx.dialect.mlir import arith, ir, tensor
from gmx.dialect.modes import Mode
from gmx.dialect.shapes import GatherShapeError

from .gather_spec import GatherSpec, Indexed, Iota, Zero, layout_of, plan_of, synthesize
from .raised_gather import RaisedGather, Viewed, emit_gather
from ..patterns import NoMatch, require
from ..views import defining_op, shape_of, unit_view_groups


@dataclass(frozen=True)
class IndexRead:
    """An index tensor read at each output position: per dim of `tensor`,
    `("loop", d)` (the output's dim d) or `("at", c)` (the constant c)."""

    tensor: ir.Value
    dims: tuple
    # Whether each loop dim of `tensor` is as large as the loop (a linalg
    # input: its indexing map makes it so); else it is checked.
    whole: bool = True

    def __eq__(self, other):  # identity of the IR value
        return isinstance(other, IndexRead) and self.tensor == other.tensor and self.dims == other.dims

    __hash__ = object.__hash__


def indexed_form(dims: tuple, shape: list, loop_rank: int) -> tuple[tuple, int, int]:
    """How an index tensor of `shape` read at `dims` (see IndexRead) is a
    `gather_spec.Indexed`: (the broadcast mask over the loop dims: True where
    it varies, its component, its tuple size). NoMatch when it is not a view
    of the tensor: loop dims out of order or repeated, or a constant position
    other than a unit dim's 0 anywhere but the last dim (a tuple's component).

    >>> indexed_form((("loop", 0), ("at", 1)), [3, 2], 2)     # stablehlo: idx[o0, 1]
    ((True, False), 1, 2)
    >>> indexed_form((("loop", 0), ("at", 0)), [3, 1], 2)     # torch: map (d0, d1) -> (d0, 0)
    ((True, False), 0, 1)
    """
    loops = [d for kind, d in dims if kind == "loop"]
    require(loops == sorted(set(loops)), "the index tensor's loop dims are permuted or repeated")
    require(all(0 <= d < loop_rank for d in loops), "an index dim beyond the loops")
    component, tuple_size = 0, 1
    for position, (kind, value) in enumerate(dims):
        if kind != "at":
            continue
        if shape[position] == 1 and value == 0:
            continue
        last = position == len(dims) - 1
        require(last and shape[position] is not None and 0 <= value < shape[position],
                "an index tensor read at a constant position other than its tuple dim")
        component, tuple_size = value, shape[position]
    mask = tuple(d in loops for d in range(loop_rank))
    return mask, component, tuple_size


def pair_unit_dims(coords: list, out_shape: list) -> list:
    """Constant-0 positions (`Zero`) into unit source dims, read as the
    unit output dim they line up with (right-aligned) where that keeps the
    iotas in order: `p[s] = 0 = o[d]` when the output's dim d has size 1.
    torch-mlir reads `x[i, 0]` for torch.gather along dim 0 of a `10x1`
    input; as `x[i, o1]` it is gmx on the input as it is, no views.

    >>> pair_unit_dims([None, Zero()], [7, 1])
    [None, Iota(dim=1)]
    """
    coords = list(coords)
    shift = len(out_shape) - len(coords)
    for s, coord in enumerate(coords):
        d = s + shift
        if not isinstance(coord, Zero) or not 0 <= d < len(out_shape) or out_shape[d] != 1:
            continue
        iotas = [(t, c.dim) for t, c in enumerate(coords) if isinstance(c, Iota)]
        if any(dim == d or (t < s) != (dim < d) for t, dim in iotas):
            continue
        coords[s] = Iota(d)
    return coords


@dataclass
class LoopGather:
    """`out[o] = source[p]`, `p[s] = coords[s](o)` with `coords[s]` an Iota or an IndexRead."""

    source: ir.Value
    coords: list
    result_type: ir.RankedTensorType
    # the output's `?` sizes where known, for slices: d -> a value, or
    # (tensor, dim) for the size of that tensor's dim (emitted when needed)
    sizes: dict
    mode: Mode = Mode.RAISE  # what an index outside its dim means


def _spec(gather: LoopGather) -> GatherSpec:
    out = static_shape(gather.result_type)
    coords = []
    for coord in gather.coords:
        if isinstance(coord, IndexRead):
            index_shape = shape_of(coord.tensor)
            mask, component, tuple_size = indexed_form(coord.dims, index_shape, len(out))
            require(coord.whole or all(index_shape[p] is not None and index_shape[p] == out[d]
                                       for p, (kind, d) in enumerate(coord.dims) if kind == "loop"),
                    "an index tensor read over part of a dim")
            shape = tuple(size if varies else 1 for size, varies in zip(out, mask))
            coords.append(Indexed(coord.tensor, shape, component, tuple_size))
        else:
            coords.append(coord)
    return GatherSpec(gather.source, out, coords, list(out), mode=Mode(gather.mode))


def replace_by_gmx(op, gather: LoopGather, rewriter, prepare=None) -> bool:
    """Replace `op` by the gmx op `gather` is; False (= matched) once rewritten.
    NoMatch, before anything is emitted, when gmx cannot express it. With
    `prepare`, the gather emitted is `prepare()` (the same gather on operands
    it emits, e.g. cast indices), called once `gather` is known to match."""
    rewriter.replace_op(op, [emit_loop_gather(op, gather, rewriter, prepare)])
    return False


def emit_loop_gather(op, gather: LoopGather, rewriter, prepare=None) -> ir.Value:
    """The gmx op `gather` is, emitted in front of `op` (at `rewriter.ip`,
    located at `op`) as a value of `gather.result_type`; as `replace_by_gmx`."""
    spec = _spec(gather)
    static = None not in spec.out_shape and None not in shape_of(spec.input) and all(
        None not in shape_of(c.value) for c in spec.coords if isinstance(c, Indexed))
    # every coordinate an iota (an index that is `arange`: XLNet's, CANINE's
    # index_select at arange(n)) is a copy: the input or a slice of it, static only
    require(static or any(isinstance(c, Indexed) for c in spec.coords),
            "no coordinate is read from an index (a copy, not a gather) with a dynamic dim")
    with op.location:
        if static:
            plan_of(spec)
        else:
            _DynamicGather(spec, gather)
    with rewriter.ip, op.location:
        if prepare is not None:
            gather = prepare()
            spec = _spec(gather)
        value = synthesize(spec) if static else _DynamicGather(spec, gather).emit()
        if value.type != gather.result_type:
            value = tensor.cast(gather.result_type, value)
    return value


class _DynamicGather:
    """The gmx op of a spec with `?` dims: the input sliced where the output
    is not provably as large, unit dims added by one view, the indices one
    view of the index tensor (one coordinate, or the components of one tuple
    tensor, varying along every dim the output takes from the indices),
    the result one view of the gmx op. Everything is checked before emitting."""

    def __init__(self, spec: GatherSpec, gather: LoopGather):
        self.spec, self.gather = spec, gather
        self.layout = layout_of(spec)
        source = shape_of(spec.input)
        self.sliced = list(source)
        self.slices = {}
        for s, coord in enumerate(spec.coords):
            if isinstance(coord, Zero) and source[s] != 1:
                self.slices[s] = None
                self.sliced[s] = 1
            elif isinstance(coord, Iota) and not self._same_size(s, coord.dim):
                self.slices[s] = coord.dim
                self.sliced[s] = spec.out_shape[coord.dim]
                require(self.sliced[s] is not None or coord.dim in gather.sizes, "an output size unknown")
        self.input_shape = [1 if d is None else self.sliced[d] for d in self.layout.input_dims]
        indexed = [(s, c) for s, c in enumerate(spec.coords) if isinstance(c, Indexed)]
        first = indexed[0][1]
        k = len(indexed)
        shared = all(c.value == first.value and c.shape == first.shape and c.tuple_size == k for _, c in indexed)
        require(k == 1 and first.tuple_size == 1 or shared and sorted(c.component for _, c in indexed) == list(range(k)),
                "a dynamic gather whose coordinates are not one index tensor")
        indexed.sort(key=lambda sc: sc[1].component)
        position = {d: g for g, d in enumerate(self.layout.input_dims) if d is not None}
        self.axes = [position[s] for s, _ in indexed]
        iota_hosted = {position[s] for s, c in enumerate(spec.coords) if isinstance(c, Iota)}
        self.logical = [1 if b is None else (spec.out_shape[b] if first.shape[b] != 1 else 1)
                        for b in self.layout.output_dims]
        for g, b in enumerate(self.layout.output_dims):
            require(b is None or g in iota_hosted or first.shape[b] != 1 or spec.out_shape[b] == 1,
                    "a dynamic gather whose indices would need broadcasting")
        self.indices_shape = self.logical[:-1] + [None if self.logical[-1] is None else self.logical[-1] * k]
        require(unit_view_groups(shape_of(first.value), self.indices_shape) is not None, "no view of the indices")
        sliced_shape = self.sliced
        require(unit_view_groups(sliced_shape, self.input_shape) is not None, "no view of the input")
        try:
            self.gmx_type = infer_result_type(
                ir.RankedTensorType.get(mlir_shape(self.input_shape), ir.RankedTensorType(spec.input.type).element_type),
                ir.RankedTensorType.get(mlir_shape(self.indices_shape), ir.RankedTensorType(first.value.type).element_type),
                self.axes)
        except GatherShapeError as error:
            raise NoMatch(str(error)) from None
        require(unit_view_groups(static_shape(self.gmx_type), spec.out_shape) is not None, "no view of the result")
        self.index_tensor = first.value

    def _same_size(self, s: int, d: int) -> bool:
        """Whether the output's dim d provably has the source's dim s size."""
        source, out = shape_of(self.spec.input)[s], self.spec.out_shape[d]
        if source is not None and out is not None:
            return source == out
        size = self.gather.sizes.get(d)
        if isinstance(size, tuple):
            return size[0] == self.spec.input and size[1] == s
        op = None if size is None else defining_op(size)
        if op is None or op.name != "tensor.dim" or op.operands[0] != self.spec.input:
            return False
        index = defining_op(op.operands[1])
        return index is not None and index.name == "arith.constant" and ir.IntegerAttr(index.attributes["value"]).value == s

    def _size(self, d: int) -> ir.Value:
        size = self.spec.out_shape[d]
        if size is not None:
            return arith.constant(ir.IndexType.get(), size)
        size = self.gather.sizes[d]
        if isinstance(size, tuple):
            return tensor.dim(size[0], arith.constant(ir.IndexType.get(), size[1]))
        return size

    def emit(self) -> ir.Value:
        x = self.spec.input
        if self.slices:
            index = ir.IndexType.get()
            sizes = [self._size(self.slices[s]) if s in self.slices else tensor.dim(x, arith.constant(index, s))
                     for s, size in enumerate(self.sliced) if size is None]
            static = mlir_shape(self.sliced)
            result = ir.RankedTensorType.get(static, ir.RankedTensorType(x.type).element_type)
            x = tensor.extract_slice(result, x, [], sizes, [], [0] * len(static), static, [1] * len(static))
        return emit_gather(RaisedGather(
            Viewed(x, self.input_shape, unit_dims_first=True),
            Viewed(self.index_tensor, self.indices_shape, unit_dims_first=True),
            self.axes, self.spec.mode, result=Viewed(shape=self.spec.out_shape, unit_dims_first=True)))
