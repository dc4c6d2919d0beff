"""`gmx.scatter_multiaxis`: the inverse of the gather, defined on IRDL.

    %out = "gmx.scatter_multiaxis"(%input, %indices, %updates)
             {axes = array<i64: 1>, reduction = "add"}
             : (tensor<4x5xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x5xf32>

The result starts as `input`; each update is combined (`reduction`:
"none", "add", "mul", "max", "min"; absent is "none") into the position the
gather of the same `input`, `indices` and `axes` would read, in row-major
order of the updates. `updates` has the gather's result shape, a unit dim
broadcasting. `mode` ("raise", "wrap", "clip", "drop", "skip"; absent is "raise")
says what an index outside its axis means; `unique_indices` (a unit
attribute) promises that no two updates share a position.

Semantics: docs/semantics.md#scatters; shape rules `gmx.dialect.shapes`
(the gather's, plus `check_updates_shape`); modes and reductions: the
tables of `gmx.dialect.modes` and `gmx.dialect.reductions`.
"""

# No `from __future__ import annotations`: ext reads the field annotations as types.

from collections.abc import Sequence
from typing import Any

from .gmx import RuleVerified, read_choice, is_index_element_type, mode_violation, shared_violation, static_shape
from .mlir import ext, ir
from .modes import DEFAULT_MODE, MODE_ATTR, Mode, OpKind, parse_mode
from .reductions import (
    DEFAULT_REDUCTION,
    REDUCTION_ATTR,
    REDUCTIONS,
    UNIQUE_INDICES_ATTR,
    Reduction,
    parse_reduction,
    reduction_rule,
)
from .shapes import ShapeError, infer_scatter_shape

SCATTER_OP_NAME = "gmx.scatter_multiaxis"


class ScatterMultiaxisOp(RuleVerified, name="scatter_multiaxis", traits=[ext.Pure]):
    """`result = input` with each update combined into the position the
    gather of the same `input`, `indices` and `axes` reads
    (docs/semantics.md#scatters)."""

    input: ext.Operand[ir.RankedTensorType]
    indices: ext.Operand[ir.RankedTensorType]
    updates: ext.Operand[ir.RankedTensorType]
    # A DenseI64ArrayAttr, checked by the verifier (as the gather's).
    axes: Any
    output: ext.Result[ir.RankedTensorType]

    def _violation(self) -> str | None:
        """The first violated rule as a message, or None when valid."""
        message = shared_violation(self, ("input", "indices", "updates"))
        if message is not None:
            return message
        input_type, updates_type = self.input.type, self.updates.type
        element_type = input_type.element_type
        if updates_type.element_type != element_type:
            return (
                f"updates element type {updates_type.element_type} must match "
                f"input element type {element_type}"
            )
        if self.output.type != input_type:
            return f"result type {self.output.type} must be the input type {input_type}"
        message = (mode_violation(self.attributes, element_type, OpKind.SCATTER)
                   or reduction_violation(self.attributes, element_type)
                   or _unique_indices_violation(self.attributes))
        if message is not None:
            return message
        try:
            infer_scatter_shape(static_shape(input_type), static_shape(self.indices.type),
                                static_shape(updates_type), self.axes_list)
        except ShapeError as error:
            return str(error)
        return None


def _quoted_reductions() -> str:
    return ", ".join(f'"{r}"' for r in REDUCTIONS)


def reduction_violation(attributes, element_type) -> str | None:
    """The first violated rule of the `reduction` attribute, or None."""
    reduction, problem = read_choice(attributes, REDUCTION_ATTR, parse_reduction, _quoted_reductions())
    if reduction is None:
        return problem
    rule = reduction_rule(reduction)
    if not rule.takes_i1 and _is_i1(element_type):
        return f'reduction "{reduction}" is not defined on i1 (use "max" for or, "min" for and)'
    if rule.needs_order and isinstance(element_type, ir.ComplexType):
        return f'reduction "{reduction}" needs ordered elements, got {element_type}'
    return None


def _unique_indices_violation(attributes) -> str | None:
    if UNIQUE_INDICES_ATTR in attributes and not isinstance(attributes[UNIQUE_INDICES_ATTR], ir.UnitAttr):
        return f"attribute 'unique_indices' must be a unit attribute, got {attributes[UNIQUE_INDICES_ATTR]}"
    return None


def _is_i1(element_type) -> bool:
    return isinstance(element_type, ir.IntegerType) and element_type.width == 1


def read_reduction(op) -> Reduction:
    """The reduction of a verified scatter (an OpView or Operation); NONE when absent."""
    attributes = op.attributes
    return parse_reduction(attributes[REDUCTION_ATTR].value if REDUCTION_ATTR in attributes else None)


def has_unique_indices(op) -> bool:
    """Whether a verified scatter promises that no two updates share a position."""
    return UNIQUE_INDICES_ATTR in op.attributes


def scatter_multiaxis(
    input, indices, updates, axes: Sequence[int], *, reduction=None, mode=None,
    unique_indices: bool = False, loc=None, ip=None,
) -> ir.Value:
    """Build a `gmx.scatter_multiaxis`; its result has the input's type.

    `reduction` and `mode` are None or a `Reduction` / `Mode` or its
    spelling; None, "none" and "raise" emit no attribute. Raises
    ShapeError (GatherShapeError or ScatterShapeError) when the operands
    violate a shape rule, ValueError for a bad mode or reduction (a gather
    mode, "add"/"mul" on i1), TypeError for non-integer indices.
    """
    input_type = ir.RankedTensorType(input.type)
    indices_type = ir.RankedTensorType(indices.type)
    if not is_index_element_type(indices_type.element_type):
        raise TypeError(f"indices must be signless integers of 8 to 64 bits, got {indices_type.element_type}")
    infer_scatter_shape(static_shape(input_type), static_shape(indices_type),
                        static_shape(ir.RankedTensorType(updates.type)), axes)
    mode = parse_mode(mode, OpKind.SCATTER)
    reduction = parse_reduction(reduction)
    problem = reduction_violation({REDUCTION_ATTR: ir.StringAttr.get(reduction.value)}, input_type.element_type)
    if problem is not None:
        raise ValueError(problem)
    extra = {}
    if mode is not DEFAULT_MODE:
        extra[MODE_ATTR] = ir.StringAttr.get(mode.value)
    if reduction is not DEFAULT_REDUCTION:
        extra[REDUCTION_ATTR] = ir.StringAttr.get(reduction.value)
    if unique_indices:
        extra[UNIQUE_INDICES_ATTR] = ir.UnitAttr.get()
    op = ScatterMultiaxisOp(input, indices, updates, ir.DenseI64ArrayAttr.get(list(axes)), input_type,
                            loc=loc, ip=ip)
    for name, attr in extra.items():
        op.attributes[name] = attr
    return op.output


def scatter_kwargs(op) -> dict:
    """The mode, reduction and promise of scatter `op` as keyword arguments
    of `scatter_multiaxis`, so a pattern rebuilding it keeps them."""
    mode = parse_mode(op.attributes[MODE_ATTR].value) if MODE_ATTR in op.attributes else Mode.RAISE
    return {"mode": mode, "reduction": read_reduction(op), "unique_indices": has_unique_indices(op)}
