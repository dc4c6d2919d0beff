"""What a run-time error the compiled code reported says, on every backend.

The engine's compiled code reports through callbacks (`runtime_abi`), IREE's
through report results (`gmx.passes.lowering.iree_reports`); both hand the
reports here, so that the same bad input raises the same exception with the
same message whichever backend ran it:

    shape errors  (site, dim, input size, indices size), `dim` < 0 one of
                  runtime_abi's SHAPE_ERROR_* kinds
    index errors  (site, axis, value, size)

`sites` holds the `file:line:col` of each gather by site number.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmx.passes.lowering.runtime_abi import (
    SHAPE_ERROR_ASSERT,
    SHAPE_ERROR_EMPTY_AXIS,
    SHAPE_ERROR_NOT_DIVISIBLE,
    SHAPE_ERROR_SCATTER_ROWS,
)


def site_text(sites: Sequence[str], site: int) -> str:
    return sites[site] if 0 <= site < len(sites) else "<unknown>"


def raise_reported(
    sites: Sequence[str], shape_errors: Sequence[tuple], index_errors: Sequence[tuple],
    assert_messages: Sequence[str] = (), index_count: int | None = None,
) -> None:
    """Raise the first error reported, if any: a shape error before any
    index error (a failed cf.assert's by its number in `assert_messages`);
    an IndexError names the first bad index reported and how many were
    (`index_count`, by default every one in `index_errors`)."""
    if shape_errors:
        site, dim, a, b = shape_errors[0]
        if dim == SHAPE_ERROR_EMPTY_AXIS:
            raise IndexError(f"{site_text(sites, site)}: axis {a} has size {b}: every index into it is out of bounds")
        raise ValueError(shape_error_message(sites, site, dim, a, b, assert_messages))
    if index_errors:
        site, axis, value, size = index_errors[0]
        count = len(index_errors) if index_count is None else index_count
        more = f" ({count} indices out of bounds)" if count > 1 else ""
        raise IndexError(
            f"{site_text(sites, site)}: index {value} is out of bounds for axis {axis} with size {size}{more}"
        )


def shape_error_message(
    sites: Sequence[str], site: int, dim: int, a: int, b: int, assert_messages: Sequence[str] = ()
) -> str:
    where = site_text(sites, site)
    if dim == SHAPE_ERROR_ASSERT:
        return f"{where}: {assert_messages[a]}"
    if dim == SHAPE_ERROR_NOT_DIVISIBLE:
        return f"{where}: indices last dim {a} is not a multiple of the coordinate size {b}"
    if dim == SHAPE_ERROR_SCATTER_ROWS:
        return f"{where}: an updates dim of size {a} is written into a dim of size {b} of the original"
    return (
        f"{where}: non-axis dim {dim} is not broadcastable at run time: "
        f"input has size {a}, logical indices have size {b}"
    )
