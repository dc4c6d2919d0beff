"""Index values known at compile time, evaluated with numpy (each op as
`integer_ops` defines it).

Two uses, both by `--gmx-canonicalize`:

- `constant_value(v)`: the value of an integer tensor computed from constants
  only (`tosa.const`, `arith.constant`, through reshapes, tiles, casts, the
  negative-index `select`, ...). Frontends materialise iota coordinates that
  way; evaluating them tells an iota from a real index tensor.
- `index_function(root, leaf)`: the elementwise integer function that maps
  `leaf` to `root` (splat constants only), e.g. the normalisation
  `select(greater(0, i), add(i, 5), i)`. `index_maps.wraps_like_gmx` then
  decides whether the function is what gmx does anyway on the valid index
  range.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

import numpy as np

from gmx.dialect.mlir import ir

from .integer_ops import combine, compare_direction, element_width, elementwise_generic, wrap_to_width
from ..views import defining_op, static_shape_of, view_source
from ..resources import resource_integers

# Constants larger than this are not evaluated (they would not be iotas a
# frontend emits for a gather we can compile anyway).
MAX_EVALUATED_ELEMENTS = 1 << 24

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
    width = element_width(value) if isinstance(value.type, ir.ShapedType) else None
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
    return wrap_to_width(np.broadcast_to(combine(op, args), shape), width)


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
    width = element_width(root)
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
    return lambda t: wrap_to_width(combine(op, [p(t) for p in parts]), width)


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
