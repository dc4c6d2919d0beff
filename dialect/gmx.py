"""The `gmx` dialect, defined on IRDL, and its op `gmx.gather_multiaxis`
(its inverse, `gmx.scatter_multiaxis`, is `gmx.dialect.scatter`).

    %out = "gmx.gather_multiaxis"(%input, %indices) {axes = array<i64: 2, 0>}
             : (tensor<4x5x6xf32>, tensor<3x1x2xi64>) -> tensor<3x5x1xf32>

An optional `mode` says what an index outside its axis means (`gmx.dialect.modes`):
`{axes = array<i64: 0>, mode = "fill", fill_value = -7.5 : f32}`; absent is "raise".

Semantics and shape rules: docs/semantics.md and `gmx.dialect.shapes`.
IRDL-defined ops have no properties and print in generic form, so `axes`
lives in the attribute dictionary (`{axes = ...}`, never `<{...}>`).
"""

# No `from __future__ import annotations`: ext reads the field annotations as types.

import threading
from collections.abc import Sequence
from typing import Any

from .mlir import binding_globals, ext, ir, passmanager, register_torch_mlir_dialects, stablehlo
from .modes import DEFAULT_MODE, FILL_VALUE_ATTR, MODE_ATTR, Mode, OpKind, mode_rule, modes_of, parse_mode
from .shapes import GatherShapeError, fmt_shape, infer_output_shape

OP_NAME = "gmx.gather_multiaxis"


class Gmx(ext.Dialect, name="gmx"):
    """Gathers, all of them, as one operator; scatters as its inverse."""


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


class RuleVerified(Gmx.Operation):
    """What both gmx ops share (a base with no name: ext makes no op of it):
    `axes_list`, and a verifier that emits the first rule its op's
    `_violation` finds broken, located at the op."""

    @property
    def axes_list(self) -> list[int]:
        return read_axes(self)

    def verify_invariants(self) -> bool:
        message = self._violation()
        if message is None:
            return True
        self.location.emit_error(f"'{self.OPERATION_NAME}' op {message}")
        return False


class GatherMultiaxisOp(RuleVerified, name="gather_multiaxis", traits=[ext.Pure]):
    """`output[o] = input[p]`, p built from `o` and the coordinate tuples in
    `indices` for the dims listed in `axes` (docs/semantics.md#semantics)."""

    input: ext.Operand[ir.RankedTensorType]
    indices: ext.Operand[ir.RankedTensorType]
    # A DenseI64ArrayAttr; the bindings cannot name that constraint in IRDL,
    # so the verifier checks it and says so precisely.
    axes: Any
    output: ext.Result[ir.RankedTensorType]

    def _violation(self) -> str | None:
        """The first violated rule as a message, or None when valid."""
        message = shared_violation(self, ("input", "indices"))
        if message is not None:
            return message
        input_type, indices_type = self.input.type, self.indices.type
        result_type = self.output.type
        if result_type.element_type != input_type.element_type:
            return (
                f"result element type {result_type.element_type} must match "
                f"input element type {input_type.element_type}"
            )
        if result_type.rank != input_type.rank:
            return (
                f"result rank {result_type.rank} must equal input rank {input_type.rank}"
            )
        mode_message = mode_violation(self.attributes, input_type.element_type, OpKind.GATHER)
        if mode_message is not None:
            return mode_message
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


def shared_violation(op, operand_roles: Sequence[str]) -> str | None:
    """The first violated rule every gmx op shares, or None: its arity
    (`operand_roles` operands, one result), the `axes` attribute, ranked
    tensor operands and result, and the index element type."""
    # An op's hook runs before IRDL's own checks, so arity comes first.
    operation = op.operation
    if len(operation.operands) != len(operand_roles) or len(operation.results) != 1:
        return (
            f"expects {len(operand_roles)} operands ({', '.join(operand_roles)}) and 1 result, got "
            f"{len(operation.operands)} operands and {len(operation.results)} results"
        )
    if "axes" not in op.attributes:
        return "requires attribute 'axes' (a dense i64 array, e.g. {axes = array<i64: 0>})"
    axes_attr = op.attributes["axes"]
    if not isinstance(axes_attr, ir.DenseI64ArrayAttr):
        return f"attribute 'axes' must be a dense i64 array (array<i64: ...>), got {axes_attr}"
    roles = [*operand_roles, "result"]
    for role, value in zip(roles, [*operation.operands, *operation.results]):
        if not isinstance(value.type, ir.RankedTensorType):
            return f"{role} must be a ranked tensor, got {value.type}"
    indices_type = operation.operands[operand_roles.index("indices")].type
    if not is_index_element_type(indices_type.element_type):
        return (
            "indices element type must be a signless integer of 8 to 64 bits, "
            f"got {indices_type.element_type}"
        )
    return None


