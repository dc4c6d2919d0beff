"""Build a PassManager from mlir-opt style pass flags or a textual pipeline.

Textual pipelines of this MLIR build cannot name Python passes, so gmx
composes its own: gmx passes come from `get_pass` (any flag of
`get_all_passes`), every other element is handed to the upstream pipeline
parser (`elements`), in command-line order.

    --canonicalize --convert-gmx-to-linalg=checked=false --cse
    --pass-pipeline='builtin.module(convert-gmx-to-linalg, func.func(cse))'
"""

from __future__ import annotations

from collections.abc import Iterable

from gmx.dialect.mlir import passmanager

from . import get_pass
from .elements import PipelineError, UnknownPass  # noqa: F401
from .elements import add_element as _add_element


_OPENING = {")": "(", "}": "{"}


def _nesting(text: str) -> tuple[list[int | None], str | None]:
    """Per character of `text`, how many () and {} are open around it (None
    inside quotes), and what is wrong with the nesting (None if nothing)."""
    depths, stack, quote, problem = [], [], None, None
    for ch in text:
        if quote:
            depths.append(None)
            quote = None if ch == quote else quote
            continue
        if ch in "\"'":
            quote = ch
        elif ch in ")}" and (not stack or stack.pop() != _OPENING[ch]):
            problem = problem or f"unbalanced '{ch}'"
        depths.append(len(stack))
        if ch in "({":
            stack.append(ch)
    if stack:
        problem = problem or f"'{stack[-1]}' is never closed"
    return depths, problem


def split_top_level(text: str, separator: str = ",") -> list[str]:
    """Split on `separator` outside (), {} and quotes."""
    parts, start = [], 0
    for i, depth in enumerate(_nesting(text)[0]):
        if depth == 0 and text[i] == separator:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def bracket_error(text: str) -> str | None:
    """What is wrong with the nesting of () and {} in `text` (outside
    quotes), or None when they balance."""
    return _nesting(text)[1]


def add_element(pm: passmanager.PassManager, element: str) -> None:
    """Append one pipeline element (any gmx pass, or anything upstream) to pm."""
    _add_element(pm, element, get_pass)


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
