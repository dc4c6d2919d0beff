"""Index values known at compile time, evaluated with numpy: the one home
of what TOSA's elementwise ops, arith's scalar and tensor integer ops and
StableHLO's mean on integers (`evaluate_op`), and of reading a position
function as a gmx mode (`position_mode`).

Two uses, both by `--gmx-canonicalize`:

- `constant_value(v)`: the value of an integer tensor computed from constants
  only (`tosa.const`, `arith.constant`, through reshapes, tiles, casts, the
  negative-index `select`, ...). Frontends materialise iota coordinates that
  way; evaluating them tells an iota from a real index tensor.
- `index_function(root, leaf)`: the elementwise integer function that maps
  `leaf` to `root` (splat constants only), e.g. the normalisation
  `select(greater(0, i), add(i, 5), i)`. `wraps_like_gmx` then decides whether
  the function is what gmx does anyway on the valid index range.

Integers follow MLIR's signless two's-complement semantics: every result is
wrapped to its element type's width, `intdiv` truncates toward zero and an
integer cast truncates or sign-extends.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

import numpy as np

from gmx.dialect.gmx import OP_NAME
from gmx.dialect.mlir import ir
from gmx.dialect.modes import Mode
from gmx.dialect.scatter import SCATTER_OP_NAME

from ..views import defining_op, static_shape_of, view_source
from ..resources import resource_integers

# Constants larger than this are not evaluated (they would not be iotas a
# frontend emits for a gather we can compile anyway).
MAX_EVALUATED_ELEMENTS = 1 << 24
# Index functions are checked exhaustively on [-size, size) up to this size.
MAX_CHECKED_AXIS = 1 << 22

# --- op -> numpy: the semantics of each integer op --------------------------------------------

_BINARY = {
    "tosa.add": np.add,
    "tosa.sub": np.subtract,
    "tosa.mul": np.multiply,  # its third operand is the shift, which must be 0
    "tosa.maximum": np.maximum,
    "tosa.minimum": np.minimum,
    "tosa.greater": np.greater,
    "tosa.greater_equal": np.greater_equal,
    "tosa.equal": np.equal,
    "tosa.logical_and": np.logical_and,
    "tosa.logical_or": np.logical_or,
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "stablehlo.add": np.add,
    "stablehlo.subtract": np.subtract,
    "stablehlo.multiply": np.multiply,
    "stablehlo.and": np.logical_and,
    "stablehlo.or": np.bitwise_or,
    "stablehlo.maximum": np.maximum,
    "stablehlo.minimum": np.minimum,
}
_UNARY = {
    "tosa.cast": lambda a: a,
    "tosa.logical_not": np.logical_not,
    "tosa.abs": np.abs,
    "arith.extsi": lambda a: a,  # signed casts: the wrap to the result's width truncates
    "arith.trunci": lambda a: a,
    "arith.index_cast": lambda a: a,
    "stablehlo.convert": lambda a: a,
    "stablehlo.not": lambda a: np.logical_not(a) if a.dtype == bool else np.invert(a),
}
_UNSIGNED_CASTS = ("arith.index_castui", "arith.extui")
_SELECTS = ("tosa.select", "arith.select", "stablehlo.select")
_DIVISIONS = ("tosa.intdiv", "arith.divsi", "arith.remsi", "arith.floordivsi", "stablehlo.remainder")
# arith.cmpi predicates (mlir::arith::CmpIPredicate)
_CMPI = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater, 5: np.greater_equal}
_UNSIGNED_CMPI = {6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}
# stablehlo.compare directions (signed)
_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}

# The scalar arith ops `evaluate_op` knows (what a linalg body may compute a position with).
ARITH_SCALAR_OPS = frozenset(
    {n for n in _BINARY if n.startswith("arith.")} | {n for n in _UNARY if n.startswith("arith.")}
    | set(_UNSIGNED_CASTS) | {"arith.cmpi", "arith.select", "arith.divsi", "arith.remsi", "arith.floordivsi"})
# The tensor ops `constant_value` and `index_function` look through.
ELEMENTWISE = frozenset({
    "tosa.add", "tosa.sub", "tosa.mul", "tosa.maximum", "tosa.minimum", "tosa.greater", "tosa.greater_equal",
    "tosa.equal", "tosa.logical_and", "tosa.logical_or", "arith.addi", "arith.subi", "arith.muli",
    "tosa.cast", "tosa.logical_not", "tosa.abs", "arith.extsi", "arith.trunci", "arith.index_cast",
    "tosa.intdiv", "tosa.select", "arith.select",
    # JAX's index helpers (remainder, the sign fix-up, the divisor guard) and torch-mlir's aranges
    "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.remainder", "stablehlo.maximum",
    "stablehlo.minimum", "stablehlo.and", "stablehlo.or", "stablehlo.not", "stablehlo.select", "stablehlo.convert",
    "stablehlo.compare"})


def integer_width(element_type) -> int | None:
    """Bit width of a signless integer (or index: 64) type, else None."""
    if isinstance(element_type, ir.IndexType):
        return 64
    if isinstance(element_type, ir.IntegerType) and element_type.is_signless:
        return element_type.width
    return None


def wrap_to_width(values: np.ndarray, width: int) -> np.ndarray:
    """Two's-complement wrap of int64 `values` to `width` bits (i1 -> bool),
    an array of the same shape (rank 0 included)."""
    values = np.asarray(values)
    if values.dtype == bool or width == 1:
        return values.astype(bool) if width == 1 else values.astype(np.int64)
    if width >= 64:
        return values.astype(np.int64)
    half = np.int64(1) << np.int64(width - 1)
    # asarray: arithmetic on a rank-0 array gives a numpy scalar
    return np.asarray(((values.astype(np.int64) + half) % (2 * half)) - half)


def _element_width(value: ir.Value) -> int | None:
    return integer_width(ir.ShapedType(value.type).element_type)


def truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed division rounding toward zero (tosa.intdiv, arith.divsi); by 0: any value."""
    quotient = np.abs(a) // np.where(b == 0, 1, np.abs(b))
    return np.where((a < 0) != (b < 0), -quotient, quotient)


