"""`GmxError`, the root of every error gmx reports to its users.

Each layer defines the errors of its own concern under it (the rules of
the op: `GatherShapeError`; a pipeline: `PipelineError`; a program that
does not compile: `CompileError`; a tool's input or output: `SourceError`,
`InputError`, `OutputError`, ...), keeping the builtin base its callers
catch (`ValueError`, `TypeError`), so that `except GmxError` catches
whatever gmx itself refused and nothing else. It lives in the lowest layer
so that every layer can import it.
"""


class GmxError(Exception):
    """An error gmx reports to its user; the message says what and where."""
