"""Refusing ops a pass cannot take: a located error for each, then the
pass fails (`Refused`), the errors saying which op and why."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gmx.dialect.mlir import ir

from ..registry import Refused


def refuse_each(ops: Iterable[ir.Operation], why: Callable[[ir.Operation], str | None], what: str) -> None:
    """`why(op)` for each op of `ops` in order, its message (if any) a
    located error at the op; Refused("<count> <what>") if there was any.
    `why` may rewrite the op it is given (the next is asked after it)."""
    refused = 0
    for op in ops:
        message = why(op)
        if message is not None:
            op.location.emit_error(message)
            refused += 1
    if refused:
        raise Refused(f"{refused} {what}")
