"""The worked examples of docs/semantics.md end to end through the real
command-line tools.

For every WorkedExample with intermediate values: an .mlir file whose @main()
holds input and indices as constants, gathers on the intermediate shapes and
axes, and reshapes to the example's result shape; `gmx-opt
--convert-gmx-to-linalg` then `gmx-run` must print / write exactly the
example's expected output.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from gmx.tools import gmx_opt, gmx_run
from gmx.reference import gather_elements_plan, gather_nd_plan, onnx_gather_plan
from worked_examples import EXAMPLES, WITH_INTERMEDIATE, Intermediate


MLIR_TYPES = {
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.float32): "f32",
}


def tensor_type(shape, dtype) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + MLIR_TYPES[np.dtype(dtype)] + ">"


def dense(array: np.ndarray) -> str:
    """`dense<...>` literal of an array (nested lists; floats exact via repr)."""
    def item(v):
        return repr(float(v)) if isinstance(v, float) else str(v)

    def nest(v):
        return "[" + ", ".join(nest(x) for x in v) + "]" if isinstance(v, list) else item(v)

    return f"dense<{nest(array.tolist())}>"


def reshape_ops(value: str, src_shape, dst_shape, dtype, style: str) -> tuple[list[str], str]:
    """Ops reshaping `value` from src_shape to dst_shape; (lines, result name)."""
    src, dst = tensor_type(src_shape, dtype), tensor_type(dst_shape, dtype)
    if style == "tensor.reshape":
        shape_type = f"tensor<{len(dst_shape)}xi64>"
        shape = f"dense<[{', '.join(map(str, dst_shape))}]>"
        return [
            f"%shape = arith.constant {shape} : {shape_type}",
            f"%out = tensor.reshape {value}(%shape) : ({src}, {shape_type}) -> {dst}",
        ], "%out"
    assert style == "collapse_expand"
    n = int(np.prod(src_shape))
    flat = tensor_type((n,), dtype)
    lines = [f"%flat = tensor.collapse_shape {value} [[{', '.join(map(str, range(len(src_shape))))}]]"
             f" : {src} into {flat}"]
    if len(dst_shape) == 1:
        return lines, "%flat"
    lines.append(
        f"%out = tensor.expand_shape %flat [[{', '.join(map(str, range(len(dst_shape))))}]]"
        f" output_shape [{', '.join(map(str, dst_shape))}] : {flat} into {dst}"
    )
    return lines, "%out"


def example_program(example, dtype, index_dtype, style: str) -> str:
    """@main() computing the example's expected output from constants."""
    mid = example.intermediate
    x = example.input.reshape(mid.input_shape).astype(dtype)
    idx = example.indices.reshape(mid.indices_shape).astype(index_dtype)
    tx, ti = tensor_type(x.shape, dtype), tensor_type(idx.shape, index_dtype)
    tg = tensor_type(mid.output_shape, dtype)
    result_shape = example.expected.shape
    axes = ", ".join(map(str, mid.axes))
    reshape, result = reshape_ops("%gathered", mid.output_shape, result_shape, dtype, style)
    body = [
        f"%input = arith.constant {dense(x)} : {tx}",
        f"%indices = arith.constant {dense(idx)} : {ti}",
        f'%gathered = "gmx.gather_multiaxis"(%input, %indices) {{axes = array<i64: {axes}>}}'
        f" : ({tx}, {ti}) -> {tg}",
        *reshape,
        f"return {result} : {tensor_type(result_shape, dtype)}",
    ]
    return (
        f"// worked example {example.name} ({example.origin}, {example.op} {example.attrs})\n"
        f"func.func @main() -> {tensor_type(result_shape, dtype)} {{\n"
        + "".join(f"  {line}\n" for line in body)
        + "}\n"
    )


# (element dtype, index dtype); "native" keeps the example's own dtype.
VARIANTS = {
    "native": (None, np.int64),
    "i32": (np.int32, np.int32),
    "f32": (np.float32, np.int64),
}


def lower_and_run(example, tmp_path: Path, variant: str, style: str):
    dtype = VARIANTS[variant][0] or example.input.dtype
    index_dtype = VARIANTS[variant][1]
    source = tmp_path / f"{example.name}.mlir"
    source.write_text(example_program(example, dtype, index_dtype, style))
    lowered = tmp_path / f"{example.name}.lowered.mlir"
    assert gmx_opt.main(gmx_opt.parse_arguments(
        [str(source), "--convert-gmx-to-linalg", "-o", str(lowered)])) == 0
    text = lowered.read_text()
    assert "gmx.gather_multiaxis" not in text and "linalg.generic" in text
    return lowered, example.expected.astype(dtype)


