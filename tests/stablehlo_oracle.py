"""StableHLO's reference interpreter as a test oracle, and whether gmx
lowers the out-of-range modes and the scatter yet.

    want = interpret(text, *arrays)         # eval_module on a StableHLO module, numpy out
    got = interpret_raised(text, *arrays)   # the same around gmx.reference's scatters
    if modes_lowered(): ...                 # gmx runs mode "clip" as StableHLO clamps
    if scatters_lowered(): ...              # gmx runs gmx.scatter_multiaxis
    jax_eager(fn, inputs)                   # JAX's own result
    index_vector, vector_last               # StableHLO's index vectors, for numpy transcriptions of its spec
"""

from __future__ import annotations

import functools

import numpy as np

import gmx.runtime
from gmx.dialect import make_context
from gmx.dialect.mlir import ir, stablehlo


def interpret(text: str, *arrays: np.ndarray) -> tuple:
    """The results of `text`'s `@main` on `arrays` by the StableHLO
    interpreter (`eval_module`), as numpy arrays of the result types (f32,
    f64, i32, i64)."""
    with make_context():
        module = ir.Module.parse(text)
        results = stablehlo.eval_module(module, [ir.DenseElementsAttr.get(np.ascontiguousarray(a)) for a in arrays])
        out = []
        for result in results:
            shaped = ir.RankedTensorType(result.type)
            cls = ir.DenseFPElementsAttr if isinstance(shaped.element_type, (ir.F32Type, ir.F64Type)) else ir.DenseIntElementsAttr
            dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}[str(shaped.element_type)]
            out.append(np.array(cls(result), dtype=dtype).reshape(shaped.shape))
        return tuple(out)


CLIP_PROBE = """
func.func @main(%x: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
"""


@functools.lru_cache(maxsize=None)
def modes_lowered() -> bool:
    """Whether gmx's lowering clamps in mode "clip" (x[7] of 3 reads x[2],
    x[-5] reads x[0]) rather than reporting the index."""
    x = np.array([10.0, 20.0, 30.0], np.float32)
    try:
        got = gmx.runtime.run(CLIP_PROBE, x, np.array([7, -5], np.int64))
    except IndexError:
        return False
    return bool(np.array_equal(got, [30.0, 10.0]))


def index_vector(indices: np.ndarray, ivd: int, batch: list) -> np.ndarray:
    """The index vector of StableHLO's `indices` (a gather's start indices,
    a scatter's scatter indices) at the batch position `batch` (the batch
    dims in order, the index vector dim `ivd` skipped)."""
    where = list(batch)
    where.insert(ivd, slice(None))
    return indices[tuple(where)]


def vector_last(indices: np.ndarray, ivd: int) -> np.ndarray:
    """`indices` with their index vector dim `ivd` last (a unit dim added where
    it is implicit, `ivd` = their rank), as a gmx op reads them."""
    return indices[..., None] if ivd == indices.ndim else np.moveaxis(indices, ivd, -1)


def jax_eager(fn, inputs) -> np.ndarray:
    """JAX's own result of `fn` on `inputs` (64-bit types kept, as `jax_to_stablehlo` exports them)."""
    import jax

    with jax.enable_x64(True):
        return np.asarray(fn(*inputs))


SCATTER_PROBE = """
func.func @main(%x: tensor<3xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<3xf32> {
  %s = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}
"""


@functools.lru_cache(maxsize=None)
def scatters_lowered() -> bool:
    """Whether gmx's lowering runs a `gmx.scatter_multiaxis` (False while
    `--gmx-lower-to-llvm` reports it has no lowering)."""
    x, u = np.zeros(3, np.float32), np.ones(2, np.float32)
    try:
        got = gmx.runtime.run(SCATTER_PROBE, x, np.array([2, 2], np.int64), u)
    except gmx.runtime.CompileError as error:
        if "has no lowering" in str(error):
            return False
        raise
    return bool(np.array_equal(got, [0.0, 0.0, 2.0]))


# tensor-dialect views the raising emits, as the StableHLO op the interpreter knows
_AS_STABLEHLO = {"tensor.expand_shape": "stablehlo.reshape", "tensor.collapse_shape": "stablehlo.reshape"}


