"""Out-of-range modes of `gmx.gather_multiaxis`, in plain Python.

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
                       FILL_OR_DROP).

An axis of size 0 with index values present is an error in every mode but
fill. `RULES` holds, per mode, everything the layers ask of it (does it
report index errors? is an empty axis an error? does every output row read
its slab of the input? the numpy normaliser); the reference, the raising,
the study's variants and the lowering consult it instead of testing mode
names. `normalize_index` is the arithmetic on one value; the numpy
reference and the lowering implement exactly it. A new mode is one `Mode`
member, one row of `RULES`, and its IR in the lowering's builder.
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

    def __str__(self) -> str:
        return self.value


MODES = tuple(m.value for m in Mode)
DEFAULT_MODE = Mode.RAISE


def parse_mode(spelling) -> Mode:
    """The Mode a spelling names (None is the default); ValueError otherwise."""
    if spelling is None:
        return DEFAULT_MODE
    try:
        return Mode(spelling)
    except ValueError:
        raise ValueError(
            f"unknown mode {spelling!r}; expected one of {', '.join(repr(m) for m in MODES)}"
        ) from None


# --- The mode table ---------------------------------------------------------------


def _wrap_negative_once(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """raise and fill: a negative value wrapped once; outside where still not in [0, size)."""
    wrapped = values if values.dtype.kind == "u" else np.where(values < 0, values + size, values)
    return wrapped, (wrapped < 0) | (wrapped >= size)


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
    # An index on an axis of size 0 is an error (fill: every tuple yields the fill value).
    empty_axis_is_error: bool
    # Every output row reads its slab of the input (fill: a row outside yields the fill value).
    reads_every_row: bool
    # The op carries a `fill_value` attribute.
    takes_fill_value: bool
    # (values, size) -> (positions, outside): int64 or uint64 arrays of index
    # values on an axis of `size` > 0 (a uint64 array: unsigned values), their
    # positions and where they stay outside [0, size).
    normalise: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]

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
                        takes_fill_value=True, normalise=_wrap_negative_once),
}


def mode_rule(mode: Mode | str | None) -> ModeRule:
    """The row of `RULES` for `mode` (a Mode, its spelling, or None: the default)."""
    return RULES[parse_mode(mode)]


def normalize_index(value: int, size: int, mode: Mode | str = DEFAULT_MODE) -> int | None:
    """The position index `value` reads on an axis of `size` under `mode`:
    an int in [0, size), or None where fill mode yields the fill value.

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