def _unsigned(values: np.ndarray, width: int) -> np.ndarray:
    """Signless values read as unsigned integers of `width` bits."""
    values = np.asarray(values).astype(np.int64)
    return values.view(np.uint64) if width >= 64 else values & ((1 << width) - 1)


def _apply(name: str, args: list[np.ndarray], operand_width: int = 64, predicate=None) -> np.ndarray:
    """What op `name` computes from `args` (before the wrap to its result's width)."""
    if name in _UNARY:
        return _UNARY[name](args[0])
    if name in _UNSIGNED_CASTS:
        return _unsigned(args[0], operand_width)
    if name in _SELECTS:
        return np.where(args[0], args[1], args[2])
    if name in _DIVISIONS:
        divisor = np.where(args[1] == 0, 1, args[1])  # division by 0 is undefined: any value
        if name == "arith.floordivsi":
            return np.floor_divide(args[0], divisor)
        if name in ("arith.remsi", "stablehlo.remainder"):  # the dividend's sign, as C's %
            return np.fmod(args[0], divisor)
        return truncating_divide(args[0], divisor)
    if name == "arith.cmpi":
        if predicate in _CMPI:
            return _CMPI[predicate](args[0], args[1])
        return _UNSIGNED_CMPI[predicate](_unsigned(args[0], operand_width), _unsigned(args[1], operand_width))
    if name == "stablehlo.compare":
        return _COMPARE[predicate](args[0], args[1])
    return _BINARY[name](args[0], args[1])


