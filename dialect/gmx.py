"""The `gmx` dialect: one op, `gmx.gather_multiaxis`, defined on IRDL.

    %out = "gmx.gather_multiaxis"(%input, %indices) {axes = array<i64: 2, 0>}
             : (tensor<4x5x6xf32>, tensor<3x1x2xi64>) -> tensor<3x5x1xf32>

Semantics and shape rules: docs/semantics.md and `gmx.dialect.shapes`.
IRDL-defined ops have no properties and print in generic form, so `axes`
lives in the attribute dictionary (`{axes = ...}`, never `<{...}>`).
"""

# No `from __future__ import annotations`: ext reads the field annotations as types.

import threading
from collections.abc import Sequence
from typing import Any

from .mlir import binding_globals, ext, ir, stablehlo
from .shapes import GatherShapeError, fmt_shape, infer_output_shape

OP_NAME = "gmx.gather_multiaxis"


class Gmx(ext.Dialect, name="gmx"):
    """Gathers, all of them, as one operator."""


def static_shape(shaped_type) -> list:
    """An MLIR shaped type's shape with dynamic dims as None."""
    return [None if ir.ShapedType.is_dynamic_size(d) else d for d in shaped_type.shape]


def mlir_shape(shape: Sequence) -> list[int]:
    """The inverse of static_shape: None becomes MLIR's dynamic size."""
    dynamic = ir.ShapedType.get_dynamic_size()
    return [dynamic if d is None else d for d in shape]


def is_index_element_type(t: ir.Type) -> bool:
    """Index values are signless integers of 8 to 64 bits."""
    return isinstance(t, ir.IntegerType) and t.is_signless and 8 <= t.width <= 64


def infer_result_type(input_type, indices_type, axes: Sequence[int]):
    """The result type of a gather; raises GatherShapeError on a rule violation."""
    input_type = ir.RankedTensorType(input_type)
    indices_type = ir.RankedTensorType(indices_type)
    shape = infer_output_shape(static_shape(input_type), static_shape(indices_type), axes)
    return ir.RankedTensorType.get(
        mlir_shape(shape), input_type.element_type, loc=ir.Location.unknown()
    )


class GatherMultiaxisOp(Gmx.Operation, name="gather_multiaxis", traits=[ext.Pure]):
    """`output[o] = input[p]`, p built from `o` and the coordinate tuples in
    `indices` for the dims listed in `axes` (docs/semantics.md#semantics)."""

    input: ext.Operand[ir.RankedTensorType]
    indices: ext.Operand[ir.RankedTensorType]
    # A DenseI64ArrayAttr; the bindings cannot name that constraint in IRDL,
    # so the verifier checks it and says so precisely.
    axes: Any
    output: ext.Result[ir.RankedTensorType]

    @property
    def axes_list(self) -> list[int]:
        return list(ir.DenseI64ArrayAttr(self.attributes["axes"]))

    def verify_invariants(self) -> bool:
        message = self._violation()
        if message is None:
            return True
        self.location.emit_error(f"'{OP_NAME}' op {message}")
        return False

    def _violation(self) -> str | None:
        """The first violated rule as a message, or None when valid."""
        # This hook runs before IRDL's own checks, so arity comes first.
        operation = self.operation
        if len(operation.operands) != 2 or len(operation.results) != 1:
            return (
                "expects 2 operands (input, indices) and 1 result, got "
                f"{len(operation.operands)} operands and {len(operation.results)} results"
            )
        if "axes" not in self.attributes:
            return "requires attribute 'axes' (a dense i64 array, e.g. {axes = array<i64: 0>})"
        axes_attr = self.attributes["axes"]
        if not isinstance(axes_attr, ir.DenseI64ArrayAttr):
            return f"attribute 'axes' must be a dense i64 array (array<i64: ...>), got {axes_attr}"
        input_type, indices_type = self.input.type, self.indices.type
        result_type = self.output.type
        for role, t in (("input", input_type), ("indices", indices_type), ("result", result_type)):
            if not isinstance(t, ir.RankedTensorType):
                return f"{role} must be a ranked tensor, got {t}"
        if not is_index_element_type(indices_type.element_type):
            return (
                "indices element type must be a signless integer of 8 to 64 bits, "
                f"got {indices_type.element_type}"
            )
        if result_type.element_type != input_type.element_type:
            return (
                f"result element type {result_type.element_type} must match "
                f"input element type {input_type.element_type}"
            )
        if result_type.rank != input_type.rank:
            return (
                f"result rank {result_type.rank} must equal input rank {input_type.rank}"
            )
        try:
            inferred = infer_result_type(input_type, indices_type, self.axes_list)
        except GatherShapeError as error:
            return str(error)
        if inferred != result_type:
            return (
                f"result type {result_type} does not match the inferred type {inferred} "
                f"(input {fmt_shape(static_shape(input_type))}, indices "
                f"{fmt_shape(static_shape(indices_type))}, axes {self.axes_list})"
            )
        return None


def gather_multiaxis(input, indices, axes: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    """Build a `gmx.gather_multiaxis` with its result type inferred.

    Raises GatherShapeError when the operands violate a rule.
    """
    result_type = infer_result_type(input.type, indices.type, axes)
    axes_attr = ir.DenseI64ArrayAttr.get(list(axes))
    return GatherMultiaxisOp(input, indices, axes_attr, result_type, loc=loc, ip=ip).output


# The bindings look up the Python class of an op by importing
# `<search prefix>.<dialect namespace>`, and only remember successes: with no
# importable `...gmx` module, every gmx op a pass touched cost a failed import
# (a sizeable part of gmx-canonicalize's time). This module is that module.
_SEARCH_PREFIX = __name__.rpartition(".")[0]


def _make_module_importable() -> None:
    if _SEARCH_PREFIX not in binding_globals.dialect_search_modules:
        binding_globals.append_dialect_search_prefix(_SEARCH_PREFIX)


# `Gmx.load` is not thread-safe: it keeps the IRDL module it loads in the
# class attribute `_mlir_module`, which a concurrent load replaces (and so
# frees) while the first is still loading it, and it re-registers the op's
# Python class process-wide (as `_make_module_importable` registers a search
# prefix once). Loads take turns; once loaded, a dialect needs
# nothing from that module (its verifiers hold only context-owned
# attributes), so a later load replacing it is harmless.
_load_lock = threading.Lock()


def load_dialect(context: ir.Context | None = None) -> None:
    """Make `gmx` known to `context` (default: the current one); idempotent
    and safe to call from several threads at once."""
    context = context or ir.Context.current
    with _load_lock:
        _make_module_importable()
        if not context.is_dialect_loaded(Gmx.DIALECT_NAMESPACE):
            with context:
                Gmx.load()


_stablehlo_passes_registered = False


def register_stablehlo(context: ir.Context) -> None:
    """Make StableHLO known to `context` (its dialect loaded), and its passes
    (`stablehlo-legalize-to-linalg`, ...) to every pipeline parser of the
    process (once: the registry is global)."""
    global _stablehlo_passes_registered
    with _load_lock:
        if not _stablehlo_passes_registered:
            stablehlo.register_stablehlo_passes()
            _stablehlo_passes_registered = True
    stablehlo.register_dialect(context)


def make_context() -> ir.Context:
    """A fresh context with every upstream dialect, StableHLO and `gmx`
    loaded, and StableHLO's passes registered."""
    context = ir.Context()
    register_stablehlo(context)
    load_dialect(context)
    return context
