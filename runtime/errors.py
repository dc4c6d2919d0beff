"""The errors gmx.runtime raises for a program it cannot compile, and for
donations it refuses."""

from gmx.dialect.errors import GmxError


class CompileError(GmxError):
    """The program could not be parsed, verified or lowered.

    The message holds located diagnostics (`file:line:col: error: ...`);
    when the lowering or the JIT failed, it also names a file with the IR
    that failed and the command that reproduces the failure on it."""



class DonationError(GmxError, ValueError):
    """`donate=` names arguments that cannot be donated (out of range,
    twice, no result of their type), or a call passes a donated argument
    the result cannot be written into (read-only, not C-contiguous, the
    wrong shape, sharing memory with another argument). Raised before any
    work: nothing is written."""


class DonatedTypeError(DonationError, TypeError):
    """A donated argument that is no numpy array, or of the wrong dtype
    (a TypeError, as for any argument)."""
