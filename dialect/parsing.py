"""Parsing MLIR text with two guards the bindings' parser lacks; shared by
the tools and `gmx.runtime`.

    module = parse_text(ir.Module.parse, text, "x.mlir")

- Nesting: the upstream parser recurses once per bracket, so text nested a
  few thousand deep overflows its stack (SIGSEGV, no diagnostic). Text whose
  brackets `( [ { <` (and runs of unary minus) nest deeper than
  MAX_NESTING_DEPTH outside strings and comments is refused before parsing,
  located at the first bracket (or sign) past it.
- Silence: ops defined in Python (IRDL) have no custom assembly format, and
  their parse hook fails without a diagnostic, so `%0 = gmx.gather_multiaxis
  %x, %i ...` made the parser fail with nothing to report. A failure without
  a diagnostic is located here (the first gmx op in custom form, else the
  text's first line) and explained.

Both raise UnparsableText; every failure the parser reports itself stays an
ir.MLIRError with its located diagnostics.

MLIR bytecode is taken wherever text is, as mlir-opt takes it:
`bytecode_as_text` prints a bytecode module as text with the locations it
holds (`is_bytecode` tells one by its magic number). The bytecode reader
and the printer recurse once per level of nesting (an attribute nested in
an attribute, an op in a region) with no guard, and bytecode has no
brackets to scan beforehand: 104 KB of bytecode holding an array nested
20,000 deep crashed them (SIGSEGV). So bytecode is read and printed in a
child process, on its main thread's stack, and what comes back is held
to the same nesting bound as text: a crash of the child, or text nested
deeper than MAX_NESTING_DEPTH, is UnreadableBytecode, never a crash here.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from .errors import GmxError
from .gmx import Gmx, make_context
from .locations import error_text
from .mlir import ext, ir

# Real IR nests a few dozen deep. On an 8 MiB stack the parser of this
# wheel crashed between 2,000 and 3,000 nested regions (4,000 to 6,000
# brackets), at 10,000 nested `[`, and at 100,000 signs of unary minus;
# 1000 leaves room for smaller stacks (threads).
MAX_NESTING_DEPTH = 1000

# What the scan needs of MLIR's lexer: strings (escapes, never across
# lines) and `//` comments hide brackets. The scan reads UTF-8 bytes, so its
# offsets give columns as MLIR counts them.
_HIDDEN = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*')
# `->` closes nothing, nor does the `>` of an affine set's `>=`.
_NOT_BRACKETS = re.compile(rb"->|>=")
# The affine parser recurses once per sign of a run of unary minus.
_SIGN_RUN = re.compile(rb"-(?:\s*-)+")
_STEP = np.zeros(256, np.int8)
_STEP[list(b"([{<")] = 1
_STEP[list(b")]}>")] = -1

T = TypeVar("T")


class UnparsableText(GmxError):
    """Text refused before parsing, or rejected by the parser without a
    diagnostic. `source_name`, `line`, `col` (1-based, col in bytes as MLIR
    counts) locate it; str() is `file:line:col: error: message`."""

    def __init__(self, source_name: str, line: int, col: int, message: str):
        super().__init__(f"{source_name}:{line}:{col}: error: {message}")
        self.source_name, self.line, self.col, self.message = source_name, line, col, message

    def location(self) -> ir.Location:
        """The same position as an ir.Location (needs a current context)."""
        return ir.Location.file(self.source_name, self.line, self.col)


def nesting_problem(code: bytes) -> tuple[int, str] | None:
    """(offset, message) of the first bracket, or minus sign of a run,
    nested deeper than MAX_NESTING_DEPTH in `code` (strings and comments
    blanked), or None. Vectorised: a 10 MB module is scanned in well under
    a second."""
    depth = _STEP[np.frombuffer(_NOT_BRACKETS.sub(b"  ", code), np.uint8)].astype(np.int32)
    np.cumsum(depth, out=depth)
    past_limit = depth > MAX_NESTING_DEPTH
    too_deep = [int(np.argmax(past_limit))] if past_limit.any() else []
    for run in _SIGN_RUN.finditer(code):
        brackets_around = depth[run.start()]
        if brackets_around + run.group().count(b"-") > MAX_NESTING_DEPTH:
            too_deep.append(run.start())
            break
    if not too_deep:
        return None
    return min(too_deep), (
        f"nesting deeper than {MAX_NESTING_DEPTH} levels: gmx does not parse input "
        "this deep (the MLIR parser would overflow its stack)"
    )


def _custom_form_op(op_name: str) -> re.Pattern:
    """An op name used as a custom-form op: not quoted, not a reference
    (`@`, `#`, `!`, `^`, `%`), not an attribute name (`name = ...`)."""
    return re.compile(rb'(?<![\w.$@#!^%"])' + re.escape(op_name.encode()) + rb"\b(?![\w.$])(?!\s*=)")


def code_only(data: bytes) -> bytes:
    """`data` with strings and comments blanked, offsets unchanged."""
    return _HIDDEN.sub(lambda hidden: b" " * len(hidden.group()), data)


def silent_failure_reason(code: bytes) -> tuple[int, str]:
    """(offset, message) explaining a parse failure that came without a
    diagnostic: the first gmx op in custom form in `code` (strings and
    comments blanked), else its first token."""
    uses = ((_custom_form_op(op.OPERATION_NAME).search(code), op) for op in Gmx.operations)
    found = sorted((use.start(), use.group().decode(), op) for use, op in uses if use)
    if found:
        offset, name, op = found[0]
        return offset, (
            f"'{name}' has no custom form (gmx ops are defined in IRDL, which parses the "
            f'generic form only): write "{name}"({_operand_names(op)}) '
            "{axes = array<i64: ...>} : (...) -> ..."
        )
    first_token = re.search(rb"\S", code)
    return (first_token.start() if first_token else 0), (
        "the MLIR parser rejected this input without a diagnostic; "
        "check it for an op in a custom form that its dialect does not define"
    )


def _operand_names(op_class) -> str:
    """`%input, %indices, ...`: the operands of a gmx op class, as its generic form lists them."""
    return ", ".join(f"%{field.name}" for field in op_class._fields if isinstance(field, ext.OperandDef))


def _located(source_name: str, data: bytes, offset: int, message: str) -> UnparsableText:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return UnparsableText(source_name, line, col, message)


def parse_text(parse: Callable[[str], T], text: str, source_name: str) -> T:
    """`parse(text)` behind both guards (see the module's docstring):
    raises UnparsableText, or the parser's own ir.MLIRError."""
    data = text.encode("utf-8", "surrogatepass")
    code = code_only(data)
    problem = nesting_problem(code)
    if problem is not None:
        raise _located(source_name, data, *problem)
    try:
        return parse(text)
    except ir.MLIRError as error:
        if error.error_diagnostics:
            raise
        raise _located(source_name, data, *silent_failure_reason(code)) from None


BYTECODE_MAGIC = b"ML\xefR"


def is_bytecode(data: bytes) -> bool:
    """Whether `data` is MLIR bytecode (not text) by its magic number."""
    return data.startswith(BYTECODE_MAGIC)


class UnreadableBytecode(GmxError):
    """MLIR bytecode gmx does not read: broken (the reader's diagnostics),
    nested deeper than MAX_NESTING_DEPTH, or such that its reader crashed.
    str() is diagnostics, `-:0:0: error: ...` (bytecode has no lines)."""


# The child of bytecode_as_text, and how it says the reader refused the bytecode.
_CHILD = "from gmx.dialect.parsing import _print_bytecode; _print_bytecode()"
_REFUSED = 3
_ALLOW_UNREGISTERED = "--allow-unregistered-dialect"  # the child's one argument, or ""
BYTECODE_TIMEOUT_S = 600


def bytecode_as_text(data: bytes, allow_unregistered: bool = False) -> str:
    """The module of MLIR bytecode `data` as text, with its locations
    (read and printed in a child process, in a context of its own that
    takes ops of unregistered dialects if `allow_unregistered`: the
    module's docstring); raises UnreadableBytecode when it is broken, nests
    deeper than MAX_NESTING_DEPTH or crashes the reader. The last few
    bytecodes read are remembered (by digest): a child costs about half a
    second, and `gmx.runtime.compile(bytes)` may be asked again."""
    digest = hashlib.sha256(bytes([allow_unregistered]) + data).digest()
    with _read_lock:
        if digest in _read:
            _read.move_to_end(digest)
            return _read[digest]
    text = _read_in_child(data, allow_unregistered)
    with _read_lock:
        _read[digest] = text
        while len(_read) > _READ_KEPT:
            _read.popitem(last=False)
    return text


_READ_KEPT = 8
_read: OrderedDict[bytes, str] = OrderedDict()  # sha256 of bytecode -> its text
_read_lock = threading.Lock()


def _read_in_child(data: bytes, allow_unregistered: bool) -> str:
    if not sys.executable:  # an embedding interpreter that cannot start one
        raise UnreadableBytecode(
            "-:0:0: error: no Python interpreter to read the MLIR bytecode in (sys.executable is unset)"
        )
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, _ALLOW_UNREGISTERED if allow_unregistered else ""], input=data, capture_output=True, timeout=BYTECODE_TIMEOUT_S,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))},
        )
    except subprocess.TimeoutExpired:
        raise UnreadableBytecode(f"-:0:0: error: reading the MLIR bytecode took over {BYTECODE_TIMEOUT_S} s") from None
    except OSError as error:
        raise UnreadableBytecode(
            f"-:0:0: error: could not start a process to read the MLIR bytecode: {error}"
        ) from None
    output = done.stdout.decode("utf-8", "surrogatepass")
    if done.returncode == _REFUSED:
        raise UnreadableBytecode(output)
    if done.returncode != 0:
        raise UnreadableBytecode(f"-:0:0: error: {_child_failure(done)}")
    problem = nesting_problem(code_only(done.stdout))
    if problem is not None:
        raise UnreadableBytecode(f"-:0:0: error: MLIR bytecode with {problem[1]}")
    return output