def evaluate_op(name: str, args: list[np.ndarray], width: int, operand_width: int = 64, predicate=None) -> np.ndarray:
    """One TOSA, arith or StableHLO integer op on numpy arrays of values, its
    result wrapped to `width` bits (MLIR's signless two's complement;
    `operand_width`: its first operand's, for unsigned casts and compares;
    `predicate`: arith.cmpi's predicate number or stablehlo.compare's
    direction). NoMatch-free: the caller knows the op (`knows_op`)."""
    result = _apply(name, args, operand_width, predicate)
    if name == "arith.cmpi" or name == "stablehlo.compare":
        return result
    return wrap_to_width(result, width)


def knows_op(name: str, predicate=None) -> bool:
    """Whether `evaluate_op` knows op `name` (with that predicate)."""
    if name == "arith.cmpi":
        return predicate in _CMPI or predicate in _UNSIGNED_CMPI
    if name == "stablehlo.compare":
        return predicate in _COMPARE
    return name in _BINARY or name in _UNARY or name in _UNSIGNED_CASTS or name in _SELECTS or name in _DIVISIONS


def compare_direction(op) -> str | None:
    """A stablehlo.compare's direction (EQ, LT, ...), None for one that
    compares integers wider than i1 unsigned (read as signed, they differ)."""
    from gmx.dialect.mlir import stablehlo

    kind = op.attributes["compare_type"] if "compare_type" in op.attributes else None
    if kind is not None and stablehlo.ComparisonTypeAttr(kind).value == "UNSIGNED" and _element_width(op.operands[0]) != 1:
        return None
    return stablehlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value


def _predicate(op):
    return compare_direction(op) if op.name == "stablehlo.compare" else None


def elementwise_operands(op) -> list[ir.Value] | None:
    """The operands `op` combines elementwise, or None if it isn't such an op
    (an elementwise `linalg.generic`, `elementwise_generic`, is one: its inputs)."""
    if op is not None and op.name == "linalg.generic":
        return list(op.opview.inputs) if elementwise_generic(op) else None
    if op is None or op.name not in ELEMENTWISE:
        return None
    if op.name == "stablehlo.compare" and compare_direction(op) is None:
        return None
    operands = list(op.operands)
    if op.name == "tosa.mul":
        shift = constant_value(operands[2])
        if shift is None or np.any(shift != 0):
            return None
        operands = operands[:2]
    return operands


# --- elementwise linalg.generic: torch-mlir's linalg-on-tensors spelling of tensor arithmetic -----------

_PARALLEL = "#linalg.iterator_type<parallel>"


def elementwise_generic(op) -> bool:
    """Whether `op` is a `linalg.generic` computing integer tensor arithmetic
    elementwise, as torch-mlir's linalg-on-tensors spells `where(i < 0, i + n, i)`:
    one result, every indexing map the identity, every loop parallel, a body
    of arith scalar ops `evaluate_op` knows on the inputs' elements and
    scalar integer constants (defined in the body or in front of the
    generic), the output's element unread."""
    if op is None or op.name != "linalg.generic" or len(op.results) != 1:
        return False
    shape = static_shape_of(op.results[0])
    if shape is None or _element_width(op.results[0]) is None:
        return False
    identity = ir.AffineMap.get_identity(len(shape))
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    if any(m != identity for m in maps) or any(str(t) != _PARALLEL for t in op.attributes["iterator_types"]):
        return False
    block = op.regions[0].blocks[0]
    inputs = len(op.opview.inputs)
    if len(list(block.arguments[inputs].uses)):
        return False
    for inner in block.operations:
        if inner.name == "linalg.yield":
            continue
        if inner.name != "arith.constant" and not (inner.name in ARITH_SCALAR_OPS
                                                   and knows_op(inner.name, _cmpi_predicate(inner))):
            return False
        for operand in inner.operands:
            owner = defining_op(operand)
            inside = operand.owner == block if owner is None else owner.block == block
            if not inside and _scalar_integer(operand) is None:
                return False
    return True


def _cmpi_predicate(op):
    return ir.IntegerAttr(op.attributes["predicate"]).value if op.name == "arith.cmpi" else None


