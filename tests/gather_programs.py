"""Gather programs and data for the runtime tests: module text of one
gather, distinct or arbitrary values, index tuples, and exact comparison.

A helper module (not a test module): test modules import it, never each
other.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from numpy.testing import assert_array_equal

from gmx.dialect.shapes import infer_output_shape

# numpy dtype -> MLIR element type
ELEMENT_TYPES = {
    np.dtype(np.float16): "f16",
    np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.complex64): "complex<f32>",
    np.dtype(np.complex128): "complex<f64>",
}

GATHER_LINE = 2  # line of the gather op in gather_module's text


def tensor_type(shape, dtype) -> str:
    """`tensor<4x?x3xf32>`; None dims print as `?`; rank 0 is `tensor<f32>`."""
    element = ELEMENT_TYPES[np.dtype(dtype)]
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{element}>"


def axes_attr(axes) -> str:
    axes = list(axes)
    return "array<i64: " + ", ".join(map(str, axes)) + ">" if axes else "array<i64>"


def mode_attrs(mode=None, fill_value=None, dtype=np.float32) -> str:
    """`, mode = "fill", fill_value = -7.5 : f32` (empty for no mode); a
    float fill value is written in hex (exact, NaN included)."""
    if mode is None:
        return ""
    text = f', mode = "{mode}"'
    if fill_value is None:
        return text
    dtype, element = np.dtype(dtype), ELEMENT_TYPES[np.dtype(dtype)]
    if dtype == np.bool_:
        return text + f", fill_value = {'true' if fill_value else 'false'}"
    if dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16):
        bits = np.array(fill_value, dtype).view(f"u{dtype.itemsize}")
        return text + f", fill_value = 0x{int(bits):0{2 * dtype.itemsize}X} : {element}"
    return text + f", fill_value = {int(fill_value)} : {element}"


def gather_module(input_shape, indices_shape, axes, dtype=np.float32,
                  index_dtype=np.int64, dyn_input=(), dyn_indices=(), mode=None, fill_value=None) -> str:
    """A module whose @main(%x, %i) is one gather_multiaxis (generic form).

    Dims listed in `dyn_input` / `dyn_indices` become `?`; the result type is
    `infer_output_shape` of the (partly dynamic) operand shapes; `mode` and
    `fill_value` as `mode_attrs` writes them.
    """
    in_shape = [None if d in dyn_input else n for d, n in enumerate(input_shape)]
    ix_shape = [None if d in dyn_indices else n for d, n in enumerate(indices_shape)]
    out_shape = infer_output_shape(in_shape, ix_shape, list(axes))
    tx = tensor_type(in_shape, dtype)
    ti = tensor_type(ix_shape, index_dtype)
    to = tensor_type(out_shape, dtype)
    return (
        f"func.func @main(%x: {tx}, %i: {ti}) -> {to} {{\n"
        f'  %r = "gmx.gather_multiaxis"(%x, %i) {{axes = {axes_attr(axes)}{mode_attrs(mode, fill_value, dtype)}}} '
        f": ({tx}, {ti}) -> {to}\n"
        f"  return %r : {to}\n"
        f"}}\n"
    )


def assert_identical(got, want) -> None:
    """Same type, dtype, shape and bytes (bit-exact for floats)."""
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    got_bytes = np.ascontiguousarray(got).reshape(-1).view(np.uint8)
    want_bytes = np.ascontiguousarray(want).reshape(-1).view(np.uint8)
    if not np.array_equal(got_bytes, want_bytes):
        assert_array_equal(got, want)  # a readable report of the values
        raise AssertionError(f"same values, different bits:\n{got!r}\n{want!r}")


def distinct_values(rng, shape, dtype) -> np.ndarray:
    """Pairwise different values (a shuffled arange) so a wrong read shows."""
    n = int(np.prod(shape, dtype=np.int64))
    return rng.permutation(n).reshape(shape).astype(dtype)


def random_bits(rng, shape, dtype) -> np.ndarray:
    """Arbitrary bit patterns: NaNs with payloads, infinities, subnormals, -0."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    raw = rng.integers(0, 256, size=n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape).copy()


def fold(coords: np.ndarray) -> np.ndarray:
    """L + [c] coordinate tuples -> the physical indices (last dim folded)."""
    *lead, last, c = coords.shape
    return coords.reshape(*lead, last * c)


def random_indices(rng, input_shape, logical, axes, dtype=np.int64) -> np.ndarray:
    """Tuples with coordinate j in [-size, size) of axis axes[j], folded.

    With no axes the single (ignored) coordinate is arbitrary, even out of
    range: the op must not read it.
    """
    if axes:
        cols = [rng.integers(-input_shape[a], input_shape[a], size=logical) for a in axes]
    else:
        cols = [rng.integers(-1000, 1000, size=logical)]
    return fold(np.stack(cols, axis=-1)).astype(dtype)
