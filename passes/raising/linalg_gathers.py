"""raise-linalg-gather: a `linalg.generic` that is provably a gather becomes gmx.

Frontends lowering to linalg-on-tensors spell a gather as a generic whose
body reads one element of a tensor from outside at computed positions:
torch-mlir's TorchToLinalg (with `cf.assert` bounds checks, and the
negative-index `select` of advanced indexing), upstream `tosa-to-linalg` on
`tosa.gather` (no check) and `stablehlo-legalize-to-linalg` (indices read
with `tensor.extract` in the body, clamped to the dim: `clip`).

A generic is raised only when every op of its body is accounted for: all
loops parallel, the output map the identity, the yielded value
`tensor.extract %source[p...]` of a tensor defined outside, each position
`p[s]` either `linalg.index d` or an integer function of one index value
(an `ins` operand's element, or a `tensor.extract` of an index tensor at
loop indices and constants) through casts, arithmetic, `select`s and
constants, possibly the source's `tensor.dim`; `cf.assert`s on those
values; unused constants. Anything else (arithmetic on the extracted value,
a position mixing two index values or a loop index, a reduction: see
`reduction_gathers`) is left alone. Each position function is evaluated with numpy on the whole valid
range and on probes outside it (`index_maps`); it must be gmx's own
reading of an index in one mode for all positions:

- `raise`: the identity on [0, size), negative indices wrapped once or left
  out of range, no out-of-range index mapped into range (TorchToLinalg,
  tosa-to-linalg). A source without a check leaves an out-of-range index
  undefined; the `cf.assert`s reject it (their conditions must hold on all
  of [0, size)); gmx's checked `raise` refines both (an index in
  [-size, 0) that an assert rejects is read wrapped, as gmx reads it).
- `clip`: exactly a clamp to [0, size - 1] (StableHLO); no asserts.
- `wrap`: exactly a floor modulo by the size (`index_maps.is_floor_modulo`:
  where `|index| * size` fits the index type); no asserts.

Where a source dim is `?`, the functions are checked at several sizes.
An index operand that is itself an iota (a generic yielding its
`linalg.index`, torch-mlir's arange for `x[i, :, j]`) is read as that loop
dim. The rewrite (`loop_gathers.replace_by_gmx`):

    %g = linalg.generic {indexing_maps = [(d0, d1) -> (d0), (d0, d1) -> (d0, d1)], ...}
           ins(%i : tensor<2xi64>) outs(%0 : tensor<2x5xf32>) {
    ^bb0(%in: i64, %out: f32):
      %n = arith.select (arith.cmpi slt, %in, %c0), (arith.addi %in, %c4), %in : i64
      %p = arith.index_cast %n : i64 to index
      %d = linalg.index 1 : index
      %e = tensor.extract %x[%p, %d] : tensor<4x5xf32>
      linalg.yield %e : f32
    } -> tensor<2x5xf32>
becomes
    %e = tensor.expand_shape %i [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
    %g = "gmx.gather_multiaxis"(%x, %e) {axes = array<i64: 0>} : (tensor<4x5xf32>, tensor<2x1xi64>) -> tensor<2x5xf32>
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gmx.dialect.gmx import static_shape
from gmx.dialect.mlir import ir
from gmx.dialect.modes import Mode

from .gather_spec import Iota, Zero
from ..patterns import NoMatch, pattern, require
from .index_maps import position_mode
from .integer_ops import ARITH_SCALAR_OPS, evaluate_op, integer_width, knows_op
from .loop_gathers import IndexRead, LoopGather, pair_unit_dims, replace_by_gmx
from ..views import defining_op, static_shape_of, strip_views

# Sizes at which a position function over a `?` source dim is checked.
DYNAMIC_SAMPLE_SIZES = (1, 2, 3, 5, 8, 13, 64, 1000)

# What a position may be computed with (each evaluated by `integer_ops.evaluate_op`).
SCALAR_OPS = ARITH_SCALAR_OPS


def _width(value: ir.Value) -> int:
    width = integer_width(value.type)
    require(width is not None, f"a {value.type} value in a position")
    return width


def _constant(op) -> int:
    attribute = op.attributes["value"]
    require(isinstance(attribute, (ir.IntegerAttr, ir.BoolAttr)), "a non-integer constant in a position")
    return int(ir.IntegerAttr(attribute).value) if isinstance(attribute, ir.IntegerAttr) else int(ir.BoolAttr(attribute).value)


# --- reading the body ---------------------------------------------------------------------------


@dataclass
class Trace:
    """What a value in the body is computed from."""

    ops: list = field(default_factory=list)  # body ops on the way (not the leaves' defining ops)
    leaves: list = field(default_factory=list)  # index values: block arguments or tensor.extract results
    dims: list = field(default_factory=list)  # tensor.dim results of the source (outside the body)


class Body:
    """A generic's body, read as a gather."""

    def __init__(self, op, maps: list | None = None):
        self.op = op
        self.block = op.regions[0].blocks[0]
        self.inputs = len(op.inputs)
        # each operand's indexing map (a linalg.reduce has none of its own)
        self.maps = maps if maps is not None else [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]

    def inside(self, value: ir.Value) -> bool:
        owner = defining_op(value)
        if owner is None:
            return value.owner == self.block
        return owner.block == self.block

    def trace(self, root: ir.Value, source: ir.Value) -> Trace:
        """The leaves and ops `root` is computed from; NoMatch on anything else."""
        trace, seen, stack = Trace(), [], [root]
        while stack:
            value = stack.pop()
            if any(value == v for v in seen):
                continue
            seen.append(value)
            owner = defining_op(value)
            if owner is None:
                require(value.owner == self.block and value.arg_number < self.inputs, "a block argument of another block")
                require(isinstance(self.op.inputs[value.arg_number].type, ir.RankedTensorType), "a scalar input in a position")
                require(integer_width(value.type) is not None, "a non-integer input in a position")
                trace.leaves.append(value)
            elif owner.name == "arith.constant":
                _constant(owner)
            elif owner.name == "tensor.dim" and owner.operands[0] == source:
                trace.dims.append(value)
                if self.inside(value):
                    trace.ops.append(owner)
            elif not self.inside(value):
                raise NoMatch("a value from outside the body")
            elif owner.name == "tensor.extract":
                require(not self.inside(owner.operands[0]), "an extract of a tensor made in the body")
                self.read_positions(owner)
                trace.leaves.append(value)
            elif owner.name == "linalg.index":
                raise NoMatch("a loop index inside a computed position")
            else:
                require(owner.name in SCALAR_OPS, f"{owner.name} in a position")
                trace.ops.append(owner)
                stack.extend(owner.operands)
        return trace

    def read_positions(self, extract) -> tuple:
        """An index tensor's extract: per dim ("loop", d) or ("at", c)."""
        dims = []
        for position in list(extract.operands)[1:]:
            owner = defining_op(position)
            require(owner is not None, "an index tensor read at a block argument")
            if owner.name == "linalg.index" and owner.block == self.block:
                dims.append(("loop", ir.IntegerAttr(owner.attributes["dim"]).value))
            elif owner.name == "arith.constant":
                dims.append(("at", _constant(owner)))
            else:
                raise NoMatch("an index tensor read at a computed position")
        return tuple(dims)

    def evaluate(self, root: ir.Value, leaf: ir.Value, t: np.ndarray, size: int) -> np.ndarray:
        """`root` as a function of `leaf` = t, the source's dims = size."""
        memo = []

        def value_of(value):
            for v, array in memo:
                if v == value:
                    return array
            owner = defining_op(value)
            if value == leaf:
                result = t
            elif owner.name == "arith.constant":
                result = np.int64(_constant(owner))
                if integer_width(value.type) == 1:
                    result = np.bool_(result)
            elif owner.name == "tensor.dim":
                result = np.int64(size)
            else:
                predicate = ir.IntegerAttr(owner.attributes["predicate"]).value if owner.name == "arith.cmpi" else None
                require(knows_op(owner.name, predicate), f"{owner.name} (predicate {predicate}) in a position")
                operand_width = integer_width(owner.operands[-1].type) or 64
                result = evaluate_op(owner.name, [value_of(o) for o in owner.operands],
                                         _width(value), operand_width, predicate)
            memo.append((value, result))
            return result

        return value_of(root)


