"""Tuples of coordinates packed along the last dim of an index tensor:
a column cut out of them (`column_of`) and the parts a concat packs
(`concat_parts`), in each spelling the frontends use."""

from __future__ import annotations

from gmx.dialect.mlir import ir

from ..views import defining_op, op_name, static_shape_of



def column_of(value: ir.Value) -> tuple[ir.Value, int, int] | None:
    """(tuples, j, k) when `value` is component `j` of the `k`-tuples in the
    last dim of `tuples`, cut out by a static `tensor.extract_slice` (the
    whole of every other dim: linalg-on-tensors' columns of ONNX ScatterND's
    indices); else None."""
    op = defining_op(value)
    if op is None or op.name != "tensor.extract_slice" or len(op.operands) != 1:
        return None
    source = op.operands[0]
    shape = static_shape_of(source)
    offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
    if shape is None or not shape or shape[-1] < 2 or any(s != 1 for s in strides) or any(offsets[:-1]) \
            or sizes != shape[:-1] + [1]:
        return None
    return source, offsets[-1], shape[-1]


def concat_parts(value: ir.Value) -> list[tuple[ir.Value, int, int]] | None:
    """(operand, offset, width) along the last dim of a concat, in either spelling:
    `tosa.concat`/`tensor.concat`, or `tensor.insert_slice`s into `tensor.empty`
    (or a `linalg.fill` of one: torch-mlir's tm_tensor scatter indices)."""
    name = op_name(value)
    shape = static_shape_of(value)
    if shape is None:
        return None
    last = len(shape) - 1
    if name in ("tosa.concat", "tensor.concat"):
        attribute = defining_op(value).attributes["axis" if name == "tosa.concat" else "dim"]
        if ir.IntegerAttr(attribute).value != last:
            return None
        parts, offset = [], 0
        for operand in defining_op(value).operands:
            width = static_shape_of(operand)[-1]
            parts.append((operand, offset, width))
            offset += width
        return parts
    parts = []
    while op_name(value) == "tensor.insert_slice":
        op = defining_op(value)
        source = op.operands[0]
        offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
        strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
        if len(op.operands) != 2 or any(s != 1 for s in strides) or any(offsets[:-1]) or sizes[:-1] != shape[:-1]:
            return None
        if static_shape_of(source) != sizes:
            return None
        parts.append((source, offsets[-1], sizes[-1]))
        value = op.operands[1]
    if op_name(value) == "linalg.fill":  # every element is overwritten: the fill is never read
        value = defining_op(value).operands[1]
    if op_name(value) != "tensor.empty" or not parts:
        return None
    parts.sort(key=lambda p: p[1])
    offset = 0
    for _, start, width in parts:
        if start != offset:
            return None
        offset += width
    return parts if offset == shape[-1] else None
