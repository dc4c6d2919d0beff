"""Build a PassManager from mlir-opt style pass flags or a textual pipeline.

Textual pipelines of this MLIR build cannot name Python passes, so gmx
composes its own: gmx passes come from the registry, every other element is
handed to the upstream pipeline parser, in command-line order.

    --canonicalize --convert-gmx-to-linalg=checked=false --cse
    --pass-pipeline='builtin.module(convert-gmx-to-linalg, func.func(cse))'
"""

from __future__ import annotations

from collections.abc import Iterable

from gmx.dialect.mlir import passmanager

from . import get_pass


class PipelineError(ValueError):
    """An unknown pass, a bad option or a malformed pipeline."""


def split_top_level(text: str, separator: str = ",") -> list[str]:
    """Split on `separator` outside (), {} and quotes."""
    parts, depth, quote, current = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == separator and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


_OPENING = {")": "(", "}": "{"}


def bracket_error(text: str) -> str | None:
    """What is wrong with the nesting of () and {} in `text` (outside
    quotes), or None when they balance."""
    stack, quote = [], None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "({":
            stack.append(ch)
        elif ch in ")}" and (not stack or stack.pop() != _OPENING[ch]):
            return f"unbalanced '{ch}'"
    return f"'{stack[-1]}' is never closed" if stack else None


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
    raise PipelineError(f"unknown pass or malformed pipeline element '{element}'")


def add_element(pm: passmanager.PassManager, element: str) -> None:
    """Append one pipeline element (a gmx pass or anything upstream) to pm."""
    name, options = _split_element(element)
    gmx_pass = get_pass(name)
    if gmx_pass is None:
        pm.add(_upstream_element(element))
        return
    try:
        gmx_pass.add_to(pm, options)
    except ValueError as error:
        raise PipelineError(str(error)) from None


def pipeline_elements(pipeline: str) -> list[str]:
    """The top-level elements of `builtin.module(...)` (or of a bare list)."""
    text = pipeline.strip()
    problem = bracket_error(text)
    if problem is not None:
        raise PipelineError(f"malformed pass pipeline '{pipeline}': {problem}")
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module(") : -1]
    elif text.startswith("builtin.module"):
        raise PipelineError(f"malformed pass pipeline '{pipeline}'")
    return split_top_level(text)


def build_pass_manager(elements: Iterable[str]) -> passmanager.PassManager:
    """A module PassManager running `elements` in order."""
    pm = passmanager.PassManager("builtin.module")
    for element in elements:
        add_element(pm, element)
    return pm