def _leaf_read(body: Body, leaf: ir.Value) -> IndexRead:
    """The index tensor and read positions behind an index value."""
    owner = defining_op(leaf)
    if owner is not None:  # a tensor.extract in the body: it may read part of the tensor
        return IndexRead(owner.operands[0], body.read_positions(owner), whole=False)
    operand = body.op.inputs[leaf.arg_number]
    affine_map = body.maps[leaf.arg_number]
    dims = []
    for expr in affine_map.results:
        if isinstance(expr, ir.AffineDimExpr):
            dims.append(("loop", expr.position))
        else:
            require(isinstance(expr, ir.AffineConstantExpr), "an input map that is no projection")
            dims.append(("at", expr.value))
    return IndexRead(operand, tuple(dims))


def _iota_dim(read: IndexRead) -> int | None:
    """The loop dim an index read runs along when its tensor is an iota (a
    generic with no inputs yielding the cast of one `linalg.index`, or a
    static view adding unit dims to a 1-D one: torch-mlir's arange), else None."""
    tensor, dims = read.tensor, read.dims
    source, views = strip_views(tensor)
    if views:
        shape, size = static_shape_of(tensor), static_shape_of(source)
        kept = [p for p, n in enumerate(shape) if n != 1]
        if size is None or len(size) != 1 or len(kept) != 1 or shape[kept[0]] != size[0]:
            return None
        tensor, dims = source, (dims[kept[0]],)
    producer = defining_op(tensor)
    if producer is None or producer.name != "linalg.generic":
        return None
    producer = producer.opview
    if len(producer.inputs) or len(producer.outputs) != 1:
        return None
    affine_map = ir.AffineMapAttr(producer.attributes["indexing_maps"][0]).value
    if not affine_map.is_permutation or any(e.position != i for i, e in enumerate(affine_map.results)):
        return None
    value = list(producer.regions[0].blocks[0].operations)[-1].operands[0]
    while (owner := defining_op(value)) is not None and owner.name in ("arith.index_cast", "arith.extsi"):
        value = owner.operands[0]
    owner = defining_op(value)
    if owner is None or owner.name != "linalg.index":
        return None
    kind, dim = dims[ir.IntegerAttr(owner.attributes["dim"]).value]
    return dim if kind == "loop" else None


