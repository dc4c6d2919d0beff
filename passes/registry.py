"""What a gmx pass is, as mlir-opt knows passes (the flags themselves are
listed by `gmx.passes.get_all_passes`).

A gmx pass is a `PassInfo`: the flag (`argument`), a one-line description,
its options, and `add_to(pm, options)` which appends it to a PassManager
(a Python pass, or a pipeline mixing Python and upstream passes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from gmx.dialect.errors import GmxError
from gmx.dialect.mlir import passmanager


class PassOptionError(GmxError, ValueError):
    """An unknown pass option or a malformed option value."""


class PassFailed(GmxError):
    """Raised by a Python pass that emitted its errors (located, through
    `Location.emit_error`): the pass fails, as `signalPassFailure` makes a
    C++ pass fail."""


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

    def parse_options(self, text: str) -> dict[str, bool]:
        values = {o.name: o.default for o in self.options}
        for item in text.replace(",", " ").split():
            name, _, raw = item.partition("=")
            if name not in values:
                known = ", ".join(values) or "none"
                raise PassOptionError(
                    f"'{self.argument}' has no option '{name}' (options: {known})"
                )
            values[name] = _parse_bool(self.argument, name, raw or "true")
        return values


def _parse_bool(argument: str, name: str, raw: str) -> bool:
    spelled = raw.strip().lower()
    if spelled in ("true", "1", "on"):
        return True
    if spelled in ("false", "0", "off"):
        return False
    raise PassOptionError(f"'{argument}' option '{name}' expects true or false, got '{raw}'")


def add_python_pass(pm, run: Callable, info: PassInfo) -> None:
    """Add `run(module_op)` to `pm` as a module pass named by `info`; the
    pass fails when `run` raises PassFailed."""

    def python_pass(op, pass_):
        try:
            run(op)
        except PassFailed:
            pass_.signal_pass_failure()

    pm.add(
        python_pass,
        name=info.argument,
        argument=info.argument,
        description=info.description,
    )
