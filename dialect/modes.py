"""Out-of-range modes of `gmx.gather_multiaxis` and `gmx.scatter_multiaxis`,
in plain Python.

Frontends disagree on what an index outside its axis means, so the op states
it in an optional string attribute `mode` (docs/semantics.md#out-of-range-modes):

    "raise"  (absent)  a negative value wraps once (v + size); a value still
                       outside [0, size) is an error;
    "wrap"             floor modulo of the axis size (numpy take(mode='wrap'),
                       torch.take_along_dim);
    "clip"             clamp to [0, size - 1] (numpy take(mode='clip'),
                       StableHLO's clamp);
    "fill"             a negative value wraps once; a value still outside
                       [0, size) yields the `fill_value` attribute (JAX's
                       FILL_OR_DROP); gathers only;
    "drop"             a negative value wraps once; an update whose position
                       is still outside is skipped (JAX's FILL_OR_DROP for
                       scatters); scatters only;
    "skip"             an update whose value is outside [0, size) is
                       skipped, a negative one too (StableHLO's rule for
                       scatters); scatters only.

An axis of size 0 with index values present is an error in every mode but
fill, drop and skip. `RULES` holds, per mode, everything the layers ask of it (does it
report index errors? is an empty axis an error? does every output row read
its slab of the input? the numpy normaliser); the reference, the raising,
the study's variants and the lowering consult it instead of testing mode
names. `normalize_index` is the arithmetic on one value; the numpy
reference and the lowering implement exactly it. A new mode is one `Mode`
member, one row of `RULES` (with the ops that take it), and its IR in the
lowering's builders.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MODE_ATTR = "mode"
FILL_VALUE_ATTR = "fill_value"


class Mode(str, enum.Enum):
    """What an index value outside its axis means; the value is the spelling."""

    RAISE = "raise"
    WRAP = "wrap"
    CLIP = "clip"
    FILL = "fill"
    DROP = "drop"
    SKIP = "skip"

    def __str__(self) -> str:
        return self.value


class OpKind(str, enum.Enum):
    """The two gmx ops, as the mode and reduction tables name them."""

    GATHER = "gather"
    SCATTER = "scatter"

    def __str__(self) -> str:
        return self.value


MODES = tuple(m.value for m in Mode)
DEFAULT_MODE = Mode.RAISE


def parse_mode(spelling, kind: OpKind | None = None) -> Mode:
    """The Mode a spelling (or Mode) names (None is the default); ValueError
    for an unknown spelling, or, with `kind`, for a mode that op does not take."""
    known = MODES if kind is None else modes_of(kind)
    if spelling is None:
        return DEFAULT_MODE
    try:
        mode = Mode(spelling)
    except ValueError:
        raise ValueError(
            f"unknown mode {spelling!r}; expected one of {', '.join(repr(m) for m in known)}"
        ) from None
    if kind is not None and kind not in RULES[mode].ops:
        raise ValueError(
            f"mode {mode.value!r} is not a {kind} mode; {kind}s take {', '.join(repr(m) for m in known)}"
        )
    return mode


def modes_of(kind: OpKind) -> tuple[str, ...]:
    """The spellings of the modes `kind` takes, in table order."""
    return tuple(m.value for m, rule in RULES.items() if kind in rule.ops)


# --- The mode table ---------------------------------------------------------------


def _wrap_negative_once(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """raise and fill: a negative value wrapped once; outside where still not in [0, size)."""
    wrapped = values if values.dtype.kind == "u" else np.where(values < 0, values + size, values)
    return wrapped, (wrapped < 0) | (wrapped >= size)


def _as_they_are(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """skip: each value its own position; outside where not in [0, size)."""
    outside = values >= size if values.dtype.kind == "u" else (values < 0) | (values >= size)
    return values, outside


def _floor_modulo(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """wrap: floor modulo of the size (never outside)."""
    divisor = np.uint64(size) if values.dtype.kind == "u" else size
    return np.mod(values, divisor), np.zeros(values.shape, bool)


def _clamp(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """clip: clamped to [0, size - 1] (never outside)."""
    if values.dtype.kind == "u":
        return np.minimum(values, np.uint64(size - 1)), np.zeros(values.shape, bool)
    return np.clip(values, 0, size - 1), np.zeros(values.shape, bool)


@dataclass(frozen=True)
class ModeRule:
    """What one mode means, as every layer asks it."""

    mode: Mode
    # A value outside its axis (after `normalise`) is a run-time error.
    reports_index_errors: bool
    # An index on an axis of size 0 is an error (fill: every tuple yields the
    # fill value; drop: every update is skipped).
    empty_axis_is_error: bool
    # Every output row reads (a scatter: every update writes) its slab of the
    # input (fill: a row outside yields the fill value; drop: it is skipped).
    reads_every_row: bool
    # The op carries a `fill_value` attribute.
    takes_fill_value: bool
    # (values, size) -> (positions, outside): int64 or uint64 arrays of index
    # values on an axis of `size` > 0 (a uint64 array: unsigned values), their
    # positions and where they stay outside [0, size).
    normalise: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]
    # The ops that take this mode.
    ops: frozenset = frozenset(OpKind)
    # A negative value is wrapped once (v + size) before it is tested
    # (raise, fill, drop); skip tests it as it is. wrap and clip map every
    # value themselves.
    wraps_negative_once: bool = True

    @property
    def maps_into_range(self) -> bool:
        """Whether every value maps to a position in range (wrap, clip)."""
        return not self.reports_index_errors and self.reads_every_row


RULES: dict[Mode, ModeRule] = {
    Mode.RAISE: ModeRule(Mode.RAISE, reports_index_errors=True, empty_axis_is_error=True, reads_every_row=True,
                         takes_fill_value=False, normalise=_wrap_negative_once),
    Mode.WRAP: ModeRule(Mode.WRAP, reports_index_errors=False, empty_axis_is_error=True, reads_every_row=True,
                        takes_fill_value=False, normalise=_floor_modulo),
    Mode.CLIP: ModeRule(Mode.CLIP, reports_index_errors=False, empty_axis_is_error=True, reads_every_row=True,
                        takes_fill_value=False, normalise=_clamp),
    Mode.FILL: ModeRule(Mode.FILL, reports_index_errors=False, empty_axis_is_error=False, reads_every_row=False,
                        takes_fill_value=True, normalise=_wrap_negative_once, ops=frozenset({OpKind.GATHER})),
    Mode.DROP: ModeRule(Mode.DROP, reports_index_errors=False, empty_axis_is_error=False, reads_every_row=False,
                        takes_fill_value=False, normalise=_wrap_negative_once, ops=frozenset({OpKind.SCATTER})),
    Mode.SKIP: ModeRule(Mode.SKIP, reports_index_errors=False, empty_axis_is_error=False, reads_every_row=False,
                        takes_fill_value=False, normalise=_as_they_are, ops=frozenset({OpKind.SCATTER}),
                        wraps_negative_once=False),
}


def mode_rule(mode: Mode | str | None) -> ModeRule:
    """The row of `RULES` for `mode` (a Mode, its spelling, or None: the default)."""
    return RULES[parse_mode(mode)]


def normalize_index(value: int, size: int, mode: Mode | str = DEFAULT_MODE) -> int | None:
    """The position index `value` reads (or writes) on an axis of `size`
    under `mode`: an int in [0, size), or None where fill mode yields the
    fill value (drop and skip modes skip the update).

    Raises IndexError where the mode makes the value an error (raise mode
    out of range, or an axis of size 0 in any mode but fill).
    """
    mode = parse_mode(mode)
    rule = RULES[mode]
    if size == 0 and rule.empty_axis_is_error:
        raise IndexError(f"index {value} is out of bounds for an axis of size 0 (mode {mode})")
    positions, outside = rule.normalise(np.array([value], np.int64), size)
    if not outside[0]:
        return int(positions[0])
    if rule.reports_index_errors:
        raise IndexError(f"index {value} is out of bounds for an axis of size {size}")
    return None
