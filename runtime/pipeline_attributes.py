"""Attributes the runtime relies on are written by gmx's pipeline, never
taken from the user's text.

`--gmx-lower-to-llvm` records each entry's tensor signature, its
destinations in attributes (`runtime_abi`), and the
runtime sizes the buffers it passes by them; the runtime itself writes the
entry's donations (`compile(..., donate=)`). A tensor-level module that
already carries one has forged it: its `gmx.signature` would make the
runtime pass a 4-byte buffer where the code writes 16 MiB, its
`gmx.donations` write an argument the caller did not donate. Such a module
is refused, located at the op carrying the attribute, before anything is
lowered. (`gmx.error_sites`, which `--convert-gmx-to-linalg` writes on a
module that stays at tensor level, only names the gathers in messages:
the runtime takes it, and reads a site it does not hold as `<unknown>`.)

A module given in the LLVM dialect (lowered by `gmx-opt
--gmx-lower-to-llvm`) is code gmx did not compile: its attributes are
believed as gmx-opt wrote them, as its code is run as written.
"""

from __future__ import annotations

from gmx.dialect.locations import location_text
from gmx.dialect.mlir import ir
from gmx.passes.lowering.runtime_abi import DESTINATIONS_ATTR, DONATIONS_ATTR, SIGNATURE_ATTR

from .errors import CompileError

PIPELINE_ATTRIBUTES = (SIGNATURE_ATTR, DESTINATIONS_ATTR, DONATIONS_ATTR)


def reject_pipeline_attributes(module: ir.Module) -> None:
    """Raise CompileError at the first op of the tensor-level `module` that
    carries an attribute only the lowering writes."""
    found = []

    def find(op):
        names = [name for name in PIPELINE_ATTRIBUTES if name in op.attributes]
        if names:
            found.append((op, names[0]))
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(find, ir.WalkOrder.PRE_ORDER)
    if found:
        op, name = found[0]
        raise CompileError(
            f"{location_text(op.location)}: error: '{op.name}' carries '{name}', an attribute that "
            "--gmx-lower-to-llvm writes and gmx.runtime relies on: a tensor-level module must not set it"
        )