def interpret_raised(text: str, *arrays: np.ndarray) -> tuple:
    """The results of a raised module's `@main` on `arrays`: StableHLO's
    interpreter for everything around its `gmx.scatter_multiaxis` ops
    (the raising's tensor views read as `stablehlo.reshape`,
    `tensor.concat` as `stablehlo.concatenate`) and
    `gmx.reference.scatter_multiaxis` for each of them, in program order."""
    from gmx.reference import scatter_multiaxis

    results = list(arrays)
    with make_context():
        module = ir.Module.parse(text)
        _as_stablehlo(module)
        count = sum(1 for op in _main_ops(module) if op.name == "gmx.scatter_multiaxis")
    for k in range(count):
        with make_context():
            module = ir.Module.parse(text)
            _as_stablehlo(module)
            scatter = [op for op in _main_ops(module) if op.name == "gmx.scatter_multiaxis"][k]
            kwargs = _scatter_kwargs(scatter)
            before = _returning(module, scatter)
        x, indices, updates = interpret(before, *results)
        results.append(scatter_multiaxis(x, indices, updates, **kwargs))
    with make_context():
        module = ir.Module.parse(text)
        _as_stablehlo(module)
        _cut(module, count)
        return interpret(str(module), *results)


def _main_ops(module) -> list:
    main = next(op for op in module.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    return list(main.regions[0].blocks[0].operations)


def _as_stablehlo(module) -> None:
    for op in _main_ops(module):
        name = _AS_STABLEHLO.get(op.name)
        if op.name == "tensor.concat":
            attributes = {"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                          ir.IntegerAttr(op.attributes["dim"]).value)}
            name = "stablehlo.concatenate"
        elif name is not None:
            attributes = {}
        else:
            continue
        operands = list(op.operands) if op.name == "tensor.concat" else [op.operands[0]]
        new = ir.Operation.create(name, results=[op.results[0].type], operands=operands, attributes=attributes,
                                  loc=op.location, ip=ir.InsertionPoint(op))
        op.results[0].replace_all_uses_with(new.results[0])
        op.erase()


def _scatter_kwargs(op) -> dict:
    from gmx.dialect import scatter_kwargs

    kwargs = scatter_kwargs(op)
    kwargs.pop("unique_indices")
    kwargs["axes"] = list(ir.DenseI64ArrayAttr(op.attributes["axes"]))
    return kwargs


def _returning(module, scatter) -> str:
    """The module whose `@main` (taking the results of the scatters before
    `scatter` as extra arguments) returns `scatter`'s operands."""
    operands = list(scatter.operands)
    index = [op for op in _main_ops(module) if op.name == "gmx.scatter_multiaxis"].index(scatter)
    _cut(module, index)
    main = next(op for op in module.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    block = main.regions[0].blocks[0]
    scatter.results[0].replace_all_uses_with(scatter.operands[0])
    returned = list(block.operations)[-1]
    ir.Operation.create("func.return", operands=operands, loc=returned.location, ip=ir.InsertionPoint(returned))
    returned.erase()
    rest = [op for op in _main_ops(module) if op.name == "gmx.scatter_multiaxis"]
    for op in rest:
        op.results[0].replace_all_uses_with(op.operands[0])
        op.erase()
    _retype(main, [v.type for v in operands])
    return str(module)


def _cut(module, count: int) -> None:
    """The first `count` scatters of `@main` replaced by new trailing arguments."""
    main = next(op for op in module.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    block = main.regions[0].blocks[0]
    for op in [op for op in _main_ops(module) if op.name == "gmx.scatter_multiaxis"][:count]:
        argument = block.add_argument(op.results[0].type, op.location)
        op.results[0].replace_all_uses_with(argument)
        op.erase()
    returned = list(block.operations)[-1]
    _retype(main, [v.type for v in returned.operands])


def _retype(main, results: list) -> None:
    inputs = [a.type for a in main.regions[0].blocks[0].arguments]
    for stale in ("arg_attrs", "res_attrs"):
        if stale in main.attributes:
            del main.attributes[stale]
    main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
