"""Reading MLIR sources the way mlir-opt does: split into chunks on
`// -----`, parse each with its real file name and line numbers, and wrap
top-level ops that are not a `builtin.module` into an implicit one."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from gmx.dialect.errors import GmxError
from gmx.dialect.mlir import ir
from gmx.dialect.parsing import BYTECODE_MAGIC, UnreadableBytecode, bytecode_as_text, is_bytecode, parse_text

SPLIT_MARKER = re.compile(r"^\s*//\s*-----\s*$")
SPLIT_TEXT = "// -----\n"
# Bytecode modules as mlir-opt --split-input-file --emit-bytecode writes
# them: each after a split marker line (read back as text chunks).
BYTECODE_CHUNKS = re.compile(rb"// -----\n(?=" + re.escape(BYTECODE_MAGIC) + rb")")


@dataclass(frozen=True)
class Chunk:
    text: str
    first_line: int  # 1-based line of the file where `text` starts


class SourceError(GmxError):
    """The input could not be read."""


def read_source(path: str, allow_unregistered: bool = False) -> tuple[str, str]:
    """(text, name for locations) of a file, or of stdin for '-' (MLIR
    bytecode as its text, its ops of unregistered dialects read only if
    `allow_unregistered`); raises SourceError when it cannot be read, is
    not UTF-8 or is bytecode gmx does not read (broken, nested too deep)."""
    if path == "-":
        if sys.stdin is None:
            raise SourceError("could not read input file '<stdin>': it is closed")
        data, name = _read_stdin(), "<stdin>"
    else:
        try:
            with open(path, "rb") as handle:
                data, name = handle.read(), path
        except OSError as error:
            raise SourceError(f"could not open input file '{path}': {error.strerror or error}") from None
    if is_bytecode(data):
        try:
            return SPLIT_TEXT.join(bytecode_as_text(c, allow_unregistered) for c in BYTECODE_CHUNKS.split(data)), name
        except UnreadableBytecode as error:
            raise SourceError(f"could not read input file '{name}' (MLIR bytecode): {error}") from None
    return decode_utf8(data, name), name


def _read_stdin() -> bytes:
    try:
        stream = getattr(sys.stdin, "buffer", None)
        return stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise SourceError(f"could not read input file '<stdin>': {reason}") from None


def decode_utf8(data: bytes, name: str) -> str:
    """`data` as text; raises SourceError at the line and column (bytes,
    as MLIR counts) of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise SourceError(
            f"could not read input file '{name}': invalid UTF-8 at line {line}, column {col} "
            f"(byte 0x{data[error.start]:02x})"
        ) from None


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


_ALIAS_START = re.compile(r"^\s*[#!][\w.$-]+\s*=")


def _open_brackets(line: str) -> int:
    """Brackets a line opens minus those it closes (`->` is not one)."""
    line = line.replace("->", "")
    return sum(line.count(c) for c in "([{<") - sum(line.count(c) for c in ")]}>")


def _prelude_lines(lines: list[str]) -> int:
    """How many leading lines hold only blanks, comments and attribute or
    type alias definitions (`#map = ...`, `!t = ...`), which must stay
    outside the implicit module."""
    count, depth = 0, 0
    for line in lines:
        stripped = line.strip()
        if depth > 0 or _ALIAS_START.match(line):
            depth = max(depth, 0) + _open_brackets(line)
        elif stripped and not stripped.startswith("//"):
            break
        count += 1
    return count


def _wrapped(chunk: Chunk) -> str:
    """The chunk's ops inside `module { }`, its lines still at their file
    numbers: the opener shares the first op's line (shifting only its
    columns), after any alias definitions."""
    lines = chunk.text.splitlines(keepends=True)
    prelude = _prelude_lines(lines)
    head, body = "".join(lines[:prelude]), "".join(lines[prelude:])
    return "\n" * (chunk.first_line - 1) + head + "module {" + body + "\n}"


def _in_implicit_module(op: ir.Operation, source_name: str) -> ir.Operation:
    """A new `builtin.module` holding the one top-level `op` (as mlir-opt
    wraps a file that is not a module, located at `file:0:0` as there)."""
    module = ir.Operation.create("builtin.module", regions=1, loc=ir.Location.file(source_name, 0, 0))
    body = module.regions[0].blocks.append()
    body.append(op)
    return module


def parse_chunk(chunk: Chunk, source_name: str) -> ir.Operation:
    """The chunk's `builtin.module`; raises ir.MLIRError with located
    diagnostics when it does not parse or verify, UnparsableText (located
    too) when it nests too deep or the parser failed without a word."""

    def parse(text: str) -> ir.Operation:
        return ir.Operation.parse(text, source_name=source_name).operation

    padded = "\n" * (chunk.first_line - 1) + chunk.text
    try:
        op = parse_text(parse, padded, source_name)
    except ir.MLIRError as error:
        if not any("single top-level operation" in d.message for d in error.error_diagnostics):
            raise
        return parse_text(parse, _wrapped(chunk), source_name)
    return op if op.name == "builtin.module" else _in_implicit_module(op, source_name)
