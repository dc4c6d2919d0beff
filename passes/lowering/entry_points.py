"""What `--gmx-lower-to-llvm` does to public functions, at both of its ends.

Before bufferization (`prepare_entry_points`): every public function with a
body gets the C interface the ExecutionEngine calls, its tensor signature is
recorded in `gmx.signature` (part of `runtime_abi`), and each tensor
argument is marked `bufferization.writable = false`, so that bufferization
never writes into a caller's buffer (a numpy array the user passed stays as
it was), except a donated one (`runtime_abi`'s `gmx.donations`), which is
`bufferization.writable = true`: its result is written into it, in place
where bufferization can.

After the LLVM lowering (`mark_arguments_noalias`): the pointer arguments of
those functions, when the signature was tensors only, are marked
`llvm.noalias`. That is true by construction: the function only reads
through them (they are not writable) and writes only to buffers it
allocated or to its destinations (`--gmx-destination-passing`), which the
caller promises alias no argument, so no write can alias a read. A
donated argument is written, but the caller promises it aliases no other
argument either, so no pointer argument reaches another's memory. It is what lets LLVM hoist the
index load of a gather out of the inner loop, turn row gathers into memcpy
and vectorise elementwise gathers; without it every store to the output
might change the indices.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from .gmx_parallel_bodies import NOALIAS_POINTERS_ATTR
from .runtime_abi import SIGNATURE_ATTR, donated_arguments, tensor_signature


def _is_tensor(t: ir.Type) -> bool:
    return isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))


def _top_level_functions(module, name: str):
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == name and op.regions[0].blocks:
            yield op


def _set_argument_attribute(function, indices, name: str, value: ir.Attribute) -> None:
    """Add `name = value` to the attribute dictionaries of the arguments at `indices`."""
    count = len(function.regions[0].blocks[0].arguments)
    old = list(ir.ArrayAttr(function.attributes["arg_attrs"])) if "arg_attrs" in function.attributes else []
    dicts = []
    for i in range(count):
        entries = {a.name: a.attr for a in ir.DictAttr(old[i])} if i < len(old) else {}
        if i in indices:
            entries[name] = value
        dicts.append(ir.DictAttr.get(entries))
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)


# Symbol visibilities that make a function no entry point; no visibility,
# or "public" as JAX spells it (`func.func public @main`), is public.
NOT_ENTRY_POINT_VISIBILITIES = ("private", "nested")


def visibility(function) -> str:
    """The function's `sym_visibility`: "public" when it has none."""
    if "sym_visibility" not in function.attributes:
        return "public"
    return ir.StringAttr(function.attributes["sym_visibility"]).value


def is_entry_point(function) -> bool:
    """A public function: callable from outside the module."""
    return visibility(function) not in NOT_ENTRY_POINT_VISIBILITIES


def prepare_entry_points(module) -> None:
    """Give every public function with a body the C interface, record its
    tensor signature and make its tensor arguments read-only (its donated
    ones writable)."""
    for op in _top_level_functions(module, "func.func"):
        if not is_entry_point(op):
            continue
        op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        op.attributes[SIGNATURE_ATTR] = op.attributes["function_type"]
        tensors = {i for i, t in enumerate(tensor_signature(op).inputs) if _is_tensor(t)}
        donated = donated_arguments(op) & tensors
        if tensors - donated:
            _set_argument_attribute(op, tensors - donated, "bufferization.writable", ir.BoolAttr.get(False))
        if donated:
            _set_argument_attribute(op, donated, "bufferization.writable", ir.BoolAttr.get(True))


def _tensors_only(function) -> bool:
    return all(_is_tensor(t) for t in tensor_signature(function).inputs)


def mark_arguments_noalias(module) -> None:
    """Mark the pointer arguments of lowered entry functions `llvm.noalias`
    (see the module docstring for why that holds), and those a function's
    `gmx.noalias_pointers` lists (the bodies of parallel loops:
    `gmx_parallel_bodies`)."""
    for op in _top_level_functions(module, "llvm.func"):
        if NOALIAS_POINTERS_ATTR in op.attributes:
            marked = set(ir.DenseI64ArrayAttr(op.attributes[NOALIAS_POINTERS_ATTR]))
            _set_argument_attribute(op, marked, "llvm.noalias", ir.UnitAttr.get())
            del op.attributes[NOALIAS_POINTERS_ATTR]
        if SIGNATURE_ATTR not in op.attributes or not _tensors_only(op):
            continue
        arguments = op.regions[0].blocks[0].arguments
        pointers = {i for i, a in enumerate(arguments) if str(a.type) == "!llvm.ptr"}
        if pointers:
            _set_argument_attribute(op, pointers, "llvm.noalias", ir.UnitAttr.get())