@pytest.mark.parametrize("style", ["tensor.reshape", "collapse_expand"])
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("example", WITH_INTERMEDIATE, ids=lambda e: e.name)
def test_worked_example_through_cli(example, variant, style, tmp_path, capsys):
    lowered, expected = lower_and_run(example, tmp_path, variant, style)
    capsys.readouterr()

    out_npy = tmp_path / "out.npy"
    assert gmx_run.main(gmx_run.parse_arguments([str(lowered), "--output", str(out_npy)])) == 0
    got = np.load(out_npy, allow_pickle=False)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert_array_equal(got, expected)

    assert gmx_run.main(gmx_run.parse_arguments([str(lowered)])) == 0
    captured = capsys.readouterr()
    assert captured.out == repr(expected) + "\n"
    assert captured.err == ""


def test_every_worked_example_with_intermediate_is_covered():
    assert len(WITH_INTERMEDIATE) >= 10
    assert len({e.name for e in WITH_INTERMEDIATE}) == len(WITH_INTERMEDIATE)


def test_npz_output_and_unlowered_input(tmp_path, capsys):
    """gmx-run also lowers the gmx op itself; .npz holds result0."""
    example = WITH_INTERMEDIATE[0]
    source = tmp_path / "direct.mlir"
    source.write_text(example_program(example, np.int64, np.int64, "collapse_expand"))
    out = tmp_path / "out.npz"
    assert gmx_run.main(gmx_run.parse_arguments([str(source), "--output", str(out)])) == 0
    with np.load(out, allow_pickle=False) as archive:
        assert list(archive.keys()) == ["result0"]
        assert_array_equal(archive["result0"], example.expected)
        assert archive["result0"].dtype == example.expected.dtype
    assert capsys.readouterr().out == ""


PLANS = {
    "gather": lambda e: onnx_gather_plan(e.input.shape, e.indices.shape, e.attrs["axis"]),
    "gather_elements": lambda e: gather_elements_plan(e.input.shape, e.indices.shape,
                                                      e.attrs["axis"]),
    "gather_nd": lambda e: gather_nd_plan(e.input.shape, e.indices.shape,
                                          e.attrs["batch_dims"]),
}
WITHOUT_INTERMEDIATE = [e for e in EXAMPLES if e.intermediate is None]


@pytest.mark.parametrize("example", WITHOUT_INTERMEDIATE, ids=lambda e: e.name)
def test_worked_example_via_mapping_plan(example, tmp_path, capsys):
    """The other worked examples, on the intermediate shapes gmx.reference.mappings plans."""
    plan = PLANS[example.op](example)
    assert plan.result_shape == example.expected.shape
    planned = dataclasses.replace(example, intermediate=Intermediate(
        plan.input_shape, plan.indices_shape, plan.output_shape, plan.axes))
    lowered, expected = lower_and_run(planned, tmp_path, "native", "tensor.reshape")
    capsys.readouterr()
    assert gmx_run.main(gmx_run.parse_arguments([str(lowered)])) == 0
    captured = capsys.readouterr()
    assert captured.out == repr(expected) + "\n"
    assert captured.err == ""


def test_out_of_range_example_index_is_a_clean_error(tmp_path, capsys):
    example = next(e for e in WITH_INTERMEDIATE if e.name == "nd_triples")
    broken = example.indices.copy()
    broken[2, 1] = 2  # input dim 1 has size 2
    bad = dataclasses.replace(example, indices=broken)
    source = tmp_path / "bad.mlir"
    source.write_text(example_program(bad, np.int64, np.int64, "tensor.reshape"))
    capsys.readouterr()
    assert gmx_run.main(gmx_run.parse_arguments([str(source)])) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "index 2 is out of bounds for axis 1 with size 2" in captured.err
    assert "bad.mlir:" in captured.err  # located in the user's file
    assert "Traceback" not in captured.err


def _console_script(name: str) -> str:
    path = shutil.which(name)
    if path is None:  # installed beside the interpreter running the tests
        beside = Path(sys.executable).parent / name
        if beside.is_file() and os.access(beside, os.X_OK):
            path = str(beside)
    if path is None:
        pytest.skip(f"console script '{name}' not found on PATH or beside {sys.executable}; "
                    "install the project (pip install -e .) to run this test")
    return path


def test_console_scripts_pipeline(tmp_path):
    """`gmx-opt FILE --convert-gmx-to-linalg | gmx-run -` in real processes."""
    gmx_opt_exe, gmx_run_exe = _console_script("gmx-opt"), _console_script("gmx-run")
    example = next(e for e in WITH_INTERMEDIATE if e.name == "gather_axis1_matrix")
    source = tmp_path / "pipeline.mlir"
    source.write_text(example_program(example, np.int64, np.int64, "tensor.reshape"))
    opt = subprocess.Popen([gmx_opt_exe, str(source), "--convert-gmx-to-linalg"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runner = subprocess.run([gmx_run_exe, "-"], stdin=opt.stdout, capture_output=True,
                            text=True, timeout=120)
    opt.stdout.close()
    opt_err = opt.stderr.read().decode()
    opt.stderr.close()
    assert opt.wait(timeout=120) == 0, opt_err
    assert runner.returncode == 0, runner.stderr
    assert runner.stdout == repr(example.expected) + "\n"
    assert runner.stderr == ""