def _scalar_integer(value: ir.Value) -> int | None:
    """The value of a scalar integer `arith.constant`, else None."""
    owner = defining_op(value)
    if owner is None or owner.name != "arith.constant" or not isinstance(owner.attributes["value"], ir.IntegerAttr):
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def _generic_value(op, args: list[np.ndarray]) -> np.ndarray:
    """What an `elementwise_generic` computes from its inputs' values `args`."""
    block = op.regions[0].blocks[0]
    known = {block.arguments[k]: np.asarray(a) for k, a in enumerate(args)}

    def read(value):
        return known[value] if value in known else np.int64(_scalar_integer(value))

    for inner in block.operations:
        if inner.name == "linalg.yield":
            return read(inner.operands[0])
        if inner.name == "arith.constant":
            known[inner.results[0]] = np.int64(_scalar_integer(inner.results[0]))
            continue
        operand_width = integer_width(inner.operands[0].type) or 64
        known[inner.results[0]] = evaluate_op(inner.name, [read(v) for v in inner.operands],
                                              integer_width(inner.results[0].type), operand_width,
                                              _cmpi_predicate(inner))
    raise AssertionError("a linalg.generic body without its yield")


def linear_generic(op) -> list[int] | None:
    """The coefficients `c` of an `elementwise_generic` computing
    `sum(c[k] * input[k])` (its body only `arith.addi` and `arith.muli` by a
    scalar constant: torch-mlir's linearisation `c0 * 5 + c1`, ONNX
    ScatterND's flat index), else None."""
    if not elementwise_generic(op):
        return None
    block = op.regions[0].blocks[0]
    for inner in block.operations:
        if inner.name in ("linalg.yield", "arith.addi"):
            continue
        if inner.name != "arith.muli" or all(_scalar_integer(v) is None for v in inner.operands):
            return None
    inputs = len(op.opview.inputs)
    if _generic_value(op, [np.int64(0)] * inputs) != 0:
        return None
    return [int(_generic_value(op, [np.int64(int(k == j)) for k in range(inputs)])) for j in range(inputs)]


def _combine(op, args: list[np.ndarray]) -> np.ndarray:
    """What elementwise `op` computes from its operands' values (before the wrap to its width)."""
    if op.name == "linalg.generic":
        return _generic_value(op, args)
    return _apply(op.name, args, predicate=_predicate(op))


def _attribute_array(attribute, shape: list[int]) -> np.ndarray | None:
    if not isinstance(attribute, ir.DenseIntElementsAttr):
        return None
    if attribute.is_splat:
        return np.full(shape, np.array(attribute).reshape(-1)[0], dtype=np.int64)
    return np.array(attribute).astype(np.int64).reshape(shape)


def _leaf_constant(op, shape) -> np.ndarray | None:
    if op.name not in ("tosa.const", "tosa.const_shape", "arith.constant", "stablehlo.constant"):
        return None
    attribute = op.attributes["value" if op.name in ("arith.constant", "stablehlo.constant") else "values"]
    stored = resource_integers(op, attribute)  # torch-mlir's literals: arange buffers, torch.tensor([...])
    if stored is not None:
        return stored.reshape(shape)
    return _attribute_array(attribute, shape)


class evaluation_cache:
    """`with evaluation_cache():` memoises `constant_value` for the block.

    Index arithmetic is a DAG whose shared subtrees (iotas, strides) would
    otherwise be evaluated once per path to them. The IR must not change
    inside the block (a pattern's match); nesting keeps the outer cache.
    The cache is per thread: `gmx.runtime` compiles (and so raises) in
    several threads at once."""

    def __enter__(self):
        self._outer = _current_cache()
        if self._outer is None:
            _LOCAL.cache = {}
        return self

    def __exit__(self, *exc):
        _LOCAL.cache = self._outer
        return False


_LOCAL = threading.local()


