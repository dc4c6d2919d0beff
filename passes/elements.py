"""One pipeline element, a pass flag with its options (`cse`,
`convert-gmx-to-linalg{checked=false}`), added to a PassManager: a gmx pass
by its PassInfo, anything else through the upstream pipeline parser.

Which flags are gmx passes is the caller's to say (`find_gmx_pass`): tools
use every pass (`pipeline`), a pass composing others (`--gmx-lower-to-llvm`)
names its parts, so that no pass depends on the list of all passes.
"""

from __future__ import annotations

from collections.abc import Callable

from gmx.dialect.errors import GmxError
from gmx.dialect.mlir import passmanager

from .registry import PassInfo


class PipelineError(GmxError, ValueError):
    """An unknown pass, a bad option or a malformed pipeline."""


class UnknownPass(PipelineError):
    """An element no pass or pipeline answers to; `name` is its flag name
    (what a tool may suggest a near miss for)."""

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.name = name


def _split_element(element: str) -> tuple[str, str]:
    """`name{opts}` -> (name, opts); `name` -> (name, '')."""
    name, brace, rest = element.partition("{")
    if brace and not rest.endswith("}"):
        raise PipelineError(f"malformed pass options in '{element}'")
    return name.strip(), rest[:-1] if brace else ""


def _upstream_element(element: str) -> str:
    """The element as it parses under builtin.module, nesting function
    passes into func.func as mlir-opt's implicit nesting does."""
    for candidate in (element, f"func.func({element})"):
        try:
            passmanager.PassManager.parse(f"builtin.module({candidate})")
            return candidate
        except ValueError:
            continue
    raise UnknownPass(f"unknown pass or malformed pipeline element '{element}'", _split_element(element)[0])


def add_element(
    pm: passmanager.PassManager, element: str, find_gmx_pass: Callable[[str], PassInfo | None]
) -> None:
    """Append `element` to pm: the gmx pass `find_gmx_pass(flag)` names, or
    else the upstream pass. Raises PipelineError."""
    name, options = _split_element(element)
    gmx_pass = find_gmx_pass(name)
    if gmx_pass is None:
        pm.add(_upstream_element(element))
        return
    try:
        gmx_pass.add_to(pm, options)
    except ValueError as error:
        raise PipelineError(str(error)) from None
