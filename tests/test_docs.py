"""docs/semantics.md says what gmx does.

- Every ```mlir block parses and verifies with gmx-opt, under
  `--verify-diagnostics`: a block with `expected-error` comments must fail
  with exactly those messages, any other block must not fail. A block right
  after `<!-- output of the previous block through: gmx-opt FLAGS -->` is
  what `gmx-opt FLAGS` prints for the previous block.
- Every table of examples is recomputed, and the worked examples are
  exactly tests/worked_examples.py's: a table whose kind this module does
  not know fails, so no example in the doc goes unchecked.
- Every `docs/semantics.md#<anchor>` in the repository names a heading, and
  no tracked file refers to notes a clone does not have.
- The tables of docs/passes.md that the code says (passes, patterns) are
  what it says now (`doc_tables.py`).

The transcripts of README.md and docs/*.md are run by test_doc_transcripts.py.
"""

from __future__ import annotations

import ast
import functools
import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from gmx.dialect.shapes import infer_output_shape, infer_scatter_shape, logical_indices_shape
from gmx.dialect.reductions import RULES as REDUCTION_RULES
from gmx.dialect.reductions import Reduction
from gmx.reference import gather_elements_plan, gather_multiaxis, gather_nd_plan, onnx_gather_plan, scatter_multiaxis
from gmx.tools import gmx_opt
from worked_examples import EXAMPLES, GATHER_TABLE, P, Q, R, S, SHAPE_EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "semantics.md"
DOC_LINES = DOC.read_text().splitlines()


# --- reading the doc ------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    text: str
    flags_of_previous: tuple[str, ...] | None  # set when it is a previous block's output


OUTPUT_MARK = re.compile(r"<!-- output of the previous block through: gmx-opt (.*) -->")


def mlir_blocks() -> list[Block]:
    blocks, i = [], 0
    while i < len(DOC_LINES):
        if DOC_LINES[i].strip() != "```mlir":
            i += 1
            continue
        end = DOC_LINES.index("```", i + 1)
        mark = OUTPUT_MARK.fullmatch(DOC_LINES[i - 1].strip()) if i else None
        blocks.append(Block(i + 1, "\n".join(DOC_LINES[i + 1 : end]) + "\n",
                            tuple(mark.group(1).split()) if mark else None))
        i = end + 1
    return blocks