def check_accepts_valid(condition, size: int) -> bool:
    """Whether an assert's condition, as a function of its index, holds on
    every valid position [0, size) (so it rejects only what gmx rejects or reads wrapped)."""
    return bool(np.all(np.asarray(condition(np.arange(size, dtype=np.int64)))))


def _sizes(source_size: int | None) -> tuple:
    return (source_size,) if source_size is not None else DYNAMIC_SAMPLE_SIZES


@dataclass
class ElementRead:
    """A `tensor.extract %source[p...]` in a body read as a gather:
    per position its coordinate, the mode they share, the body ops that
    compute them (linalg.index, arithmetic, index tensors' extracts), and
    (index value, source dim) per computed position."""

    coords: list
    mode: Mode
    ops: list
    leaf_dims: list


def read_element(body: Body, extract) -> ElementRead:
    """How `extract` (a tensor.extract in `body`'s block of a tensor from
    outside it) reads its source: per position `linalg.index d` (Iota), the
    constant 0 (Zero), or gmx's reading, in one mode for all positions, of
    one index value (an IndexRead); NoMatch on anything else."""
    block = body.block
    source = extract.operands[0]
    require(not body.inside(source), "the extracted tensor is made in the body")
    source_shape = static_shape(ir.RankedTensorType(source.type))
    require(len(source_shape) >= 1, "a rank-0 source")
    explained = []
    coords, modes, leaf_dim = [], set(), []
    for s, position in enumerate(list(extract.operands)[1:]):
        owner = defining_op(position)
        if owner is not None and owner.name == "linalg.index" and owner.block == block:
            coords.append(Iota(ir.IntegerAttr(owner.attributes["dim"]).value))
            explained.append(owner)
            continue
        if owner is not None and owner.name == "arith.constant":
            require(_constant(owner) == 0, "a constant position other than 0")
            coords.append(Zero())
            continue
        trace = body.trace(position, source)
        require(len(trace.leaves) == 1, "a position computed from no index or from several")
        require(all(_dim_index(d) == s for d in trace.dims), "a position computed from another dim's size")
        (leaf,) = trace.leaves
        explained += trace.ops + ([defining_op(leaf)] if defining_op(leaf) is not None else [])
        leaf_width = _width(leaf)
        found = {position_mode(lambda t: body.evaluate(position, leaf, t, n), leaf_width, n)
                 for n in _sizes(source_shape[s])}
        require(len(found) == 1 and None not in found, "a position that is not gmx's reading of an index")
        modes |= found
        leaf_dim.append((leaf, s))
        read = _leaf_read(body, leaf)
        iota = _iota_dim(read) if found == {Mode.RAISE} else None
        coords.append(Iota(iota) if iota is not None else read)
    require(len(modes) <= 1, "positions in different modes")
    return ElementRead(coords, modes.pop() if modes else Mode.RAISE, explained, leaf_dim)


