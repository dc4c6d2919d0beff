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
fill. `normalize_index` is the arithmetic on one value; the numpy reference
and the lowering implement exactly it.
"""

from __future__ import annotations

import enum

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


def normalize_index(value: int, size: int, mode: Mode | str = DEFAULT_MODE) -> int | None:
    """The position index `value` reads on an axis of `size` under `mode`:
    an int in [0, size), or None where fill mode yields the fill value.

    Raises IndexError where the mode makes the value an error (raise mode
    out of range, or an axis of size 0 in any mode but fill).
    """
    mode = parse_mode(mode)
    if mode is Mode.FILL:
        wrapped = value + size if value < 0 else value
        return wrapped if 0 <= wrapped < size else None
    if size == 0:
        raise IndexError(f"index {value} is out of bounds for an axis of size 0 (mode {mode})")
    if mode is Mode.WRAP:
        return value % size  # Python's % is floor modulo
    if mode is Mode.CLIP:
        return min(max(value, 0), size - 1)
    wrapped = value + size if value < 0 else value
    if not 0 <= wrapped < size:
        raise IndexError(f"index {value} is out of bounds for an axis of size {size}")
    return wrapped