def tables() -> list[tuple[int, list[str], list[list[str]]]]:
    """(line, header cells, rows of cells) of every Markdown table; cells
    stripped of surrounding backticks."""
    found, i = [], 0
    while i < len(DOC_LINES):
        if not DOC_LINES[i].startswith("|"):
            i += 1
            continue
        start = i
        while i < len(DOC_LINES) and DOC_LINES[i].startswith("|"):
            i += 1
        rows = [[cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
                for line in DOC_LINES[start:i]]
        found.append((start + 1, rows[0], rows[2:]))
    return found


def tables_of(kind: str) -> list[dict[str, str]]:
    """The rows, as {column: cell} dicts, of every table of one kind."""
    return [dict(zip(header, row)) for _, header, rows in tables() if table_kind(header) == kind
            for row in rows]


FRONTEND_OPS = {"GatherElements": "gather_elements", "Gather": "gather", "GatherND": "gather_nd"}


def table_kind(header: list[str]) -> str | None:
    first = header[0]
    if first in FRONTEND_OPS:
        return "worked example"
    if header[:2] == ["input", "indices"] and "logical indices" in header:
        return "shape example"
    return {
        "name": "named input",
        "gather_multiaxis": "gather_multiaxis example",
        "frontend": "mapping",
        "data": "onnx gather table",
        "class": "equivalence class",
        "symbol": "notation",
        "mode": "mode example",
        "scatter mode": "scatter mode example",
        "reduction": "reduction",
        "scatter_multiaxis": "scatter example",
        "scatter frontend": "scatter mapping",
        "documented scatter": "documented scatter",
    }.get(first)


def shape(cell: str) -> tuple[int, ...]:
    """`4x5x6` -> (4, 5, 6)."""
    return tuple(int(d) for d in cell.split("x"))


def symbolic_shape(cell: str) -> tuple[int, ...]:
    """`(P, 1, R)` -> (4, 1, 2) with the sizes the tests use; `()` -> ()."""
    sizes = {"P": P, "Q": Q, "R": R, "S": S}
    inner = cell.strip("()").strip()
    return tuple(sizes[d] if d in sizes else int(d) for d in inner.split(", ")) if inner else ()


def literal(cell: str):
    return ast.literal_eval(cell)


# --- mlir blocks ------------------------------------------------------------------

BLOCKS = mlir_blocks()


def run_gmx_opt(tmp_path: Path, name: str, text: str, *flags: str) -> str:
    source, output = tmp_path / f"{name}.mlir", tmp_path / f"{name}.out.mlir"
    source.write_text(text)
    argv = [str(source), *flags, "--verify-diagnostics", "-o", str(output)]
    assert gmx_opt.main(gmx_opt.parse_arguments(argv)) == 0, f"gmx-opt {' '.join(flags)} failed"
    return output.read_text()


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: f"line{b.line}")
def test_mlir_block(block, tmp_path):
    printed = run_gmx_opt(tmp_path, f"semantics.md-{block.line}", block.text)
    if block.flags_of_previous is not None:
        previous = BLOCKS[BLOCKS.index(block) - 1]
        assert run_gmx_opt(tmp_path, "previous", previous.text, *block.flags_of_previous) == printed


def test_doc_has_valid_invalid_and_output_blocks():
    assert sum("expected-error" in b.text for b in BLOCKS) >= 8
    assert sum("expected-error" not in b.text for b in BLOCKS) >= 8
    assert any(b.flags_of_previous for b in BLOCKS)


# --- tables -------------------------------------------------------------------------


def test_every_table_is_checked():
    unknown = [line for line, header, _ in tables() if table_kind(header) is None]
    assert not unknown, f"tables of no known kind at docs/semantics.md lines {unknown}"


def test_shape_examples():
    rows = tables_of("shape example")
    documented = set()
    for row in rows:
        input_shape, indices_shape, axes = literal(row["input"]), literal(row["indices"]), literal(row["axes"])
        assert logical_indices_shape(indices_shape, axes) == literal(row["logical indices"])
        assert infer_output_shape(input_shape, indices_shape, axes) == literal(row["output"])
        documented.add((tuple(input_shape), tuple(indices_shape), tuple(axes), tuple(literal(row["output"]))))
    assert documented == {(e.input_shape, e.indices_shape, e.axes, e.output_shape) for e in SHAPE_EXAMPLES}


@pytest.mark.parametrize("row", tables_of("gather_multiaxis example"), ids=lambda row: row["gather_multiaxis"])
def test_gather_multiaxis_example(row):
    out = gather_multiaxis(np.array(literal(row["input"])), np.array(literal(row["indices"])), literal(row["axes"]))
    expected = np.array(literal(row["output"]))
    assert out.shape == expected.shape
    assert_array_equal(out, expected)


@pytest.mark.parametrize("row", tables_of("mode example"), ids=lambda row: row["mode"])
def test_mode_example(row):
    """The reference in that mode, and numpy's or JAX's expression beside it."""
    x, i = np.array(literal(row["input"])), np.array(literal(row["indices"]))
    fill = literal(row["fill_value"]) if row["fill_value"] else None
    expected = np.array(literal(row["output"]))
    assert_array_equal(gather_multiaxis(x, i, [0], mode=row["mode"], fill_value=fill), expected)
    namespace = {"np": np, "x": x, "i": i}
    if "jnp." in row["same as"]:
        jnp = pytest.importorskip("jax.numpy")
        namespace.update(jnp=jnp, x=jnp.asarray(x), i=jnp.asarray(i))
    assert_array_equal(np.asarray(eval(row["same as"], namespace)), expected)


