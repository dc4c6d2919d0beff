"""Reductions of `gmx.scatter_multiaxis`, in plain Python.

What a scatter does where an update meets the value already at its
position, stated in an optional string attribute `reduction`
(docs/semantics.md#reductions); absent is "none":

    "none"  the update replaces the value (the last update in row-major
            order wins: numpy's `a[i] = v`);
    "add"   the sum (ONNX "add", torch "sum", `np.add.at`);
    "mul"   the product (ONNX "mul", torch "prod", `np.multiply.at`);
    "max"   the maximum, NaN propagating (ONNX "max", torch "amax",
            `np.maximum.at`);
    "min"   the minimum, NaN propagating (ONNX "min", torch "amin",
            `np.minimum.at`).

Updates meeting at one position are combined in row-major order of the
updates, so results are exact and the same on any number of threads.
`RULES` holds, per reduction, everything the layers ask of it: its numpy
`ufunc` (whose `.at` is the reference), its identity per element type
(what torch's `include_self=False` and an empty segment start from), and
whether `i1` may take it. The reference, the verifier, the raising, the
lowering and the study consult this table, never spellings. A new
reduction is one `Reduction` member, one row of `RULES`, and its combiner
in the lowering.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

REDUCTION_ATTR = "reduction"
UNIQUE_INDICES_ATTR = "unique_indices"


class Reduction(str, enum.Enum):
    """How a scatter combines an update with its position's value; the value is the spelling."""

    NONE = "none"
    ADD = "add"
    MUL = "mul"
    MAX = "max"
    MIN = "min"

    def __str__(self) -> str:
        return self.value


REDUCTIONS = tuple(r.value for r in Reduction)
DEFAULT_REDUCTION = Reduction.NONE


def parse_reduction(spelling) -> Reduction:
    """The Reduction a spelling (or Reduction) names (None is the default);
    ValueError otherwise."""
    if spelling is None:
        return DEFAULT_REDUCTION
    try:
        return Reduction(spelling)
    except ValueError:
        raise ValueError(
            f"unknown reduction {spelling!r}; expected one of {', '.join(repr(r) for r in REDUCTIONS)}"
        ) from None


def _lowest(dtype: np.dtype):
    """The least value of `dtype` (-inf for floats; False for bool)."""
    if dtype.kind == "f" or dtype.kind == "V":  # "V": ml_dtypes' bfloat16 and friends
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _highest(dtype: np.dtype):
    """The greatest value of `dtype` (+inf for floats; True for bool)."""
    if dtype.kind == "f" or dtype.kind == "V":
        return np.inf
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


@dataclass(frozen=True)
class ReductionRule:
    """What one reduction means, as every layer asks it."""

    reduction: Reduction
    # The numpy ufunc whose `.at` applies updates in order; None: assignment.
    ufunc: np.ufunc | None
    # dtype -> the identity of the combiner in that dtype (None: no identity).
    identity: Callable[[np.dtype], object]
    # Whether an i1 (bool) element type may take it (add and mul may not:
    # MLIR's i1 arithmetic wraps, numpy's bool add is `or`; they disagree).
    takes_i1: bool
    # Whether it compares values (max, min): refused on complex element types.
    needs_order: bool = False
    # The lowering's combiner per element kind ("float", "int", "bool",
    # "complex"): the name of the op that builds combine(value, update);
    # a kind absent has none (assignment for "none"; an element type the
    # reduction refuses, or one the lowering cannot build yet).
    combiners: Mapping[str, str] = field(default_factory=dict)
    # Floats of max and min: the `arith.cmpf` predicate of numpy's rule,
    # `a <pred> b or a is NaN ? a : b` (a the value there, b the update),
    # which keeps numpy's bits where arith.maximumf's would differ: the
    # NaN operand itself (not a canonical NaN), and on ties (-0 and +0)
    # the update.
    float_keeps_value_if: str | None = None
    # Whether combining the same updates again changes nothing,
    # combine(combine(v, u), u) == combine(v, u) (none: the last update
    # again; max, min; not add, mul): a donated input that one scatter
    # writes twice holds its first result, bit for bit.
    idempotent: bool = False

    @property
    def combines(self) -> bool:
        """Whether updates meeting a value are combined with it (not replacing it)."""
        return self.ufunc is not None

    def identity_of(self, dtype) -> np.generic | None:
        """The identity as a scalar of `dtype`, or None (for "none")."""
        value = self.identity(np.dtype(dtype))
        return None if value is None else np.array(value).astype(dtype)[()]


RULES: dict[Reduction, ReductionRule] = {
    Reduction.NONE: ReductionRule(Reduction.NONE, ufunc=None, identity=lambda dtype: None, takes_i1=True,
                                   idempotent=True),
    Reduction.ADD: ReductionRule(Reduction.ADD, ufunc=np.add, identity=lambda dtype: 0, takes_i1=False,
                                 combiners={"float": "arith.addf", "int": "arith.addi"}),
    Reduction.MUL: ReductionRule(Reduction.MUL, ufunc=np.multiply, identity=lambda dtype: 1, takes_i1=False,
                                 combiners={"float": "arith.mulf", "int": "arith.muli"}),
    # NaN-propagating on floats (np.maximum's rule); signed on integers; on
    # i1, unsigned (true > false: max is or, min is and).
    Reduction.MAX: ReductionRule(Reduction.MAX, ufunc=np.maximum, identity=_lowest, takes_i1=True, needs_order=True,
                                 combiners={"int": "arith.maxsi", "bool": "arith.maxui"}, float_keeps_value_if="ogt",
                                 idempotent=True),
    Reduction.MIN: ReductionRule(Reduction.MIN, ufunc=np.minimum, identity=_highest, takes_i1=True, needs_order=True,
                                 combiners={"int": "arith.minsi", "bool": "arith.minui"}, float_keeps_value_if="olt",
                                 idempotent=True),
}


def reduction_rule(reduction: Reduction | str | None) -> ReductionRule:
    """The row of `RULES` for `reduction` (a Reduction, its spelling, or None: the default)."""
    return RULES[parse_reduction(reduction)]
