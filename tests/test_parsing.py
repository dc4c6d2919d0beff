"""gmx.dialect.parsing: no parse failure goes silent, no input nests deep
enough to crash the parser; in gmx-opt, gmx-run and gmx.runtime.compile."""

import subprocess
import sys

import pytest

from gmx.dialect.parsing import MAX_NESTING_DEPTH, code_only, nesting_problem, silent_failure_reason
from gmx.runtime import CompileError, compile

CUSTOM_FORM = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = gmx.gather_multiaxis %x, %i {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
GENERIC_FORM = CUSTOM_FORM.replace("gmx.gather_multiaxis %x, %i", '"gmx.gather_multiaxis"(%x, %i)')
NO_CUSTOM_FORM = "'gmx.gather_multiaxis' has no custom form"


def nested_attribute(depth: int) -> str:
    return "module attributes {x = " + "[" * (depth - 1) + "]" * (depth - 1) + "} {}\n"


def depth_problem(text: str):
    return nesting_problem(code_only(text.encode()))


# -- the nesting guard, a pure function ---------------------------------------


def test_nesting_up_to_the_limit_passes_one_more_is_located():
    assert depth_problem(nested_attribute(MAX_NESTING_DEPTH)) is None
    offset, message = depth_problem(nested_attribute(MAX_NESTING_DEPTH + 1))
    assert offset == len("module attributes {x = ") + MAX_NESTING_DEPTH - 1  # the 1001st bracket
    assert f"nesting deeper than {MAX_NESTING_DEPTH} levels" in message


@pytest.mark.parametrize(
    "text",
    [
        '"' + "[" * 2000 + '"',  # in a string
        '"\\"' + "[" * 2000 + '"',  # after an escaped quote
        "// " + "[" * 2000 + "\n",  # in a comment
        "(" * 900 + "(d0) -> (d0)" * 500 + ")" * 900,  # arrows close nothing
        "<" * 900 + "(d0 >= 0)" * 500 + ">" * 900,  # nor does `>=`
    ],
)
def test_nesting_outside_strings_and_comments_only(text):
    assert depth_problem(text) is None


def test_a_run_of_unary_minus_nests_too():
    # affine `- - - d0` recurses once per sign: 100,000 signs crashed the parser
    assert depth_problem("affine_map<(d0) -> (" + "-" * 998 + "d0)>") is None
    offset, _ = depth_problem("affine_map<(d0) -> (" + "- " * 999 + "d0)>")
    assert offset == len("affine_map<(d0) -> (")


# -- a failure without a diagnostic, explained --------------------------------


def test_the_first_op_in_custom_form_is_found():
    offset, message = silent_failure_reason(code_only(CUSTOM_FORM.encode()))
    assert CUSTOM_FORM[offset:].startswith("gmx.gather_multiaxis %x")
    assert message.startswith(NO_CUSTOM_FORM)
    assert '"gmx.gather_multiaxis"(%input, %indices)' in message


@pytest.mark.parametrize(
    "text",
    [
        GENERIC_FORM,
        '// gmx.gather_multiaxis %x, %i\nfunc.func private @f() attributes {note = "gmx.gather_multiaxis %x"}',
        "func.func private @f() attributes {gmx.gather_multiaxis = 1}",
        "func.call @gmx.gather_multiaxis() : () -> ()",
    ],
)
def test_quoted_names_comments_attributes_and_symbols_are_not_custom_forms(text):
    offset, message = silent_failure_reason(code_only(text.encode()))
    assert not message.startswith(NO_CUSTOM_FORM)
    assert offset == text.index("func.")  # the first token outside comments


# -- in the tools and the runtime ----------------------------------------------


def test_opt_locates_a_custom_form_and_keeps_the_output(gmx_opt, mlir_file, tmp_path, capsys):
    path = mlir_file(CUSTOM_FORM, "custom.mlir")
    target = tmp_path / "out.mlir"
    target.write_text("precious")
    assert gmx_opt(path, "-o", target) == 1
    assert f"{path}:2:8: error: {NO_CUSTOM_FORM}" in capsys.readouterr().err
    assert target.read_text() == "precious"


def test_opt_split_input_file_reports_the_chunk(gmx_opt, mlir_file, capsys):
    path = mlir_file(GENERIC_FORM + "// -----\n" + CUSTOM_FORM, "split.mlir")
    assert gmx_opt(path, "--split-input-file") == 1
    assert f"{path}:7:8: error: {NO_CUSTOM_FORM}" in capsys.readouterr().err


def test_verify_diagnostics_fails_on_an_unexpected_silent_parse_failure(gmx_opt, mlir_file, capsys):
    path = mlir_file(CUSTOM_FORM, "custom.mlir")
    assert gmx_opt(path, "--verify-diagnostics") == 1
    assert f"{path}:2:8: error: unexpected error: {NO_CUSTOM_FORM}" in capsys.readouterr().err


def test_run_locates_a_custom_form(gmx_run, mlir_file, capsys):
    path = mlir_file(CUSTOM_FORM, "custom.mlir")
    assert gmx_run(path) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:8: error: {NO_CUSTOM_FORM}" in err and "Traceback" not in err


def test_compile_explains_a_custom_form():
    with pytest.raises(CompileError, match=f"-:2:8: error: {NO_CUSTOM_FORM}"):
        compile(CUSTOM_FORM)


def test_compile_refuses_deep_nesting_located():
    with pytest.raises(CompileError, match=f"-:1:1023: error: nesting deeper than {MAX_NESTING_DEPTH} levels"):
        compile(nested_attribute(MAX_NESTING_DEPTH + 1))


DEEP_IN_EVERY_ENTRY = """
import sys
from gmx.runtime import CompileError, compile
from gmx.tools import gmx_opt, gmx_run
path = sys.argv[1]
try:
    compile(open(path).read())
except CompileError as error:
    print("compile:", error)
print("gmx-opt", gmx_opt.main(gmx_opt.parse_arguments([path])))
print("gmx-run", gmx_run.main(gmx_run.parse_arguments([path])))
"""


def test_10000_deep_input_is_an_error_not_a_signal(tmp_path):
    path = tmp_path / "deep.mlir"
    path.write_text(nested_attribute(10_000))
    result = subprocess.run(
        [sys.executable, "-c", DEEP_IN_EVERY_ENTRY, str(path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]  # no SIGSEGV
    assert "compile: -:1:1023: error: nesting deeper than" in result.stdout
    assert "gmx-opt 1\ngmx-run 1\n" in result.stdout
    assert result.stderr.count(f"{path}:1:1023: error: nesting deeper than {MAX_NESTING_DEPTH} levels") == 2
