"""The error gmx.runtime raises for a program it cannot compile."""

from gmx.dialect.errors import GmxError


class CompileError(GmxError):
    """The program could not be parsed, verified or lowered.

    The message holds located diagnostics (`file:line:col: error: ...`);
    when the lowering or the JIT failed, it also names a file with the IR
    that failed and the command that reproduces the failure on it."""