@pytest.mark.parametrize("row", tables_of("scatter mode example"), ids=lambda row: row["scatter mode"])
def test_scatter_mode_example(row):
    """The scatter reference in that mode, and JAX's or StableHLO's interpreter beside it."""
    x, i, u = (np.array(literal(row[k])) for k in ("input", "indices", "updates"))
    expected = np.array(literal(row["output"]))
    assert_array_equal(scatter_multiaxis(x, i, u, [0], mode=row["scatter mode"].strip("`")), expected)
    namespace = {"np": np, "x": x, "i": i, "u": u, "stablehlo": _StableHlo()}
    if "jnp." in row["same as"]:
        jnp = pytest.importorskip("jax.numpy")
        namespace.update(jnp=jnp)
    assert_array_equal(np.asarray(eval(row["same as"].strip("`"), namespace)), expected)


@pytest.mark.parametrize("row", tables_of("reduction"), ids=lambda row: row["reduction"])
def test_reduction_row(row):
    """The reductions table is `gmx.dialect.reductions.RULES`: its identity
    and its numpy ufunc."""
    rule = REDUCTION_RULES[Reduction(row["reduction"].split()[0].strip("`"))]
    assert row["numpy"].strip("`") == (f"np.{rule.ufunc.__name__}.at" if rule.ufunc else "a[i] = v")
    identity = rule.identity_of(np.float32)
    spelled = {None: "—", 0: "0", 1: "1", -np.inf: "lowest value (`-inf`)", np.inf: "highest value (`+inf`)"}
    assert row["identity"] == spelled[None if identity is None else float(identity)]


def _assign(x, i, u):
    out = x.copy()
    out[i] = u
    return out


def _ufunc_at(ufunc, x, i, u):
    out = x.copy()
    ufunc.at(out, i, u)
    return out


def _put(x, i, u, mode):
    out = x.copy()
    np.put(out, i, u, mode=mode)
    return out


def _index_put_add(x, i, j, v):
    import torch

    t = torch.tensor(x)
    n = t.shape[1]
    t.index_put_((torch.tensor(i)[:, None], torch.arange(n)[None, :], torch.tensor(j)[:, None]),
                 torch.tensor(v, dtype=t.dtype), accumulate=True)
    return t.numpy()


@pytest.mark.parametrize("row", tables_of("scatter example"), ids=lambda row: row["scatter_multiaxis"])
def test_scatter_example(row):
    """The reference, and the library expression beside it."""
    x, i, u = (np.array(literal(row[k])) for k in ("input", "indices", "updates"))
    expected = np.array(literal(row["output"]))
    assert_array_equal(scatter_multiaxis(x, i, u, literal(row["axes"]), row["mode"], row["reduction"]), expected)
    namespace = {"np": np, "x": x, "i": i, "u": u, "_assign": _assign, "_ufunc_at": _ufunc_at, "_put": _put,
                 "_index_put_add": _index_put_add}
    if "torch." in row["same as"]:
        namespace["torch"] = pytest.importorskip("torch")
    if "jnp." in row["same as"]:
        namespace["jnp"] = pytest.importorskip("jax.numpy")
    assert_array_equal(np.asarray(eval(row["same as"], namespace)), expected)


# --- worked examples ---------------------------------------------------------------

PLANS = {"gather": onnx_gather_plan, "gather_elements": gather_elements_plan, "gather_nd": gather_nd_plan}


def named_inputs() -> dict[str, np.ndarray]:
    named = {}
    for row in tables_of("named input"):
        value = np.array(literal(row["value"]))
        assert value.shape == shape(row["shape"]), row["name"]
        named[row["name"]] = value
    return named


