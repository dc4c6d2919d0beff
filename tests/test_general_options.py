"""mlir-opt's general options (tools/general_options.py) against the
wheel's own torch-mlir-opt, for the options both have: report headers,
the pipeline dump, bytecode that reads back both ways, elision and the
other printing options; and what lit cannot show (--verify-each=false,
the dialect list's completeness, the dump filter)."""

import ctypes
import re
import subprocess
from pathlib import Path

import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.passes.pipeline import build_pass_manager
from gmx.passes.registry import add_python_pass
from gmx.tools.about import available_dialects
from gmx.tools.general_options import did_you_mean, parse_general
from gmx.tools.ir_dumps import filter_dumps

TORCH_MLIR_OPT = Path(ir.__file__).resolve().parent / "_mlir_libs" / "torch-mlir-opt"
needs_upstream = pytest.mark.skipif(not TORCH_MLIR_OPT.exists(), reason="the wheel has no torch-mlir-opt")

# Only what torch-mlir-opt registers too (no gmx op).
PLAIN = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("weights")
  %r = arith.constant dense_resource<blob1> : tensor<4xf32>
  %z = arith.constant 0 : index
  %s = arith.addf %a, %c : tensor<4xf32>
  %t = arith.addf %s, %r : tensor<4xf32>
  return %t : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}
"""
HEADER = re.compile(r"^(// -----// IR Dump .*|.*\.\.\. .* report \.\.\.|Pass Manager with .*|  Total Execution Time:)")


def upstream(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([str(TORCH_MLIR_OPT), *map(str, argv)], capture_output=True, check=True)


def headers(text: str) -> list[str]:
    return [m.group(1) for m in map(HEADER.match, text.splitlines()) if m]


@pytest.fixture
def plain(mlir_file):
    return mlir_file(PLAIN, "plain.mlir")


@needs_upstream
@pytest.mark.parametrize("flags", [
    ["--mlir-timing", "--mlir-pass-statistics", "--dump-pass-pipeline"],
    ["--mlir-print-ir-before-all", "--mlir-print-ir-after-all", "--mlir-print-ir-after-change"],
    ["--mlir-print-ir-after=cse", "--mlir-print-ir-before=canonicalize", "--mlir-print-ir-module-scope",
     "--mlir-disable-threading"],
])
def test_reports_and_dumps_have_upstream_headers(gmx_opt, plain, capfd, flags):
    argv = [plain, "--pass-pipeline=builtin.module(func.func(canonicalize),cse)", *flags, "-o", "/dev/null"]
    assert gmx_opt(*argv) == 0
    ours = capfd.readouterr().err
    theirs = upstream(*argv).stderr.decode()
    assert headers(ours) == headers(theirs) and headers(ours)


@needs_upstream
@pytest.mark.parametrize("flags", [
    ["--mlir-elide-elementsattrs-if-larger=2"],
    ["--mlir-elide-resource-strings-if-larger=8"],
    ["--mlir-print-local-scope", "--mlir-print-debuginfo"],
    ["--mlir-print-debuginfo", "--mlir-pretty-debuginfo"],
    ["--mlir-use-nameloc-as-prefix"],
    ["--mlir-print-op-generic", "--verify-each=false"],
])
def test_printing_options_print_as_upstream(gmx_opt, plain, capfd, flags):
    assert gmx_opt(plain, "--cse", *flags) == 0
    # (mlir-opt ends its output with one more newline than gmx-opt does)
    assert capfd.readouterr().out.rstrip() == upstream(plain, "--cse", *flags).stdout.decode().rstrip()


@needs_upstream
def test_bytecode_reads_back_both_ways(gmx_opt, plain, tmp_path, capfd):
    ours = tmp_path / "ours.mlirbc"
    assert gmx_opt(plain, "--emit-bytecode", "-o", ours) == 0
    assert ours.read_bytes().startswith(b"ML\xefR")
    assert upstream(ours).stdout == upstream(plain).stdout
    theirs = tmp_path / "theirs.mlirbc"
    upstream(plain, "--split-input-file", "--emit-bytecode", "-o", theirs)
    capfd.readouterr()
    assert gmx_opt(theirs, "--split-input-file") == 0
    assert capfd.readouterr().out.rstrip() == upstream(plain).stdout.decode().rstrip()


def test_bytecode_output_is_written_only_on_success(gmx_opt, plain, mlir_file, tmp_path, capfd):
    out = tmp_path / "out.mlirbc"
    out.write_text("kept")
    broken = mlir_file(PLAIN.replace("return %t", "return %nowhere"), "broken.mlir")
    assert gmx_opt(broken, "--emit-bytecode", "-o", out) == 1
    assert out.read_text() == "kept"
    assert gmx_opt(plain, "--emit-bytecode", "--emit-bytecode-version=99", "-o", out) == 1
    assert "option '--emit-bytecode-version'" in capfd.readouterr().err
    assert out.read_text() == "kept"
    assert gmx_opt(plain, "--emit-bytecode", "-o", out) == 0
    assert out.read_bytes().startswith(b"ML\xefR") and not list(tmp_path.glob(".gmx-*"))


@needs_upstream
def test_show_dialects_prints_as_upstream(gmx_opt, capfd):
    """One line, as this mlir-opt prints it (comma-separated, no spaces),
    sorted; gmx-opt's has gmx and everything torch-mlir-opt registers but
    StableHLO's VHLO, which gmx does not register."""
    assert gmx_opt("--show-dialects") == 0
    ours, theirs = capfd.readouterr().out, upstream("--show-dialects").stdout.decode()
    line = re.compile(r"^Available Dialects: [a-z_0-9]+(,[a-z_0-9]+)*\n$")
    assert line.match(ours) and line.match(theirs)
    ours, theirs = ours.split(": ")[1].strip().split(","), theirs.split(": ")[1].strip().split(",")
    assert ours == sorted(ours) and "gmx" in ours
    assert set(theirs) - set(ours) == {"vhlo"}


