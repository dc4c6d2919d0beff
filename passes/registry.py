"""What a gmx pass is, as mlir-opt knows passes (the flags themselves are
listed by `gmx.passes.get_all_passes`).

A gmx pass is a `PassInfo`: the flag (`argument`), a one-line description,
its options, and `add_to(pm, options)` which appends it to a PassManager
(a Python pass, or a pipeline mixing Python and upstream passes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from gmx.dialect.errors import GmxError
from gmx.dialect.mlir import passmanager


class PassOptionError(GmxError, ValueError):
    """An unknown pass option or a malformed option value."""


class PassFailed(GmxError):
    """Raised by a Python pass that emitted its errors (located, through
    `Location.emit_error`): the pass fails, as `signalPassFailure` makes a
    C++ pass fail."""


class Refused(PassFailed):
    """PassFailed for input the pass has no lowering for, its errors saying
    which op and why: a stated limit, not a compiler failure (tools print
    no reproducer for it; see `noting_refusals`)."""


_refusals = threading.local()


@contextmanager
def noting_refusals() -> Iterator[list[str]]:
    """Within the block, each Refused a Python pass raises on this thread
    is noted (its message) in the list yielded."""
    outer = getattr(_refusals, "noted", None)
    _refusals.noted = noted = []
    try:
        yield noted
    finally:
        _refusals.noted = outer


@dataclass(frozen=True)
class PassOption:
    name: str
    default: bool
    description: str


@dataclass(frozen=True)
class PassInfo:
    argument: str
    description: str
    build: Callable[[passmanager.PassManager, Mapping[str, bool]], None]
    options: tuple[PassOption, ...] = field(default=())

    def add_to(self, pm: passmanager.PassManager, options: str = "") -> None:
        """Append this pass, configured by an mlir-opt option string
        (`checked=false other=1`), to `pm`."""
        self.build(pm, self.parse_options(options))

    def add_with(self, pm: passmanager.PassManager, values: Mapping[str, bool]) -> None:
        """Append this pass with option values given as values, not text
        (`{"checked": False}`; the others keep their defaults)."""
        self.build(pm, self.option_values(values))

    def option_values(self, values: Mapping[str, bool]) -> dict[str, bool]:
        """Every option's value: `values`, else its default."""
        complete = {o.name: o.default for o in self.options}
        for name, value in values.items():
            self._require_option(name, complete)
            complete[name] = bool(value)
        return complete

    def spell(self, values: Mapping[str, bool]) -> str:
        """The mlir-opt option text of `values`, defaults left out
        (`checked=false,destinations=true`; empty when all are defaults)."""
        complete = self.option_values(values)
        return ",".join(
            f"{o.name}={str(complete[o.name]).lower()}" for o in self.options if complete[o.name] != o.default
        )

    def parse_options(self, text: str) -> dict[str, bool]:
        values = {o.name: o.default for o in self.options}
        for item in text.replace(",", " ").split():
            name, _, raw = item.partition("=")
            self._require_option(name, values)
            values[name] = _parse_bool(self.argument, name, raw or "true")
        return values

    def _require_option(self, name: str, known: Mapping[str, bool]) -> None:
        if name not in known:
            raise PassOptionError(
                f"'{self.argument}' has no option '{name}' (options: {', '.join(known) or 'none'})"
            )


def _parse_bool(argument: str, name: str, raw: str) -> bool:
    spelled = raw.strip().lower()
    if spelled in ("true", "1", "on"):
        return True
    if spelled in ("false", "0", "off"):
        return False
    raise PassOptionError(f"'{argument}' option '{name}' expects true or false, got '{raw}'")


class Named(Protocol):
    """What names a Python pass in a PassManager (and so in
    --mlir-print-ir-after-all): a PassInfo, or a named step of a pipeline."""

    argument: str
    description: str


def add_python_pass(pm, run: Callable, info: Named) -> None:
    """Add `run(module_op)` to `pm` as a module pass named by `info`; the
    pass fails when `run` raises PassFailed."""

    def python_pass(op, pass_):
        try:
            run(op)
        except PassFailed as failure:
            noted = getattr(_refusals, "noted", None)
            if isinstance(failure, Refused) and noted is not None:
                noted.append(str(failure))
            pass_.signal_pass_failure()

    pm.add(
        python_pass,
        name=info.argument,
        argument=info.argument,
        description=info.description,
    )