def _current_cache() -> dict | None:
    """This thread's evaluation cache, or None outside `evaluation_cache`."""
    return getattr(_LOCAL, "cache", None)


def constant_value(value: ir.Value) -> np.ndarray | None:
    """The int64 array `value` always holds, or None if it isn't a known constant."""
    cache = _current_cache()
    if cache is None:
        return _constant_value(value)
    if value not in cache:
        array = _constant_value(value)
        if array is not None:
            array.flags.writeable = False  # shared by every caller
        cache[value] = array
    return cache[value]


def _constant_value(value: ir.Value) -> np.ndarray | None:
    op = defining_op(value)
    if op is not None and op.name == "tosa.const_shape":  # !tosa.shape<n>, not a tensor
        return np.array(op.attributes["values"]).astype(np.int64).reshape(-1)
    shape = static_shape_of(value)
    width = _element_width(value) if isinstance(value.type, ir.ShapedType) else None
    if shape is None or width is None or int(math.prod(shape)) > MAX_EVALUATED_ELEMENTS:
        return None
    if op is None:
        return None  # a block argument
    leaf = _leaf_constant(op, shape)
    if leaf is not None:
        return wrap_to_width(leaf, width)
    source = view_source(value)
    if source is not None:
        inner = constant_value(source)
        return None if inner is None else inner.reshape(shape)
    if op.name == "tosa.tile":
        inner = constant_value(op.operands[0])
        multiples = constant_value(op.operands[1])
        return None if inner is None or multiples is None else np.tile(inner, multiples)
    if op.name == "tosa.slice":  # BERT's position_ids: buffer[:, :T] of an arange buffer
        return _slice_value(op, shape)
    if op.name == "tensor.extract_slice" and len(op.operands) == 1:  # static offsets, sizes, strides
        return _extract_slice_value(op)
    if op.name == "linalg.broadcast":  # what the synthesiser emits for a broadcast index
        inner = constant_value(op.operands[0])
        added = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        return None if inner is None else np.broadcast_to(np.expand_dims(inner, added), shape)
    if op.name.startswith("stablehlo."):
        stablehlo_value = _stablehlo_constant_value(op, shape, width)
        if stablehlo_value is not None:
            return stablehlo_value
    operands = elementwise_operands(op)
    if operands is None:
        return None
    args = [constant_value(v) for v in operands]
    if any(a is None for a in args):
        return None
    return wrap_to_width(np.broadcast_to(_combine(op, args), shape), width)


def _stablehlo_constant_value(op, shape: list[int], width: int) -> np.ndarray | None:
    """The constant a StableHLO view, broadcast, slice, concatenation or iota
    of constants takes (torch-mlir's aranges and position buffers, JAX's
    broadcast scalars); None for any other op."""
    if op.name == "stablehlo.reshape":
        inner = constant_value(op.operands[0])
        return None if inner is None else inner.reshape(shape)
    if op.name == "stablehlo.broadcast_in_dim":
        inner = constant_value(op.operands[0])
        if inner is None:
            return None
        placed = [1] * len(shape)
        for d, size in zip(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]), inner.shape):
            placed[d] = size
        return np.broadcast_to(inner.reshape(placed), shape)
    if op.name == "stablehlo.slice":  # a position_ids buffer[:, :T], as tosa.slice
        inner = constant_value(op.operands[0])
        bounds = zip(*(ir.DenseI64ArrayAttr(op.attributes[n]) for n in ("start_indices", "limit_indices", "strides")))
        return None if inner is None else inner[tuple(slice(*b) for b in bounds)]
    if op.name == "stablehlo.concatenate":  # torch-mlir's coordinate tuples
        pieces = [constant_value(v) for v in op.operands]
        if any(p is None for p in pieces):
            return None
        return np.concatenate(pieces, axis=ir.IntegerAttr(op.attributes["dimension"]).value)
    if op.name in ("stablehlo.iota", "stablehlo.dynamic_iota"):  # static: its shape is the iota's
        dim = ir.IntegerAttr(op.attributes["iota_dimension"]).value
        placed = [size if d == dim else 1 for d, size in enumerate(shape)]
        return wrap_to_width(np.broadcast_to(np.arange(shape[dim], dtype=np.int64).reshape(placed), shape), width)
    return None