def _quoted_modes(kind: OpKind) -> str:
    return ", ".join(f'"{m}"' for m in modes_of(kind))


def _fill_example(element_type) -> str:
    zero = "0.0" if isinstance(element_type, ir.FloatType) else "0"
    return f"fill_value = {zero} : {element_type}"


def _is_fillable(element_type) -> bool:
    """Fill mode needs a scalar attribute of the element type: ints and floats."""
    return isinstance(element_type, ir.FloatType) or (
        isinstance(element_type, ir.IntegerType) and element_type.is_signless
    )


def _is_scalar_of(attr, element_type) -> bool:
    return isinstance(attr, ir.FloatAttr | ir.IntegerAttr | ir.BoolAttr) and attr.type == element_type


def read_choice(attributes, name: str, parse, choices: str) -> tuple[object, str | None]:
    """(value, None) of the string attribute `name` (None where absent),
    read by `parse` (ValueError on an unknown spelling), or (None, why it is
    not one of `choices`, their spellings quoted): the mode's and the
    reduction's rule, in one wording."""
    if name not in attributes:
        return None, None
    attr = attributes[name]
    if not isinstance(attr, ir.StringAttr):
        return None, f"attribute '{name}' must be a string, one of {choices}, got {attr}"
    try:
        return parse(attr.value), None
    except ValueError:
        return None, f'unknown {name} "{attr.value}"; expected one of {choices}'


def mode_violation(attributes, element_type, kind: OpKind) -> str | None:
    """The first violated rule of the `mode` / `fill_value` attributes, or None.

    `attributes` is an op's attribute dictionary, `element_type` its input's,
    `kind` the op (the mode table says which modes it takes).
    """
    mode, problem = read_choice(attributes, MODE_ATTR, parse_mode, _quoted_modes(kind))
    if problem is not None:
        return problem
    mode = mode or DEFAULT_MODE  # the default is every op's
    if kind not in mode_rule(mode).ops:
        return f'mode "{mode}" is not a {kind} mode; {kind}s take {_quoted_modes(kind)}'
    has_fill = FILL_VALUE_ATTR in attributes
    if not mode_rule(mode).takes_fill_value:
        if has_fill:
            return f"attribute 'fill_value' is only allowed with mode = \"fill\", got mode \"{mode}\""
        return None
    if not _is_fillable(element_type):
        return f'mode "fill" needs an integer or floating-point element type, got {element_type}'
    if not has_fill:
        return (
            f'mode "fill" requires attribute \'fill_value\' of the element type {element_type} '
            f"(e.g. {_fill_example(element_type)})"
        )
    fill = attributes[FILL_VALUE_ATTR]
    if not _is_scalar_of(fill, element_type):
        return (
            f"attribute 'fill_value' must be a scalar of the element type {element_type} "
            f"(e.g. {_fill_example(element_type)}), got {fill}"
        )
    return None


def read_axes(op) -> list[int]:
    """The axes of a verified gmx op (an OpView or Operation)."""
    return list(ir.DenseI64ArrayAttr(op.attributes["axes"]))


def read_mode(op) -> tuple[Mode, int | float | bool | None]:
    """`(mode, fill_value)` of a verified gmx op (an OpView or Operation):
    the mode (RAISE when absent) and, in fill mode, the fill value as a
    Python number (float, int, or bool for i1), else None."""
    attributes = op.attributes
    mode = parse_mode(attributes[MODE_ATTR].value if MODE_ATTR in attributes else None)
    if not mode_rule(mode).takes_fill_value:
        return mode, None
    return mode, attributes[FILL_VALUE_ATTR].value


def mode_kwargs(op) -> dict:
    """The mode of `op` as keyword arguments of `gather_multiaxis`, so a
    pattern rebuilding a gmx op keeps it: `gather_multiaxis(x, i, axes,
    **mode_kwargs(op))` (the fill value as its attribute, every bit kept)."""
    mode, _ = read_mode(op)
    fill = op.attributes[FILL_VALUE_ATTR] if mode_rule(mode).takes_fill_value else None
    return {"mode": mode, "fill_value": fill}


