"""The backends `gmx.runtime.compile` compiles for, by name.

    engine  MLIR's ExecutionEngine (the default): --gmx-lower-to-llvm, JIT
    iree    IREE's compiler and runtime on a device (`iree_backend`), an
            optional extra: imported only when asked for
"""

from __future__ import annotations

BACKENDS = ("engine", "iree")


def check_backend(backend, device) -> tuple:
    """The cache key's backend part: () for the engine, ("iree", device)
    for IREE (device checked, None its default). TypeError or ValueError for
    anything else; a device for the engine is a ValueError."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    if backend == "engine":
        if device is not None:
            raise ValueError(f"the engine backend runs on this CPU: device={device!r} needs backend='iree'")
        return ()
    from .iree_backend import check_device

    return ("iree", check_device(device))


def iree_program(asm: str, entry: str, checked: bool, device: str, donate: tuple[int, ...] = ()):
    """An IreeProgram (imported here: the engine never loads IREE)."""
    from .iree_backend import IreeProgram

    return IreeProgram(asm, entry, checked, device, donate=donate)
