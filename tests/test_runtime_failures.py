"""A failed lowering inside gmx.runtime: a CompileError with the located
diagnostics and a reproducer (a file with the IR that failed and the
command that fails on it), whether the --gmx-lower-to-llvm pipeline or the
ExecutionEngine's translation to LLVM IR failed."""

import re
import tempfile

import pytest

from gmx.runtime import CompileError, compile

# Verifies, but the pipeline never bufferizes ml_program's globals.
NOT_BUFFERIZED = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ml_program.global_load_const @g : tensor<4xf32>
  return %0 : tensor<4xf32>
}
ml_program.global private @g(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
"""
# Lowers, but the pipeline has no lowering of the complex dialect: the
# cast convert-to-llvm leaves at the complex value has no translation to
# LLVM IR.
NOT_TRANSLATABLE = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<4xf32>
  %c = complex.create %v, %v : complex<f32>
  %e = complex.exp %c : complex<f32>
  %r = complex.re %e : complex<f32>
  %y = tensor.insert %r into %x[%c0] : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""
NOT_TRANSLATABLE_ERROR = "-:4:8: error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast"
REPRODUCE = re.compile(r"^reproduce with: (gmx-\w+) (\S+)( .*)?$", re.M)


@pytest.fixture(autouse=True)
def reproducers_in_tmp_path(tmp_path, monkeypatch):
    """Reproducers land in the test's own folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def _failure(text: str, **options) -> tuple[str, str, str, str]:
    """(message, tool, path, options) of the CompileError compiling `text`."""
    with pytest.raises(CompileError) as info:
        compile(text, **options)
    message = str(info.value)
    match = REPRODUCE.search(message)
    assert match, message
    return message, match.group(1), match.group(2), (match.group(3) or "").strip()


@pytest.mark.parametrize("checked, flag", [(True, "--gmx-lower-to-llvm=destinations=true"),
                                           (False, "--gmx-lower-to-llvm=checked=false,destinations=true")])
def test_pipeline_failure_reports_a_reproducer(checked, flag, tmp_path, gmx_opt, capsys):
    message, tool, path, options = _failure(NOT_BUFFERIZED, checked=checked)
    assert message.startswith("-:2:8: error: op was not bufferized\n"), message
    assert (tool, options) == ("gmx-opt", flag)
    assert path.startswith(str(tmp_path / "gmx-repro-")) and path.endswith(".mlir")
    reproducer = open(path).read()
    assert "ml_program.global_load_const" in reproducer and 'loc("-":2:8)' in reproducer  # before the pipeline, located
    capsys.readouterr()
    assert gmx_opt(path, flag) == 1
    assert "-:2:8: error: op was not bufferized" in capsys.readouterr().err


def test_execution_engine_failure_is_a_compile_error(tmp_path, gmx_run, capfd):
    """Not `RuntimeError: Failure while creating the ExecutionEngine` with
    the diagnostic on stderr: a CompileError that holds it."""
    message, tool, path, options = _failure(NOT_TRANSLATABLE)
    assert message.startswith(NOT_TRANSLATABLE_ERROR), message
    assert (tool, options) == ("gmx-run", "--entry main")
    assert capfd.readouterr().err == ""
    assert gmx_run(path, "--entry", "main") == 1
    assert NOT_TRANSLATABLE_ERROR in capfd.readouterr().err


def test_gmx_run_prints_one_located_block(mlir_file, gmx_run, capsys):
    """As mlir-opt prints diagnostics, followed by the reproducer."""
    source = mlir_file(NOT_BUFFERIZED, "erf.mlir")
    assert gmx_run(source) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{source}:2:8: error: op was not bufferized\n"), err
    assert REPRODUCE.search(err), err


def test_unwritable_temporary_directory_keeps_the_diagnostics(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    with pytest.raises(CompileError, match=r"(?s)-:2:8: error: op was not bufferized.*"
                                           r"\(no reproducer: could not write one: "):
        compile(NOT_BUFFERIZED + "// unwritable\n")


def test_a_failure_that_repeats_leaves_one_reproducer(tmp_path):
    """Named after the IR it holds: compiling a failing program again (a
    retry loop, gmx-bench's expected failures, each test run) rewrites one
    file instead of leaving one more in the temporary directory each time."""
    paths = {_failure(NOT_BUFFERIZED + "// again\n", checked=checked)[2] for checked in (True, False, True)}
    assert len(paths) == 1
    assert [p.name for p in tmp_path.iterdir()] == [paths.pop().rpartition("/")[2]]
    other = _failure(NOT_BUFFERIZED.replace("4xf32", "5xf32"))[2]  # other IR, another file
    assert len(list(tmp_path.iterdir())) == 2 and other.startswith(str(tmp_path / "gmx-repro-"))