def test_show_dialects_names_every_registered_dialect():
    """The C API counts the registered dialects; gmx (IRDL) is loaded, not registered."""
    context = make_context()
    names = available_dialects(context)
    capi = ctypes.CDLL(str(Path(ir.__file__).resolve().parent / "_mlir_libs" / "libTorchMLIRAggregateCAPI.so"))
    capi.mlirContextGetNumRegisteredDialects.argtypes = [ctypes.c_void_p]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    pointer = get_pointer(context._CAPIPtr, b"torch_mlir.ir.Context._CAPIPtr")
    assert "gmx" in names and "tosa" in names
    assert len(names) - 1 == capi.mlirContextGetNumRegisteredDialects(pointer)


class _Broken:
    argument = description = "test-drop-terminators"


def _drop_terminators(module):
    for op in module.regions[0].blocks[0].operations:
        op.regions[0].blocks[0].operations[len(op.regions[0].blocks[0].operations) - 1].erase()


@pytest.mark.parametrize("verify_each, fails", [("true", True), ("false", False)])
def test_verify_each_false_lets_a_broken_pass_through(verify_each, fails):
    general, rest = parse_general([f"--verify-each={verify_each}"], "gmx-opt")
    assert rest == []
    with make_context():
        module = ir.Module.parse(PLAIN.split("{-#")[0].replace("dense_resource<blob1>", "dense<1.0>"))
        pm = build_pass_manager([])
        add_python_pass(pm, _drop_terminators, _Broken)
        add_python_pass(pm, lambda op: None, _Broken)
        with general.running(pm):
            if fails:
                with pytest.raises(ir.MLIRError):
                    pm.run(module.operation)
            else:
                pm.run(module.operation)


def test_the_dump_filter_keeps_what_is_not_a_dump():
    dump = "// -----// IR Dump After CSEPass: cse ('func.func' operation: @f) //----- //\nfunc.func @f() {\n}\n\n\n"
    other = "// -----// IR Dump Before gmx-canonicalize: gmx-canonicalize //----- //\nmodule {\n}\n\n\n"
    text = "note\n" + dump + "debug line\n" + other + "tail\n"
    assert filter_dumps(text, lambda when, names: "cse" in names) == "note\n" + dump + "debug line\ntail\n"
    assert filter_dumps(text, lambda when, names: when == "Before") == "note\ndebug line\n" + other + "tail\n"


def test_value_options_and_near_misses():
    general, rest = parse_general(
        ["x.mlir", "--mlir-print-ir-after=cse,canonicalize", "--mlir-print-ir-after", "gmx-canonicalize",
         "--mlir-elide-elementsattrs-if-larger", "16", "--cse"], "gmx-opt")
    assert rest == ["x.mlir", "--cse"]
    assert general.mlir_print_ir_after == ("cse", "canonicalize", "gmx-canonicalize")
    assert general.mlir_elide_elementsattrs_if_larger == 16
    assert did_you_mean("--mlir-print-ir-afer-all", ["--mlir-print-ir-after-all", "--mlir-timing"]) == (
        "; did you mean '--mlir-print-ir-after-all'?")
    assert did_you_mean("--frobnicate", ["--mlir-timing"]) == ""


# --- the table of docs/tools.md ------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
TABLE_ROW = re.compile(r"^\| `(--?[a-z-]+)[^`]*` \| (yes|no) \| (yes|no) \|")
RUN_LINE = re.compile(r"^// RUN: (.*)$", re.MULTILINE)


def documented_options() -> list[tuple[str, str, str]]:
    """(flag, gmx-opt, gmx-run) of each row of the general options' table."""
    rows = [TABLE_ROW.match(line) for line in (ROOT / "docs" / "tools.md").read_text().splitlines()]
    return [m.groups() for m in rows if m]


def accepted_flags(tool: str) -> set[str]:
    from gmx.tools import gmx_opt, gmx_run
    from gmx.tools.general_options import flags_of

    parser = {"gmx-opt": gmx_opt, "gmx-run": gmx_run}[tool]._argument_parser()
    return set(flags_of(tool)) | {f for action in parser._actions for f in action.option_strings}


def lit_runs(tool: str) -> list[str]:
    """The RUN lines of lit_tests/tools that call `tool`."""
    runs = []
    for path in (ROOT / "lit_tests" / "tools").glob("*.mlir"):
        runs += [r for r in RUN_LINE.findall(path.read_text()) if re.search(rf"(^|\| *|&& *|not ){tool} ", r)]
    return runs


def test_docs_table_of_general_options():
    """Every row says what the tool does: a `yes` flag is taken and used by
    a lit test of that tool, a `no` flag is refused."""
    rows = documented_options()
    assert len(rows) > 60
    for column, tool in ((1, "gmx-opt"), (2, "gmx-run")):
        accepted, runs = accepted_flags(tool), lit_runs(tool)
        for row in rows:
            flag, supported = row[0], row[column] == "yes"
            assert (flag in accepted) == supported, f"{tool} {flag}: the table says {row[column]}"
            if supported:
                used = re.compile(rf"(^| ){re.escape(flag)}(?=[= ]|$)")
                assert any(used.search(r) for r in runs), f"no lit test runs {tool} {flag}"
    from gmx.tools.general_options import OPTIONS

    assert {o.flag for o in OPTIONS} <= {row[0] for row in rows}, "a general option missing from the table"
