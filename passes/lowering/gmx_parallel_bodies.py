"""`--gmx-parallel-bodies`: the body of each `scf.parallel` becomes a
private function whose buffers are `noalias` arguments.

`convert-scf-to-openmp` and LLVM's OpenMP outlining pass a region the
values it uses through a struct of pointers: inside it, LLVM no longer
knows that the output it writes aliases none of the buffers it reads
(the entry's arguments are `noalias`, the region's copies of them are not),
so it reloads indices after every store and vectorises no elementwise
gather. Calling a function from the region whose memref arguments are
`llvm.noalias` says it again. At the loop level (after gmx-prefetch-rows):

    scf.parallel (%r) = (%c0) to (%c256) step (%c2) {
      ... %x, %i, %out, %c64 ...
      scf.reduce
    }

becomes

    scf.parallel (%r) = (%c0) to (%c256) step (%c2) {
      func.call @main_parallel_0(%r, %x, %i, %out) : (index, memref<...>, ...) -> ()
      scf.reduce
    }
    func.func private @main_parallel_0(%r: index, %x: memref<...> {llvm.noalias}, ...) {
      %c64 = arith.constant 64 : index    (constants are cloned, not passed)
      ...
    }

(func-to-llvm drops `llvm.noalias` on memref arguments: the pointers to
mark are recorded in `gmx.noalias_pointers`, which `mark_arguments_noalias`
applies in the LLVM dialect.) A buffer is marked `noalias` only when no other argument of the call
views the same one (the roots of views are compared: function arguments,
allocations); then every access through it in the body is through it.
The body's stack slots (a tile's flag) become the function's own, one per
call, which LLVM keeps in registers.
"""

from __future__ import annotations

from gmx.dialect.mlir import func, ir

from ..registry import PassInfo, add_python_pass
from ..views import buffer_root, defining_op, ops_named

# The lowered function's pointer arguments that are noalias (func-to-llvm
# drops `llvm.noalias` on memref arguments): `mark_arguments_noalias`
# marks them once the function is in the LLVM dialect.
NOALIAS_POINTERS_ATTR = "gmx.noalias_pointers"
_CONSTANTS = ("arith.constant", "llvm.mlir.constant")


def _lowered_pointers(types: list[ir.Type], marked: list[bool]) -> list[int]:
    """Positions, among the arguments of the lowered function, of the
    pointers (allocated and aligned) of each marked memref argument: a
    memref of rank r lowers to two pointers, an offset and 2r sizes and
    strides, an unranked one to its rank and a pointer, any other type to
    one argument."""
    positions, at = [], 0
    for t, mark in zip(types, marked):
        if isinstance(t, ir.MemRefType):
            if mark:
                positions += [at, at + 1]
            at += 3 + 2 * ir.MemRefType(t).rank
        elif isinstance(t, ir.UnrankedMemRefType):
            at += 2  # rank, pointer to a descriptor
        else:
            at += 1
    return positions


def defined_inside(value: ir.Value, op) -> bool:
    """Whether `value` is defined in `op`'s regions (a result of an op
    nested in it, or an argument of one of its blocks)."""
    owner = value.owner
    at = owner.owner if isinstance(owner, ir.Block) else owner  # a block's argument: the block's op
    while at is not None:
        if at.operation == op.operation:
            return True
        at = at.parent
    return False


def _captures(loop) -> list[ir.Value]:
    """The values the loop's body uses that are defined outside it, in
    first-use order."""
    found: list[ir.Value] = []

    def visit(op):
        for operand in op.operands:
            if not defined_inside(operand, loop) and operand not in found:
                found.append(operand)
        return ir.WalkResult.ADVANCE

    for op in loop.regions[0].blocks[0].operations:
        op.operation.walk(visit)
    return found


def _replace_inside(ops, old: ir.Value, new: ir.Value) -> None:
    """Uses of `old` by `ops` (and the ops nested in them) become `new`."""

    def visit(op):
        for k, operand in enumerate(op.operands):
            if operand == old:
                op.operands[k] = new
        return ir.WalkResult.ADVANCE

    for op in ops:
        op.walk(visit)


def outline(loop, name: str, function) -> None:
    """Move the body of a 1-D scf.parallel of `function` into `func.func
    private @name`, placed after `function`, and call it there (see the
    module docstring)."""
    body = loop.regions[0].blocks[0]
    ops = [op.operation for op in body.operations][:-1]  # not the scf.reduce
    captures = _captures(loop)
    constants = [v for v in captures if (d := defining_op(v)) is not None and d.name in _CONSTANTS]
    passed = [v for v in captures if v not in constants]
    roots = [buffer_root(v) if isinstance(v.type, ir.MemRefType) else None for v in passed]
    iv = body.arguments[0]
    with ir.InsertionPoint(function), loop.location:
        callee = func.FuncOp(name, ([iv.type] + [v.type for v in passed], []), visibility="private")
    callee.operation.move_after(function)
    memrefs = [r for r in roots if r is not None]
    noalias = [root is not None and sum(r == root for r in memrefs) == 1 for root in roots]
    callee.attributes[NOALIAS_POINTERS_ATTR] = ir.DenseI64ArrayAttr.get(
        _lowered_pointers([iv.type] + [v.type for v in passed], [False, *noalias])
    )
    with loop.location:
        entry = callee.add_entry_block()
    with ir.InsertionPoint(entry), loop.location:
        returned = func.ReturnOp([])
    for op in ops:
        op.move_before(returned)
    for value in constants:
        clone = defining_op(value).clone(ip=ir.InsertionPoint.at_block_begin(entry))
        _replace_inside(ops, value, clone.results[0])
    _replace_inside(ops, iv, entry.arguments[0])
    for value, argument in zip(passed, list(entry.arguments)[1:]):
        _replace_inside(ops, value, argument)
    with ir.InsertionPoint.at_block_terminator(body), loop.location:
        func.CallOp([], name, [iv, *passed])


def parallel_bodies_pass(module) -> None:
    """Outline the body of every 1-D scf.parallel (see the module docstring)."""
    block = module.regions[0].blocks[0]
    taken = {ir.StringAttr(op.attributes["sym_name"]).value for op in block.operations if "sym_name" in op.attributes}
    count = 0
    for loop in ops_named(module, "scf.parallel"):
        if len(loop.regions[0].blocks[0].arguments) != 1:
            continue
        function = loop.parent
        while function.name != "func.func":
            function = function.parent
        base = ir.StringAttr(function.attributes["sym_name"]).value
        while (name := f"{base}_parallel_{count}") in taken:
            count += 1
        taken.add(name)
        outline(loop, name, function)


def _build(pm, options) -> None:
    add_python_pass(pm, parallel_bodies_pass, PASS)


PASS = PassInfo(
    argument="gmx-parallel-bodies",
    description="Outline the body of each scf.parallel into a private function with noalias buffers (loop level)",
    build=_build,
)