def _child_failure(done: subprocess.CompletedProcess) -> str:
    """Why the child reading bytecode failed, for a message."""
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name if -done.returncode in signal.valid_signals() else -done.returncode
        return (
            f"the MLIR bytecode reader crashed on this input ({name}): it nests deeper than the reader's "
            f"stack holds (gmx reads nesting up to {MAX_NESTING_DEPTH} levels), or it is malformed"
        )
    last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
    return f"the process reading the MLIR bytecode failed (exit {done.returncode}){': ' + last[0] if last else ''}"


def _print_bytecode() -> None:
    """The child of bytecode_as_text: bytecode on stdin, its text on
    stdout (exit 0), or the reader's diagnostics (exit _REFUSED). A crash
    leaves no core file behind."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    data = sys.stdin.buffer.read()
    with make_context() as context:
        context.allow_unregistered_dialects = sys.argv[1:] == [_ALLOW_UNREGISTERED]
        try:
            text = ir.Module.parse(data).operation.get_asm(enable_debug_info=True)
        except ir.MLIRError as error:
            sys.stdout.buffer.write(error_text(error).encode("utf-8", "surrogatepass"))
            sys.stdout.flush()
            sys.exit(_REFUSED)
    sys.stdout.buffer.write(text.encode("utf-8", "surrogatepass"))
    sys.stdout.flush()
