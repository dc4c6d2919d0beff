"""Rewrite patterns written in Python, and the greedy driver that applies them.

A pattern is a `Pattern`: its name (kebab-case, as `--debug-only` and
`GMX_FAIL_PATTERN` spell it), the ops it is rooted at, and a function
`function(op, rewriter)` in the bindings' convention (a truthy return is
"no match"; `rewriter.replace_op` rewrites). Pattern families export a tuple
of them, as upstream's `populate...Patterns` functions fill a pattern set;
a pass composes families and hands them to `apply_patterns`.

Inside a pattern, `require(condition, why)` raises `NoMatch(why)`: the op is
left unchanged and `why` printed under `--debug-only=<debug type>`. Any
other exception is a bug of the pattern: the op is left unchanged too (an
exception must not unwind through the C++ driver) and the failure reported
once the driver has returned, as a located warning, or in strict mode
(`GMX_STRICT`, see `gmx.passes.debug`) a located error that fails the pass.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from gmx.dialect.locations import location_text
from gmx.dialect.mlir import ir, rewrite

from . import debug
from .registry import PassFailed


class NoMatch(Exception):
    """The IR does not have the shape a pattern recognises; nothing is rewritten."""


def require(condition: bool, why: str) -> None:
    """NoMatch, saying `why` (`--debug-only` prints it), unless `condition`."""
    if not condition:
        raise NoMatch(why)


@dataclass(frozen=True)
class Pattern:
    """One rewrite: `function(op, rewriter)` on each op named in `roots`."""

    name: str
    roots: tuple[str, ...]
    function: Callable


def pattern(function: Callable, *roots: str) -> Pattern:
    """The pattern `function` rooted at `roots`, named after the function
    (`raise_tosa_gather` is `raise-tosa-gather`)."""
    return Pattern(function.__name__.replace("_", "-"), tuple(roots), function)


@dataclass(frozen=True)
class PatternFailure:
    """An internal error (a bug) of one pattern on one op, or of the whole
    rewrite (`what` says which)."""

    location: ir.Location
    what: str  # `pattern raise-tosa-gather`, or `the rewrite`
    error: str  # `RuntimeError: what it said`
    outcome: str = "op left unchanged"  # what the user's IR is after it


class _PatternRun:
    """The patterns of one run, adapted to the driver: NoMatch is no match,
    its reason printed under `--debug-only=<debug_type>`; any other exception
    is recorded in `failures`. Either way the op is left unchanged."""

    def __init__(self, debug_type: str, scope: Callable[[], AbstractContextManager]):
        self.debug_type = debug_type
        self.scope = scope
        self.failures: list[PatternFailure] = []
        self.failing = debug.failing_pattern()

    def adapt(self, entry: Pattern) -> Callable:
        name, function = entry.name, entry.function

        def apply(op, rewriter):
            try:
                if name == self.failing:
                    raise RuntimeError(f"injected by {debug.FAIL_PATTERN_ENV}")
                with self.scope():
                    return function(op, rewriter)
            except NoMatch as reason:
                debug.debug(self.debug_type, op.location, f"{name}: no match: {reason}")
                return True
            except Exception as error:  # a bug must not lose the user's IR
                self.failures.append(PatternFailure(op.location, f"pattern {name}", f"{type(error).__name__}: {error}"))
                return True

        apply.__name__ = function.__name__
        return apply


def _report(debug_type: str, failures: list[PatternFailure]) -> None:
    """Each distinct failure once: a located warning, or in strict mode
    (`GMX_STRICT`) a located error that fails the pass."""
    failures = list({(str(f.location), f.what, f.error): f for f in failures}.values())
    if not failures:
        return
    if not debug.strict():
        for failure in failures:
            sys.stderr.write(f"{location_text(failure.location)}: warning: {debug_type}: {failure.what} failed "
                             f"({failure.error}); {failure.outcome}\n")
        return
    for failure in failures:
        failure.location.emit_error(f"{debug_type}: {failure.what} failed ({failure.error}); "
                                    f"an error in strict mode ({debug.STRICT_ENV})")
    raise PassFailed(f"{len(failures)} pattern failure(s)")


def _first_location(module) -> ir.Location:
    """Where a failure of the whole rewrite is reported: the module's first
    op (an implicit module has no location of its own)."""
    for op in module.regions[0].blocks[0].operations:
        return op.location
    return module.location


def apply_patterns(module, patterns: Iterable[Pattern], *, debug_type: str, max_iterations: int,
                   scope: Callable[[], AbstractContextManager] = nullcontext) -> None:
    """Apply `patterns` to `module` with the greedy driver until none applies
    (each pattern call inside `scope()`), with no upstream folds on the
    user's IR (dead ops still go, equal constants merge).

    Raises PassFailed, its errors emitted, when a pattern failed in strict
    mode; the driver's giving up after `max_iterations` rounds (patterns
    that undo each other, a bug) is reported the same way.
    """
    run = _PatternRun(debug_type, scope)
    pattern_set = rewrite.RewritePatternSet()
    for entry in patterns:
        for root in entry.roots:
            pattern_set.add(root, run.adapt(entry))
    config = rewrite.GreedyRewriteConfig()
    config.enable_folding = False
    config.max_iterations = max_iterations
    try:
        rewrite.apply_patterns_and_fold_greedily(module, pattern_set.freeze(), config)
    except RuntimeError as error:  # the driver's one failure: patterns that keep rewriting
        run.failures.append(PatternFailure(_first_location(module), "the rewrite", f"{error} in {max_iterations} iterations",
                                           "the IR is as its last round left it"))
    _report(debug_type, run.failures)
