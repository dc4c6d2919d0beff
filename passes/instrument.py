"""What a tool asks of every PassManager run on its behalf: mlir-opt's
general options (IR dumps, timing, statistics, verify-each), applied also
to pass managers the tool does not build itself (gmx.runtime's lowering,
which `gmx-run` drives).

A tool sets an `Instrumentation` around its whole run
(`with instrumenting(options): ...`); whoever runs a PassManager for it
runs it as

    with running(pm):
        pm.run(module.operation)

Process-wide, as LLVM's command-line options are: a tool's switch, set
once around its run; with none set, `running` changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Protocol

from gmx.dialect.mlir import passmanager


class Instrumentation(Protocol):
    def running(self, pm: passmanager.PassManager) -> AbstractContextManager:
        """Configure `pm` before it runs; the context lasts the run."""


_current: Instrumentation | None = None


@contextmanager
def instrumenting(instrumentation: Instrumentation) -> Iterator[None]:
    """Within the block, every `running(pm)` applies `instrumentation`."""
    global _current
    outer = _current
    _current = instrumentation
    try:
        yield
    finally:
        _current = outer


def running(pm: passmanager.PassManager) -> AbstractContextManager:
    """The context to run `pm` in: the current instrumentation's, if any."""
    return nullcontext() if _current is None else _current.running(pm)
