"""`compile(..., donate=(k, ...))`: results written into the caller's arrays.

    program = compile(asm, donate=(0,))       # argument #0 is donated
    cache = program(cache, token, pos)         # `cache` itself, updated

Which result takes which donated argument is decided once, at compile
time, by `runtime_abi.pair_donations` on the entry's MLIR types (each
result the first donated argument of its type not taken yet, as JAX pairs
`donate_argnums`); every donated argument must be taken. Both backends
call these checks: the same refusals, with the same messages, before any
work (a DonationError, a ValueError; a DonatedTypeError, a TypeError, for
what is no array of the right dtype).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gmx.passes.lowering.runtime_abi import NOT_DONATED, pair_donations

from .entry import TensorSignature
from .errors import DonatedTypeError, DonationError


def check_donate(donate) -> tuple[int, ...]:
    """`donate` as the cache key has it: its argument indices, sorted.
    TypeError for anything but a tuple or list of ints; DonationError for
    a negative or repeated index."""
    if not isinstance(donate, (tuple, list)) or not all(
        isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) for k in donate
    ):
        raise TypeError(f"donate must be a tuple of argument indices, such as (0,), got {donate!r}")
    indices = [int(k) for k in donate]
    if any(k < 0 for k in indices):
        raise DonationError(f"donate={tuple(indices)}: argument indices are counted from 0, got a negative one")
    if len(set(indices)) != len(indices):
        raise DonationError(f"donate={tuple(indices)} names an argument twice")
    return tuple(sorted(indices))


def entry_donations(entry: str, arguments: Sequence[TensorSignature], results: Sequence[TensorSignature],
                    donate: tuple[int, ...]) -> tuple[int, ...]:
    """For each result of @entry, the donated argument it is written into
    (NOT_DONATED: none); DonationError when `donate` names an argument
    the entry does not have, one of dynamic shape, or one no result takes."""
    if not donate:
        return (NOT_DONATED,) * len(results)
    out_of_range = [k for k in donate if k >= len(arguments)]
    if out_of_range:
        raise DonationError(f"donate names argument #{out_of_range[0]}, @{entry} takes {len(arguments)} arguments")
    dynamic = [i for i, s in enumerate(arguments) if None in s.shape] + [i for i, s in enumerate(results) if None in s.shape]
    if dynamic:
        raise DonationError(
            f"@{entry} has a dynamic shape ({_signature(arguments, results)}): donation needs arguments and "
            "results of static shape"
        )
    pairs = pair_donations([s.type for s in arguments], [s.type for s in results], donate)
    untaken = [k for k in donate if k not in pairs]
    if untaken:
        k = untaken[0]
        raise DonationError(
            f"donated argument #{k} of @{entry} ({arguments[k].type}) is taken by no result "
            f"({_signature(arguments, results)}): a result must have exactly its type"
        )
    return pairs


def _signature(arguments, results) -> str:
    return f"({', '.join(s.type for s in arguments)}) -> ({', '.join(s.type for s in results)})"


def check_donated_argument(entry: str, i: int, array, sig: TensorSignature) -> np.ndarray:
    """Donated argument #i of @entry, which a result is written into: a
    writable, C-contiguous numpy array of exactly its dtype and shape
    (never copied: a copy would not be the caller's array)."""
    what = f"donated argument #{i} of @{entry}"
    if not isinstance(array, np.ndarray):
        raise DonatedTypeError(f"{what} must be a numpy array ({sig.describe()}) to write into, got {type(array).__name__}")
    if array.dtype != sig.dtype:
        raise DonatedTypeError(f"{what} must be {sig.describe()}, got dtype {array.dtype}")
    if array.shape != sig.shape:
        raise DonationError(f"{what} must be {sig.describe()}, got shape {list(array.shape)}")
    if not array.flags.writeable:
        raise DonationError(f"{what} is read-only: the result is written into it")
    if not array.flags.c_contiguous:
        raise DonationError(f"{what} is not C-contiguous: the result is written into it in place (pass a copy)")
    return array


def check_unaliased(entry: str, arrays: Sequence[np.ndarray], donated: Sequence[int]) -> None:
    """No donated array shares memory with another argument as passed to
    the compiled code (the donated buffer is written while the others are
    read: both are `noalias`, `runtime_abi`)."""
    for k in donated:
        for j, other in enumerate(arrays):
            if j != k and other.size and arrays[k].size and np.may_share_memory(arrays[k], other):
                raise DonationError(
                    f"donated argument #{k} of @{entry} shares memory with argument #{j}: the result is written "
                    "into it while the other is read"
                )
