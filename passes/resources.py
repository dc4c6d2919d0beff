"""Reading the values of a `dense_resource` constant.

torch-mlir's FX importer stores every tensor literal of more than one
element (frozen weights, `torch.arange` buffers, `torch.tensor([...])`) as
`dense_resource<key>`, a blob in the module's `dialect_resources`. The
bindings of this MLIR can make such an attribute but not read it back; the
printer can: a module holding only a clone of the constant prints its blob
(`"0x" + 4 bytes of alignment + the little-endian elements`), and nothing
else of the program.
"""

from __future__ import annotations

import re

import numpy as np

from gmx.dialect.mlir import ir

_INTEGER_DTYPES = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def resource_integers(op: ir.Operation, attribute: ir.Attribute) -> np.ndarray | None:
    """The elements (flat, as stored) of `attribute`, the `dense_resource`
    value of the constant `op`, when its element type is a signless integer
    of 8 to 64 bits; None otherwise (another attribute, a float, a blob the
    printer elides or that does not match the type)."""
    try:
        attribute = ir.DenseResourceElementsAttr(attribute)  # read off an op, it is a generic Attribute
    except ValueError:
        return None
    element = ir.ShapedType(attribute.type).element_type
    if not isinstance(element, ir.IntegerType) or element.width not in _INTEGER_DTYPES:
        return None
    blob = _printed_blob(op, str(attribute))
    if blob is None:
        return None
    data = bytes.fromhex(blob)[4:]  # the first 4 bytes are the blob's alignment
    dtype = np.dtype(_INTEGER_DTYPES[element.width]).newbyteorder("<")
    count = int(np.prod(ir.ShapedType(attribute.type).shape))
    if len(data) != count * dtype.itemsize:
        return None
    return np.frombuffer(data, dtype=dtype).astype(np.int64)


def _printed_blob(op: ir.Operation, attribute_text: str) -> str | None:
    """The hex digits of the blob `attribute_text` (`dense_resource<key> :
    type`) names, printed from a module holding a clone of `op` alone."""
    key = re.match(r"dense_resource<([^>]+)>", attribute_text)
    if key is None:
        return None
    with op.context, op.location:
        scratch = ir.Module.create()
        with ir.InsertionPoint(scratch.body):
            op.clone()
        text = str(scratch)
    found = re.search(re.escape(key.group(1)) + r'\s*:\s*"0x([0-9A-Fa-f]*)"', text)
    return None if found is None else found.group(1)
