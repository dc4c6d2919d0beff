"""Developer switches of the gmx passes: strict mode, failure injection and
`-debug-only` output. None of them changes what a pass does to valid IR.

- Strict mode, `GMX_STRICT=1` in the environment: an internal error of a
  `--gmx-canonicalize` pattern fails the pass with a located error (gmx-opt
  exits 1, `PassManager.run` raises `ir.MLIRError`). Without it, users get a
  located warning and the op unchanged. The test suites turn it on
  (`tests/conftest.py`, `lit_tests/lit.cfg.py`): a crashing pattern must fail
  a test run, never pass as "no match".
- Failure injection, for the tests of that path only:
  `GMX_FAIL_PATTERN=<pattern>` (a pattern's name as `--gmx-canonicalize`
  lists it, e.g. `raise-tosa-gather`) makes that pattern raise RuntimeError
  before it looks at its op.
- Debug output, as LLVM's `-debug-only=<type>`: inside `debug_only(types)`
  (`gmx-opt --debug-only=gmx-canonicalize`), `debug(type, location, text)`
  prints `file:line:col: <type>: <text>` on stderr, e.g. why a pattern did
  not match.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from gmx.dialect.locations import location_text

STRICT_ENV = "GMX_STRICT"
FAIL_PATTERN_ENV = "GMX_FAIL_PATTERN"


def switch_is_on(value: str | None) -> bool:
    """An environment switch's value: unset, empty, 0, false and off are off."""
    return value is not None and value.strip().lower() not in ("", "0", "false", "off")


def strict() -> bool:
    """Whether internal errors of patterns fail the pass (read at each call,
    so a test may change the environment)."""
    return switch_is_on(os.environ.get(STRICT_ENV))


def failing_pattern() -> str | None:
    """The pattern `GMX_FAIL_PATTERN` tells to fail, if any."""
    return os.environ.get(FAIL_PATTERN_ENV) or None


# Process-wide, as LLVM's debug types are: a developer's switch, set by a tool
# around its whole run.
_debug_types: frozenset[str] = frozenset()


@contextmanager
def debug_only(types: Iterable[str]) -> Iterator[None]:
    """Within the block, `debug` prints for each of `types` too."""
    global _debug_types
    outer = _debug_types
    _debug_types = outer | frozenset(types)
    try:
        yield
    finally:
        _debug_types = outer


def debug(debug_type: str, location, text: str) -> None:
    """`file:line:col: <debug_type>: <text>` on stderr, if that type is on."""
    if debug_type in _debug_types:
        sys.stderr.write(f"{location_text(location)}: {debug_type}: {text}\n")
