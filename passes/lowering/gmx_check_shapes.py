"""`--gmx-check-shapes`: in checked mode, the sizes that ops on tensors
require equal are checked at run time: `cf.assert`s that
--gmx-report-asserts turns into gmx's located ValueError.

Dynamic dims (`?`) that disagree at run time otherwise go unchecked: a
`tosa.add`, `stablehlo.add` or `linalg` elementwise op on arguments of
different sizes reads past the shorter one, and `tensor.cast` to a
static shape trusts the argument. Upstream's
`generate-runtime-verification` asserts what each op's runtime
verification requires; of those, this pass keeps the shape agreements:

    linalg ops   dimension #d of input/output operand #k is incompatible
                 with inferred dimension size
    tensor.cast  size mismatch of dim d

and drops the rest (bounds of every `tensor.extract` and `tensor.dim`,
which cost a branch per element inside loops and which checked gathers
already guarantee their own way), then canonicalizes, which folds away
the asserts static shapes make true. Run it after the frontends' ops are
linalg, tensor and arith (so that tosa.add and stablehlo.add are linalg
elementwise ops), before --gmx-report-asserts.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from ..registry import PassInfo, add_python_pass
from ..walking import ops_named
from .gmx_report_asserts import ASSERT, VERIFICATION_PREFIX, assert_message

RUNTIME_VERIFICATION = "generate-runtime-verification{verbose-level=0}"
KEPT_REASONS = ("is incompatible with inferred dimension size", "size mismatch of dim")


def is_shape_check(message: str) -> bool:
    """Whether a runtime-verification assert's message is a kept shape check."""
    return any(reason in assert_message(message) for reason in KEPT_REASONS)


def keep_shape_checks(module) -> None:
    """Erase every assert runtime verification made but the shape checks."""
    for op in ops_named(module, ASSERT):
        message = ir.StringAttr(op.attributes["msg"]).value
        if message.startswith(VERIFICATION_PREFIX) and not is_shape_check(message):
            op.erase()


def _build(pm, options) -> None:
    pm.add(RUNTIME_VERIFICATION)
    add_python_pass(pm, keep_shape_checks, PASS)
    pm.add("canonicalize")


PASS = PassInfo(
    argument="gmx-check-shapes",
    description="Assert at run time the sizes ops on tensors require equal (upstream's runtime verification, "
    "its shape checks alone)",
    build=_build,
)
