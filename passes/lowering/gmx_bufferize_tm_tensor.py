"""`--gmx-bufferize-tm-tensor`: torch-mlir's TMTensor ops (`tm_tensor.scan`,
`.sort`, `.scatter`, `.topk`, ...: its linalg-on-tensors export emits them
for cumsum, sort, topk and scatters) on tensors become their memref forms,
ready for one-shot-bufferize; `tm-tensor-to-loops` lowers them to loops
after bufferization.

The wheel's `tm-tensor-bufferize` (torch-mlir's own) does the conversion:
each result gets a fresh buffer (`memref.copy` of its init into it where
the init is not a `tensor.empty`), read back as a tensor by `bufferization.to_tensor`. One-
shot bufferization refuses a `to_tensor` it cannot prove unaliased, so this
pass then marks those of fresh buffers `restrict writable`, which they are:
nothing else refers to a `memref.alloc` made for one result.

    %r:2 = tm_tensor.scan dimension(0) inclusive(true)
             ins(%x : tensor<4xf32>) outs(%e, %acc : tensor<4xf32>, tensor<f32>) {...}

becomes

    %in = bufferization.to_buffer %x : tensor<4xf32> to memref<4xf32>
    %alloc = memref.alloc() : memref<4xf32>
    %r = bufferization.to_tensor %alloc restrict writable : memref<4xf32> to tensor<4xf32>
    %alloc_0 = memref.alloc() : memref<f32>
    tm_tensor.scan dimension(0) inclusive(true) ins(%in : memref<4xf32>) outs(%alloc, %alloc_0 : ...) {...}

A `to_tensor` of anything else is left as it was.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from ..registry import PassInfo, add_python_pass
from ..views import defining_op

TM_TENSOR_BUFFERIZE = "func.func(tm-tensor-bufferize)"
TO_TENSOR = "bufferization.to_tensor"
FRESH = ("memref.alloc",)


def _only_tm_tensor_uses(buffer: ir.Value, to_tensor) -> bool:
    """Whether `buffer` is used by `to_tensor`, tm_tensor ops and the copy of
    an init into it alone (what tm-tensor-bufferize makes of a result), so
    that nothing else can alias it."""
    return all(
        u.owner == to_tensor
        or u.owner.name.startswith("tm_tensor.")
        or (u.owner.name == "memref.copy" and u.operand_number == 1)
        for u in buffer.uses
    )


def restrict_fresh_buffers(module) -> None:
    """Mark `restrict writable` every to_tensor of a fresh buffer that only
    tm_tensor ops write (module docstring)."""
    fresh = []

    def visit(op):
        if op.name == TO_TENSOR and "restrict" not in op.attributes:
            source = defining_op(op.operands[0])
            if source is not None and source.name in FRESH and _only_tm_tensor_uses(op.operands[0], op):
                fresh.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    for op in fresh:
        op.attributes["restrict"] = ir.UnitAttr.get()
        op.attributes["writable"] = ir.UnitAttr.get()


def _build(pm, options) -> None:
    pm.add(TM_TENSOR_BUFFERIZE)
    add_python_pass(pm, restrict_fresh_buffers, PASS)


PASS = PassInfo(
    argument="gmx-bufferize-tm-tensor",
    description="torch-mlir's tm_tensor ops on tensors to their memref forms (tm-tensor-bufferize), "
    "the results' fresh buffers restrict, for one-shot-bufferize",
    build=_build,
)
