"""MLIR bytecode nested deeper than text may be: built with the Python API
(the text parser refuses more than 1,000 levels) and written by the
bindings' bytecode writer, which takes any depth."""

from __future__ import annotations

import io

from gmx.dialect import make_context
from gmx.dialect.mlir import ir

IDENTITY = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n"
# What can nest: an attribute in an attribute, a type in a type, a
# location in a location, an op in a region (the writer itself overflows
# its stack on regions nested much more than 6,000 deep).
KINDS = ("array", "dictionary", "type", "location", "region")


def _nest(kind: str, depth: int, module: ir.Module) -> None:
    if kind == "array":
        attribute = ir.ArrayAttr.get([])
        for _ in range(depth):
            attribute = ir.ArrayAttr.get([attribute])
        module.operation.attributes["gmx.deep"] = attribute
    elif kind == "dictionary":
        attribute = ir.DictAttr.get({})
        for _ in range(depth):
            attribute = ir.DictAttr.get({"d": attribute})
        module.operation.attributes["gmx.deep"] = attribute
    elif kind == "type":
        nested = ir.TupleType.get_tuple([])
        for _ in range(depth):
            nested = ir.TupleType.get_tuple([nested])
        module.operation.attributes["gmx.deep"] = ir.TypeAttr.get(nested)
    elif kind == "location":
        location = ir.Location.unknown()
        for _ in range(depth):
            location = ir.Location.name("n", childLoc=location)
        inner = ir.Operation.create("builtin.module", regions=1, loc=location)
        inner.regions[0].blocks.append()
        module.body.append(inner)
    else:
        block = module.body
        for _ in range(depth):
            inner = ir.Operation.create("builtin.module", regions=1)
            inner_block = inner.regions[0].blocks.append()
            block.append(inner)
            block = inner_block


def nested_bytecode(kind: str, depth: int) -> bytes:
    """An identity `@main` on f32[2] whose module holds `kind` nested `depth` deep, as bytecode."""
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(IDENTITY)
        _nest(kind, depth, module)
        buffer = io.BytesIO()
        module.operation.write_bytecode(buffer)
        return buffer.getvalue()