def fill_value_attr(element_type, fill_value) -> ir.Attribute:
    """`fill_value` (a Python number, or a scalar attribute of the element
    type) as a scalar attribute of `element_type`; ValueError where the
    value does not fit the type."""
    if isinstance(fill_value, ir.Attribute):
        if not (_is_fillable(element_type) and _is_scalar_of(fill_value, element_type)):
            raise ValueError(f"fill_value {fill_value} is not a scalar of the element type {element_type}")
        return fill_value
    if isinstance(element_type, ir.FloatType):
        if isinstance(fill_value, bool) or not isinstance(fill_value, int | float):
            raise ValueError(f"fill_value must be a number for element type {element_type}, got {fill_value!r}")
        return ir.FloatAttr.get(element_type, float(fill_value))
    if not _is_fillable(element_type):
        raise ValueError(f"mode 'fill' needs an integer or floating-point element type, got {element_type}")
    if isinstance(fill_value, float) and fill_value.is_integer():
        fill_value = int(fill_value)
    if not isinstance(fill_value, int):
        raise ValueError(f"fill_value must be an integer for element type {element_type}, got {fill_value!r}")
    width = element_type.width
    if width == 1:
        if fill_value not in (0, 1):
            raise ValueError(f"fill_value must be 0 or 1 (false or true) for i1, got {fill_value!r}")
        return ir.BoolAttr.get(bool(fill_value))
    if not -(1 << (width - 1)) <= fill_value < (1 << width):
        raise ValueError(f"fill_value {fill_value} does not fit {element_type}")
    if fill_value >= 1 << (width - 1):
        fill_value -= 1 << width  # an unsigned spelling of the same bits
    return ir.IntegerAttr.get(element_type, fill_value)


def gather_multiaxis(
    input, indices, axes: Sequence[int], *, mode=None, fill_value=None, loc=None, ip=None
) -> ir.Value:
    """Build a `gmx.gather_multiaxis` with its result type inferred.

    `mode` is None or a `Mode` / its spelling; None and "raise" emit no
    attribute. In "fill" mode `fill_value` (a Python number, typed with the
    element type, or such a scalar attribute) is required. Raises
    GatherShapeError when the operands violate a shape rule, ValueError for
    a bad mode or fill value.
    """
    result_type = infer_result_type(input.type, indices.type, axes)
    mode = parse_mode(mode, OpKind.GATHER)
    takes_fill = mode_rule(mode).takes_fill_value
    if takes_fill and fill_value is None:
        raise ValueError("mode 'fill' requires a fill_value")
    if not takes_fill and fill_value is not None:
        raise ValueError(f"fill_value is only allowed with mode 'fill', got mode {str(mode)!r}")
    extra = {}  # built before the op, so a bad fill value leaves no op behind
    if mode is not DEFAULT_MODE:
        extra[MODE_ATTR] = ir.StringAttr.get(mode.value)
    if takes_fill:
        element_type = ir.RankedTensorType(input.type).element_type
        extra[FILL_VALUE_ATTR] = fill_value_attr(element_type, fill_value)
    axes_attr = ir.DenseI64ArrayAttr.get(list(axes))
    op = GatherMultiaxisOp(input, indices, axes_attr, result_type, loc=loc, ip=ip)
    for name, attr in extra.items():
        op.attributes[name] = attr
    return op.output


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
    """Make StableHLO and CHLO known to `context` (loaded), and its passes
    (`stablehlo-legalize-to-linalg`, ...) to every pipeline parser of the
    process (once: the registry is global)."""
    global _stablehlo_passes_registered
    with _load_lock:
        if not _stablehlo_passes_registered:
            stablehlo.register_stablehlo_passes()
            _stablehlo_passes_registered = True
    stablehlo.register_dialect(context)
    _load_chlo(context)


# A StableHLO pass that depends on CHLO: running it loads the dialect.
_LOADS_CHLO = "builtin.module(stablehlo-compatibility-expander)"


def _load_chlo(context: ir.Context) -> None:
    """Load CHLO (JAX's `chlo.top_k`, ...) into `context`: the wheel
    carries the dialect but exposes no registration of it, so a pass that
    depends on it is run on an empty module."""
    with context, ir.Location.unknown():
        passmanager.PassManager.parse(_LOADS_CHLO).run(ir.Module.create().operation)


def make_context() -> ir.Context:
    """A fresh context with every upstream dialect, StableHLO, torch-mlir's
    (`tm_tensor`) and `gmx` loaded, and StableHLO's and torch-mlir's passes
    registered."""
    context = ir.Context()
    register_stablehlo(context)
    register_torch_mlir_dialects(context)
    load_dialect(context)
    return context
