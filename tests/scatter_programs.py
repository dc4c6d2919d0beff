"""Scatter programs and cases for the runtime tests: module text of many
scatters in one function (compiling dominates: one module per group of
cases), random cases over ranks, axes, broadcasts, modes, reductions and
dtypes.

A helper module (not a test module): test modules import it, never each
other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gather_programs import axes_attr, random_indices, tensor_type
from gmx.dialect.reductions import reduction_rule
from gmx.dialect.shapes import infer_output_shape, logical_indices_shape

SCATTER_LINE = 2  # line of the (first) scatter op in scatter_module's text


@dataclass(frozen=True)
class Case:
    input_shape: tuple
    indices_shape: tuple
    updates_shape: tuple
    axes: tuple
    mode: str = "raise"
    reduction: str = "none"
    dtype: object = np.float32
    unique: bool = False

    def attributes(self) -> str:
        text = f"axes = {axes_attr(self.axes)}"
        if self.mode != "raise":
            text += f', mode = "{self.mode}"'
        if self.reduction != "none":
            text += f', reduction = "{self.reduction}"'
        return text + (", unique_indices" if self.unique else "")


def scatter_module(cases, index_dtype=np.int64) -> str:
    """A module whose @main takes (input, indices, updates) of each case in
    turn and returns the scatter of each (generic form, one per line from
    SCATTER_LINE on)."""
    arguments, lines, results = [], [], []
    for k, case in enumerate(cases):
        tx = tensor_type(case.input_shape, case.dtype)
        ti = tensor_type(case.indices_shape, index_dtype)
        tu = tensor_type(case.updates_shape, case.dtype)
        arguments += [f"%x{k}: {tx}", f"%i{k}: {ti}", f"%u{k}: {tu}"]
        lines.append(f'  %r{k} = "gmx.scatter_multiaxis"(%x{k}, %i{k}, %u{k}) {{{case.attributes()}}} '
                     f": ({tx}, {ti}, {tu}) -> {tx}")
        results.append((f"%r{k}", tx))
    names = ", ".join(n for n, _ in results)
    types = ", ".join(t for _, t in results)
    return (f"func.func @main({', '.join(arguments)}) -> ({types}) {{\n" + "\n".join(lines)
            + f"\n  return {names} : {types}\n}}\n")


def random_case(rng, dtype, mode: str, reduction: str) -> Case:
    """Rank 1-4, 1-2 axes in any order (or none), indices and updates
    broadcast on random dims, small axes (many duplicates)."""
    rank = int(rng.integers(1, 5))
    input_shape = tuple(int(n) for n in rng.integers(1, 5, size=rank))
    count = int(rng.integers(0, min(rank, 2) + 1))
    axes = tuple(int(a) for a in rng.permutation(rank)[:count])
    c = max(1, len(axes))
    logical = [int(rng.integers(1, 6)) if d in axes or input_shape[d] == 1 else
               (1 if rng.random() < 0.3 else input_shape[d]) for d in range(rank)]
    indices_shape = tuple(logical[:-1]) + (logical[-1] * c,)
    gathered = infer_output_shape(input_shape, indices_shape, list(axes))
    updates_shape = tuple(1 if rng.random() < 0.25 else n for n in gathered)
    return Case(input_shape, indices_shape, updates_shape, axes, mode, reduction, dtype)


def case_arguments(rng, case: Case, spread: int = 0):
    """(input, indices, updates) of `case`: indices in range (negatives
    too), or up to `spread` outside the axis on either side; values with
    NaNs where the dtype has them."""
    logical = logical_indices_shape(list(case.indices_shape), list(case.axes))
    indices = random_indices(rng, case.input_shape, logical, list(case.axes))
    if spread and case.axes:
        indices = indices + rng.integers(-spread, spread + 1, size=indices.shape)
    return values(rng, case.input_shape, case.dtype), indices, values(rng, case.updates_shape, case.dtype)


def values(rng, shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    x = rng.standard_normal(shape) * 4
    x[rng.random(shape) < 0.05] = np.nan
    return x.astype(dtype)


def takes(dtype, reduction: str) -> bool:
    """Whether a scatter of `dtype` may take `reduction` (and the lowering builds it)."""
    rule = reduction_rule(reduction)
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rule.takes_i1
    return kind != "c" or not rule.combines