def _slice_value(op, shape: list[int]) -> np.ndarray | None:
    """The constant a `tosa.slice` (start, size) of a constant takes."""
    inner, start = constant_value(op.operands[0]), constant_value(op.operands[1])
    if inner is None or start is None:
        return None
    return inner[tuple(slice(b, b + n) for b, n in zip(start, shape))]


def _extract_slice_value(op) -> np.ndarray | None:
    """The constant a static `tensor.extract_slice` of a constant takes (the
    slices simplify-indices emits for iotas, rank-reducing or not)."""
    inner = constant_value(op.operands[0])
    if inner is None:
        return None
    offsets, sizes, strides = (list(ir.DenseI64ArrayAttr(op.attributes[f"static_{n}"])) for n in ("offsets", "sizes", "strides"))
    window = inner[tuple(slice(o, o + n * t, t) for o, n, t in zip(offsets, sizes, strides))]
    return window.reshape(static_shape_of(op.results[0]))


def splat_value(value: ir.Value) -> int | None:
    """The single value a constant tensor holds everywhere, or None."""
    array = constant_value(value)
    if array is None or array.size == 0 or np.any(array != array.reshape(-1)[0]):
        return None
    return int(array.reshape(-1)[0])


def index_function(root: ir.Value, leaf: ir.Value) -> Callable[[np.ndarray], np.ndarray] | None:
    """`f` with root == f(leaf) elementwise, built from splat constants only.

    Returns None when some path from `root` reaches anything other than
    `leaf`, an elementwise op or a splat (single-valued) constant. Memoised
    like `constant_value` inside an `evaluation_cache` block.
    """
    cache = _current_cache()
    if cache is None:
        return _index_function(root, leaf)
    key = ("index_function", root, leaf)
    if key not in cache:
        cache[key] = _index_function(root, leaf)
    return cache[key]


def _index_function(root: ir.Value, leaf: ir.Value) -> Callable[[np.ndarray], np.ndarray] | None:
    if root == leaf:
        return lambda t: t
    width = _element_width(root)
    op = defining_op(root)
    if width is None or op is None:
        return None
    if constant_value(root) is not None:
        scalar = splat_value(root)
        if scalar is None:
            return None
        return lambda t: np.full(np.shape(t), scalar, dtype=np.int64)
    operands = elementwise_operands(op)
    if operands is None:
        return None
    parts = [index_function(v, leaf) for v in operands]
    if any(p is None for p in parts):
        return None
    return lambda t: wrap_to_width(_combine(op, [p(t) for p in parts]), width)


def elementwise_inputs(root: ir.Value) -> list[ir.Value]:
    """The non-constant values feeding `root` through elementwise ops, nearest first."""
    found, frontier = [], [root]
    while frontier:
        value = frontier.pop(0)
        if value != root:
            if constant_value(value) is not None:
                continue
            if value not in found:
                found.append(value)
        op = defining_op(value)
        if op is None:
            continue
        operands = elementwise_operands(op)
        frontier.extend(operands or [])
    return found


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
    wide, narrow = _element_width(op.operands[0]), _element_width(op.results[0])
    return narrow if wide is not None and narrow is not None and narrow < wide else None


def absorption_width(root: ir.Value, leaf: ir.Value) -> int | None:
    """The width (`checked_width`) at which the map from `leaf` to `root` is
    checked: the leaf's, narrowed by each narrowing cast between them whose
    result is only an index of gmx ops. A narrowing cast used otherwise
    too (its truncation may be the program's arithmetic) keeps the leaf's
    width, where the probes see the truncation. None for a non-integer leaf."""
    leaf_width = _element_width(leaf)
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