def read_gather(op) -> LoopGather:
    """The gather a linalg.generic is; NoMatch when it is not provably one."""
    op = op.operation.opview
    require(len(op.outputs) == 1 and len(op.results) == 1, "not one output")
    require(all("parallel" in str(t) for t in op.attributes["iterator_types"]), "a reduction loop")
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    out_map = maps[-1]
    require(out_map.is_permutation and all(e.position == i for i, e in enumerate(out_map.results)),
            "the output map is not the identity")
    body = Body(op)
    block = body.block
    require(not list(block.arguments[-1].uses), "the body reads the output")
    operations = list(block.operations)
    extract = defining_op(operations[-1].operands[0])
    require(extract is not None and extract.name == "tensor.extract" and extract.block == block,
            "the yielded value is not a tensor.extract")
    read = read_element(body, extract)
    source = extract.operands[0]
    source_shape = static_shape(ir.RankedTensorType(source.type))
    explained = [operations[-1], extract, *read.ops]
    coords, mode, leaf_dim = read.coords, read.mode, read.leaf_dims
    for operation in operations:
        if operation.name == "cf.assert":
            require(mode is Mode.RAISE, f"a bounds check on an index in mode {mode}")
            condition = operation.operands[0]
            trace = body.trace(condition, source)
            require(len(trace.leaves) == 1, "an assert on no index or on several")
            (leaf,) = trace.leaves
            dims = [s for v, s in leaf_dim if v == leaf]
            require(bool(dims), "an assert on a value no position reads")
            for n in _sizes(source_shape[dims[0]]):
                require(check_accepts_valid(lambda t: body.evaluate(condition, leaf, t, n), n),
                        "an assert that rejects a valid index")
            explained += [operation] + trace.ops
    for operation in operations:
        if any(operation == e for e in explained):
            continue
        require(operation.name in ("arith.constant", "linalg.index")
                and all(any(use.owner == e for e in explained) for r in operation.results for use in r.uses),
                f"{operation.name} in the body is not part of a gather")
    result_type = ir.RankedTensorType(op.results[0].type)
    coords = pair_unit_dims(coords, static_shape(result_type))
    return LoopGather(source, coords, result_type, _output_sizes(op), mode)


def _dim_index(dim_value: ir.Value) -> int | None:
    owner = defining_op(defining_op(dim_value).operands[1])
    if owner is None or owner.name != "arith.constant":
        return None
    return _constant(owner)


def _output_sizes(op) -> dict:
    """The output's `?` sizes as values: the operands of the tensor.empty
    under its init (through a linalg.fill)."""
    init = op.outputs[0]
    producer = defining_op(init)
    if producer is not None and producer.name == "linalg.fill":
        producer = defining_op(producer.operands[1])
    if producer is None or producer.name != "tensor.empty":
        return {}
    shape = static_shape(ir.RankedTensorType(init.type))
    dynamic = [d for d, size in enumerate(shape) if size is None]
    return dict(zip(dynamic, producer.operands))


def raise_linalg_gather(op, rewriter):
    """A linalg.generic that is provably a gather becomes one gmx op (see the module docstring)."""
    return replace_by_gmx(op.operation, read_gather(op), rewriter)


PATTERNS = (pattern(raise_linalg_gather, "linalg.generic"),)
