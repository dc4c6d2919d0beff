"""Reading MLIR sources the way mlir-opt does: split into chunks on
`// -----`, parse each with its real file name and line numbers, and wrap
top-level ops that are not a `builtin.module` into an implicit one."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from gmx.dialect.mlir import ir

SPLIT_MARKER = re.compile(r"^\s*//\s*-----\s*$")


@dataclass(frozen=True)
class Chunk:
    text: str
    first_line: int  # 1-based line of the file where `text` starts


class SourceError(Exception):
    """The input could not be read."""


def read_source(path: str) -> tuple[str, str]:
    """(text, name for locations) of a file, or of stdin for '-'."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(), path
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise SourceError(f"could not open input file '{path}': {reason}") from None


def split_chunks(text: str, split: bool) -> list[Chunk]:
    """The whole text, or the pieces between `// -----` lines."""
    if not split:
        return [Chunk(text, 1)]
    chunks, start, current = [], 1, []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if SPLIT_MARKER.match(line):
            chunks.append(Chunk("".join(current), start))
            start, current = number + 1, []
        else:
            current.append(line)
    chunks.append(Chunk("".join(current), start))
    return chunks


def _wrapped(chunk: Chunk) -> str:
    """The chunk inside `module { }`, its lines still at their file numbers
    (on line 1 the opener shares the line, shifting only its columns)."""
    if chunk.first_line > 1:
        return "\n" * (chunk.first_line - 2) + "module {\n" + chunk.text + "\n}"
    return "module {" + chunk.text + "\n}"


def parse_chunk(chunk: Chunk, source_name: str) -> ir.Operation:
    """The chunk's `builtin.module`; raises ir.MLIRError with located
    diagnostics when it does not parse or verify."""
    padded = "\n" * (chunk.first_line - 1) + chunk.text
    try:
        op = ir.Operation.parse(padded, source_name=source_name)
        if op.operation.name == "builtin.module":
            return op.operation
    except ir.MLIRError as error:
        if not any("single top-level operation" in d.message for d in error.error_diagnostics):
            raise
    return ir.Operation.parse(_wrapped(chunk), source_name=source_name).operation