def documented_examples() -> dict[str, dict]:
    rows = {}
    for _, header, body in tables():
        if table_kind(header) != "worked example":
            continue
        for cells in body:
            row = dict(zip(header, cells))
            name = row.pop(header[0])
            assert name not in rows, f"{name} twice in docs/semantics.md"
            rows[name] = dict(row, op=FRONTEND_OPS[header[0]], attr=header[1])
    return rows


NAMED = named_inputs()
DOCUMENTED = documented_examples()


def test_worked_examples_are_the_tested_ones():
    assert sorted(DOCUMENTED) == sorted(e.name for e in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_worked_example(example):
    """The doc's row is the example, and its gmx call computes the output."""
    row = DOCUMENTED[example.name]
    assert (row["op"], {row["attr"]: int(row[row["attr"]])}) == (example.op, example.attrs)
    input = NAMED[row["input"]] if row["input"] in NAMED else np.array(literal(row["input"]))
    indices, output = np.array(literal(row["indices"])), np.array(literal(row["output"]))
    for documented, actual in [(input, example.input), (indices, example.indices), (output, example.expected)]:
        assert documented.shape == actual.shape and documented.dtype.kind == actual.dtype.kind
        assert_array_equal(documented.astype(actual.dtype), actual)

    mid = example.intermediate or PLANS[example.op](example.input.shape, example.indices.shape, **example.attrs)
    gmx = (shape(row["gmx input"]), shape(row["gmx indices"]), tuple(literal(row["axes"])), shape(row["gmx output"]))
    assert gmx == (mid.input_shape, mid.indices_shape, tuple(mid.axes), mid.output_shape)
    out = gather_multiaxis(example.input.reshape(gmx[0]), example.indices.reshape(gmx[1]), gmx[2])
    assert out.shape == gmx[3]
    assert_array_equal(out.reshape(example.expected.shape), example.expected)


def test_onnx_gather_table():
    documented = set()
    for row in tables_of("onnx gather table"):
        axis = int(row["axis"])
        input_shape, indices_shape = symbolic_shape(row["data"]), symbolic_shape(row["indices"])
        mid = tuple(symbolic_shape(row[c]) for c in ("gmx input", "gmx indices", "gmx output"))
        x = np.arange(math.prod(input_shape)).reshape(input_shape)
        idx = (np.arange(math.prod(indices_shape)).reshape(indices_shape) * 7) % input_shape[axis]
        expected = np.take(x, idx, axis=axis)
        assert expected.shape == symbolic_shape(row["output"])
        out = gather_multiaxis(x.reshape(mid[0]), idx.reshape(mid[1]), [axis])
        assert out.shape == mid[2]
        assert_array_equal(out.reshape(expected.shape), expected)
        documented.add((input_shape, indices_shape, axis, expected.shape, *mid))
    assert documented == {
        (r.input_shape, r.indices_shape, r.axis, r.result_shape,
         r.intermediate.input_shape, r.intermediate.indices_shape, r.intermediate.output_shape)
        for r in GATHER_TABLE
    }
    assert all(r.intermediate.axes == (r.axis,) for r in GATHER_TABLE)


# --- every known gather: the frontends themselves ------------------------------------


class _Onnx:
    """`onnx.Gather(x, idx, axis=1)`: one node run by ONNX's reference evaluator."""

    def __getattr__(self, op_type):
        from onnx import helper
        from onnx.reference import ReferenceEvaluator

        def run(*arrays, **attributes):
            names = [f"in{k}" for k in range(len(arrays))]
            node = helper.make_node(op_type, names, ["y"], **attributes)
            return ReferenceEvaluator(node).run(None, dict(zip(names, arrays)))[0]

        return run


class _Tosa:
    """`tosa.gather(x, idx)`: a TOSA program compiled by gmx.runtime (unraised)."""

    @staticmethod
    def gather(x, idx):
        from gmx.runtime import run

        (n, k, c), w = x.shape, idx.shape[1]
        asm = (
            f"func.func @main(%x: tensor<{n}x{k}x{c}xf32>, %i: tensor<{n}x{w}xi32>) -> tensor<{n}x{w}x{c}xf32> {{\n"
            f"  %0 = tosa.gather %x, %i : (tensor<{n}x{k}x{c}xf32>, tensor<{n}x{w}xi32>) -> tensor<{n}x{w}x{c}xf32>\n"
            f"  return %0 : tensor<{n}x{w}x{c}xf32>\n}}\n"
        )
        return run(asm, x, idx.astype(np.int32))


def frontend_inputs(cell: str, gmx_input, axes) -> dict[str, np.ndarray]:
    """`x: 4x5x6, idx: 3x2` -> distinct f32 data and indices valid on every axis."""
    shapes = dict(part.split(": ") for part in cell.split(", "))
    rng = np.random.default_rng(0)
    bound = min(gmx_input[a] for a in axes)
    return {name: np.arange(math.prod(shape(s)), dtype=np.float32).reshape(shape(s)) if name == "x"
            else rng.integers(0, bound, shape(s)) for name, s in shapes.items()}


def run_frontend(expression: str, inputs: dict[str, np.ndarray]) -> np.ndarray:
    if expression.startswith("torch."):
        import torch

        namespace = {"torch": torch, **{n: torch.from_numpy(v) for n, v in inputs.items()}}
        return eval(expression, namespace).numpy()
    return np.asarray(eval(expression, {"numpy": np, "onnx": _Onnx(), "tosa": _Tosa(), **inputs}))


MAPPINGS = tables_of("mapping")


@pytest.mark.parametrize("row", MAPPINGS, ids=lambda row: row["frontend"])
def test_mapping(row):
    gmx_input, gmx_indices, axes = shape(row["gmx input"]), shape(row["gmx indices"]), literal(row["axes"])
    inputs = frontend_inputs(row["inputs"], gmx_input, axes)
    expected = run_frontend(row["frontend"], inputs)
    assert expected.shape == shape(row["result"])

    index_arrays = [v for n, v in inputs.items() if n != "x"]
    indices = index_arrays[0] if len(index_arrays) == 1 else np.stack(index_arrays, axis=-1)
    out = gather_multiaxis(inputs["x"].reshape(gmx_input), indices.reshape(gmx_indices), axes)
    assert out.shape == shape(row["gmx output"])
    assert_array_equal(out.reshape(expected.shape), expected)


def test_mapping_classes_are_the_equivalence_classes():
    classes = [row["class"] for row in tables_of("equivalence class")]
    assert len(classes) == len(set(classes)) == 5
    assert {row["class"] for row in MAPPINGS} == set(classes)


# --- every known scatter: the frontends themselves -------------------------------------


ELEMENT_TYPES = {np.dtype(np.float32): "f32", np.dtype(np.int64): "i64", np.dtype(np.int32): "i32"}


def _tensor_type(array: np.ndarray) -> str:
    return f"tensor<{'x'.join(map(str, array.shape))}x{ELEMENT_TYPES[array.dtype]}>"


def _run_program(body: str, *arrays: np.ndarray) -> np.ndarray:
    """`@main(%x, %i, %u)` returning `%0` of `body`, compiled by gmx.runtime as written."""
    from gmx.runtime import run

    x, i, u = (_tensor_type(a) for a in arrays)
    asm = f"func.func @main(%x: {x}, %i: {i}, %u: {u}) -> {x} {{\n{body}\n  return %0 : {x}\n}}\n"
    return run(asm, *arrays)


class _TosaScatter:
    """`tosa.scatter(x, idx, u)`: a TOSA program compiled by gmx.runtime."""

    @staticmethod
    def scatter(x, idx, u):
        idx = idx.astype(np.int32)
        types = f"({_tensor_type(x)}, {_tensor_type(idx)}, {_tensor_type(u)}) -> {_tensor_type(x)}"
        return _run_program(f"  %0 = tosa.scatter %x, %i, %u : {types}", x, idx, u)


class _TmTensor:
    """`tm_tensor.scatter(x, idx, u, add=...)`: torch-mlir's scatter with
    `dimension_map` the leading dims, its region replacing or adding,
    compiled by gmx.runtime."""

    @staticmethod
    def scatter(x, idx, u, add=False):
        dims = ", ".join(str(d) for d in range(idx.shape[-1]))
        combine = "%s = arith.addf %a, %b : f32\n    tm_tensor.yield %s : f32" if add else "tm_tensor.yield %a : f32"
        body = (f"  %0 = tm_tensor.scatter {{dimension_map = array<i64: {dims}>}} unique_indices(false) "
                f"ins(%u, %i : {_tensor_type(u)}, {_tensor_type(idx)}) outs(%x : {_tensor_type(x)}) {{\n"
                f"  ^bb0(%a: f32, %b: f32):\n    {combine}\n  }} -> {_tensor_type(x)}")
        return _run_program(body, x, idx.astype(np.int64), u)


class _StableHlo:
    """`stablehlo.scatter` of rows into dim 0 (torch-mlir's `index_put` /
    `index_add` form: one index per row, whole windows of the other dims),
    run by StableHLO's reference interpreter: `set` returns the update,
    `add` sums."""

    PROGRAM = """
func.func @main(%x: {x}, %i: tensor<{k}x1xi64>, %u: {u}) -> {x} {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = {windows}, inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>}}> ({{
  ^bb0(%a: tensor<{t}>, %b: tensor<{t}>):
    {body}
  }}) : ({x}, tensor<{k}x1xi64>, {u}) -> {x}
  return %0 : {x}
}}
"""

    def _run(self, x, i, u, body: str) -> np.ndarray:
        from stablehlo_oracle import interpret

        element = {"float32": "f32", "int64": "i64"}[str(x.dtype)]
        tensor = lambda a: f"tensor<{'x'.join(map(str, (*a.shape, element)))}>"  # noqa: E731
        text = self.PROGRAM.format(x=tensor(x), u=tensor(u), k=len(i), t=element, body=body.format(t=element),
                                   windows=list(range(1, u.ndim)))
        return interpret(text, x, np.asarray(i, np.int64)[:, None], u.astype(x.dtype))[0]

    def set(self, x, i, u):
        return self._run(x, i, u, "stablehlo.return %b : tensor<{t}>")

    def add(self, x, i, u):
        return self._run(x, i, u, "%s = stablehlo.add %a, %b : tensor<{t}>\n    stablehlo.return %s : tensor<{t}>")


def run_scatter_frontend(expression: str, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """The frontend expression on copies of the inputs: its value, or `x`
    after it where it is a statement or an in-place call."""
    arrays = {name: value.copy() for name, value in inputs.items()}
    if "torch." in expression or ".index_put_" in expression:
        import torch

        namespace = {"torch": torch, **{n: torch.from_numpy(v) for n, v in arrays.items()}}
    elif ".at[" in expression:
        jax = pytest.importorskip("jax")
        namespace = {"jax": jax, **{n: jax.numpy.asarray(v) for n, v in arrays.items()}}
    else:
        namespace = {"np": np, "onnx": _Onnx(), "tosa": _TosaScatter(), "tm_tensor": _TmTensor(), "stablehlo": _StableHlo(),
                     **arrays}
    try:
        value = eval(expression, namespace)
    except SyntaxError:
        exec(expression, namespace)
        value = None
    value = namespace["x"] if value is None else value
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def scatter_inputs(row: dict[str, str], seed: int) -> dict[str, np.ndarray]:
    """Small-integer f32 data and updates (sums and products exact), and
    index values valid on every axis, drawn also outside in modes other
    than raise."""
    rng = np.random.default_rng(seed)
    gmx_input, axes = shape(row["gmx input"]), literal(row["axes"])
    bound = min(gmx_input[a] for a in axes)
    low, high = (0, bound) if row["mode"] == "raise" else (-2 * bound, 2 * bound)
    shapes = dict(part.split(": ") for part in row["inputs"].split(", "))
    return {name: rng.integers(-4, 5, shape(s)).astype(np.float32) if name in ("x", "u")
            else rng.integers(low, high, shape(s)) for name, s in shapes.items()}


def gmx_operands(row: dict[str, str], inputs: dict[str, np.ndarray]):
    """The inputs reshaped to the row's gmx shapes (several index arrays stacked into tuples)."""
    index_arrays = [v for n, v in inputs.items() if n not in ("x", "u")]
    indices = index_arrays[0] if len(index_arrays) == 1 else np.stack(index_arrays, axis=-1)
    return (inputs["x"].reshape(shape(row["gmx input"])), indices.reshape(shape(row["gmx indices"])),
            inputs["u"].reshape(shape(row["gmx updates"])))


def shares_a_position(row: dict[str, str], inputs: dict[str, np.ndarray]) -> bool:
    """Whether two updates of the row's op meet at one position."""
    x, indices, updates = gmx_operands(row, inputs)
    counts = scatter_multiaxis(np.zeros(x.shape, np.int64), indices, np.ones(updates.shape, np.int64),
                               literal(row["axes"]), row["mode"], "add")
    return bool((counts > 1).any())


def scatter_row_inputs(row: dict[str, str]) -> dict[str, np.ndarray]:
    """The inputs of the first seed whose updates share no position where
    the row has no reduction (no library but numpy says which one wins)."""
    for seed in range(200):
        inputs = scatter_inputs(row, seed)
        if row["reduction"] != "none" or not shares_a_position(row, inputs):
            return inputs
    raise AssertionError(f"no duplicate-free indices for {row['scatter frontend']}")


SCATTER_MAPPINGS = tables_of("scatter mapping")


@pytest.mark.parametrize("row", SCATTER_MAPPINGS, ids=lambda row: row["scatter frontend"])
def test_scatter_mapping(row):
    """The library, the row's gmx.reference mapping and, where reshapes are
    all there is around the op, the op on the reshaped inputs agree."""
    import gmx.reference as reference

    inputs = scatter_row_inputs(row)
    expected = run_scatter_frontend(row["scatter frontend"], inputs)
    assert expected.shape == inputs["x"].shape
    mapped = eval(row["gmx.reference"], {"np": np, **vars(reference), **inputs})
    assert_array_equal(mapped, expected)
    x, indices, updates = gmx_operands(row, inputs)
    infer_scatter_shape(x.shape, indices.shape, updates.shape, literal(row["axes"]))
    if row["around the op"] == "reshapes":
        out = scatter_multiaxis(x, indices, updates, literal(row["axes"]), row["mode"], row["reduction"])
        assert_array_equal(out.reshape(expected.shape), expected)


def test_scatter_mapping_table_covers_every_reduction_and_scatter_mode():
    from gmx.dialect.modes import OpKind, modes_of
    from gmx.dialect.reductions import REDUCTIONS

    assert {row["reduction"] for row in SCATTER_MAPPINGS} == set(REDUCTIONS)
    assert {row["mode"] for row in SCATTER_MAPPINGS} == set(modes_of(OpKind.SCATTER))


@pytest.mark.parametrize("row", tables_of("documented scatter"), ids=lambda row: row["documented scatter"])
def test_documented_scatter(row):
    """The gmx.reference mapping gives the documented output (and ONNX's
    reference evaluator the same, for ONNX's examples)."""
    import gmx.reference as reference

    x, i, u = (np.array(literal(row[k])) for k in ("input", "indices", "updates"))
    x = x.astype(np.float32) if x.dtype.kind == "f" else x
    u = u.astype(x.dtype)
    out = eval(row["gmx.reference"], {**vars(reference), "x": x, "i": i, "u": u})
    np.testing.assert_allclose(out, np.array(literal(row["output"]), x.dtype), rtol=1e-6)
    if row["documented scatter"].startswith("ONNX"):
        op, _, detail = row["documented scatter"].partition(", ")
        attributes = {"axis": int(detail.split()[-1])} if detail.startswith("axis") else {}
        if detail.startswith("reduction"):
            attributes = {"axis": 1, "reduction": detail.split()[-1]}
        if "negative" in detail:
            attributes = {"axis": 1}
        assert_array_equal(out, getattr(_Onnx(), op.split()[1])(x, i, u, **attributes))


# --- references into the doc and out of the repository ---------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = heading.lstrip("#").strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.cache
def tracked_texts() -> dict[str, str]:
    """Tracked text file -> its text, read once for both tests below."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    texts = {}
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file() and b"\0" not in (data := path.read_bytes()):
            texts[name] = data.decode("utf-8", errors="replace")
    return texts


def test_links_into_the_doc_name_its_headings():
    anchors = {slug(line) for line in DOC_LINES if line.startswith("#")}
    links = [("docs/semantics.md", a) for a in re.findall(r"\]\(#([\w-]+)\)", "\n".join(DOC_LINES))]
    for name, text in tracked_texts().items():
        links += [(name, anchor) for anchor in re.findall(r"docs/semantics\.md#([\w-]+)", text)]
    assert any(name != "docs/semantics.md" for name, _ in links), "nothing links into docs/semantics.md"
    assert [link for link in links if link[1] not in anchors] == []


# Notes that a clone does not have: the team's design notes beside the
# repository, the proposal drafts the project started from, and the
# numbered issues of a tracker outside it.
OUTSIDE = re.compile(
    r"\.\./shared|DESIGN\.md|\bissue \d+\b|\bseeds?[ /]0\d\d|\bseeds[/']|\bseed's|\bseed (?:documents?|examples?)\b"
    r"|\b00\d_[0-9a-f]{16}\b",
    re.IGNORECASE,
)


def test_nothing_refers_outside_the_repository():
    found = [
        f"{name}:{n}: {line.strip()}"
        for name, text in tracked_texts().items()
        for n, line in enumerate(text.splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not found, "references to notes outside the repository:\n" + "\n".join(found)


# --- the parts of docs/passes.md that the code says --------------------------------------


def test_generated_tables_are_current():
    """The pass and pattern tables of docs/passes.md are what the registry
    and the pattern table give (`.venv/bin/python tests/doc_tables.py`
    rewrites them)."""
    from doc_tables import PASSES_DOC, regenerate

    text = PASSES_DOC.read_text()
    assert regenerate(text) == text, "docs/passes.md is stale: run .venv/bin/python tests/doc_tables.py"


# --- links between README.md and docs/ ---------------------------------------------------

MANUAL = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def headings(path: Path) -> set[str]:
    lines, inside, found = path.read_text().splitlines(), False, set()
    for line in lines:
        inside ^= line.startswith("```")
        if not inside and line.startswith("#"):
            found.add(slug(line))
    return found


def test_links_between_the_docs_resolve():
    """Every relative link of README.md and docs/*.md names a file of the
    repository and, with `#anchor`, one of its headings."""
    broken, count = [], 0
    for doc in MANUAL:
        for target in LINK.findall(doc.read_text()):
            if re.match(r"[a-z]+://", target):
                continue
            count += 1
            name, _, anchor = target.partition("#")
            path = (doc.parent / name).resolve() if name else doc
            if not path.exists() or (anchor and anchor not in headings(path)):
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert count >= 20
    assert not broken, "links to nothing:\n" + "\n".join(broken)
