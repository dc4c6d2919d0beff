"""--gmx-canonicalize: raise frontend gathers into gmx.gather_multiaxis (work in progress)."""

from __future__ import annotations

from .registry import PassInfo, add_python_pass


def canonicalize(module) -> None:
    """Placeholder: the patterns land in the following commits."""


def _build(pm, options) -> None:
    add_python_pass(pm, canonicalize, PASS)


PASS = PassInfo(
    argument="gmx-canonicalize",
    description="Raise tosa.gather with reshapes and linearised indices into gmx.gather_multiaxis; gmx folds",
    build=_build,
    options=(),
)
