"""What `compile` and `run` accept, checked before any work.

The module comes as text (`str`, or UTF-8 `bytes`), MLIR bytecode
(`bytes`), or as IR (`ir.Module`,
`ir.Operation`, any op view); `entry` is a function name and `checked` a
bool. Anything else is a TypeError naming what is accepted, and text that
is not UTF-8 a CompileError located at its first bad byte: never an
AttributeError from deep inside, nor a value silently taken for another
(`checked="false"` is truthy).
"""

from __future__ import annotations

import numpy as np

from gmx.dialect.mlir import ir
from gmx.dialect.parsing import UnreadableBytecode, bytecode_as_text, is_bytecode

from .errors import CompileError

ACCEPTED_MODULES = "str, bytes (UTF-8 or MLIR bytecode), ir.Module or ir.Operation"
# The buffer name MLIR's parser gives a module parsed from a string.
SOURCE_NAME = "-"


def module_text(asm_or_module) -> str:
    """The module's text, with locations when it was given as IR."""
    if isinstance(asm_or_module, str):
        _check_encodable(asm_or_module)
        return asm_or_module
    if isinstance(asm_or_module, (bytes, bytearray)):
        return _decode(bytes(asm_or_module))
    if isinstance(asm_or_module, (ir.Module, ir.Operation, ir.OpView)):
        return asm_or_module.operation.get_asm(enable_debug_info=True)
    raise TypeError(
        f"the module must be {ACCEPTED_MODULES}, got {type(asm_or_module).__name__}"
    )


def check_entry(entry) -> str:
    """`entry`, a function name."""
    if not isinstance(entry, str):
        raise TypeError(f"entry must be a str (a function name such as 'main'), got {type(entry).__name__}")
    return entry


def check_checked(checked, name: str = "checked") -> bool:
    """`checked` (or the flag `name`) as a bool; a numpy bool is one,
    `"false"` or 0 is not."""
    if not isinstance(checked, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {checked!r} ({type(checked).__name__})")
    return bool(checked)


def _position(data: bytes, offset: int) -> str:
    """`-:line:col` of a byte offset, columns counted in bytes as MLIR does."""
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"{SOURCE_NAME}:{line}:{col}"


def _decode(data: bytes) -> str:
    if is_bytecode(data):
        try:
            return bytecode_as_text(data)
        except UnreadableBytecode as error:
            raise CompileError(str(error)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CompileError(
            f"{_position(data, error.start)}: error: invalid UTF-8 (byte 0x{data[error.start]:02x}): "
            "module text must be UTF-8"
        ) from None


def _check_encodable(text: str) -> None:
    """A str MLIR can take: no lone surrogates (from bytes decoded with
    `surrogateescape`, say), which the bindings refuse with a TypeError."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        prefix = text[: error.start].encode("utf-8")
        raise CompileError(
            f"{_position(prefix, len(prefix))}: error: the module text holds a lone surrogate "
            f"(U+{ord(text[error.start]):04X}), which is not Unicode text"
        ) from None
