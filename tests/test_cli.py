"""gmx-opt, gmx-run and the pass registry, called in-process."""

import io
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from gmx.dialect import OP_NAME, make_context
from gmx.dialect.mlir import ir
from gmx.passes import debug, get_all_passes
from gmx.passes.pipeline import PipelineError, bracket_error, build_pass_manager, pipeline_elements, split_top_level

GATHER = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
INVALID = GATHER.replace("array<i64: 0>", "array<i64: 5>")
LINEARISED = Path(__file__).resolve().parent.parent / "examples" / "linearised_gather.mlir"
TOSA_GATHER = """func.func @main(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
"""


@pytest.fixture
def gather_file(mlir_file):
    return mlir_file(GATHER, "gather.mlir")


def test_registry_keys_are_the_passes_own_flags():
    flags = get_all_passes()
    assert flags  # a registry that lists nothing would pass the loop below
    for flag, factory in flags.items():
        assert factory().argument == flag


def test_listing_the_passes_imports_no_pass_module():
    code = (
        "import sys, gmx.passes\n"
        "flags = list(gmx.passes.get_all_passes())\n"
        "loaded = [m for m in sys.modules if m.startswith(('gmx.passes.raising', 'gmx.passes.lowering'))]\n"
        "print(len(flags), loaded)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == f"{len(get_all_passes())} []"


def test_every_pass_has_a_module_and_a_lit_test_named_after_its_flag():
    root = Path(__file__).resolve().parent.parent
    for flag, factory in get_all_passes().items():
        module = factory.__code__.co_names  # the factory imports its own module
        stem = flag.replace("-", "_")
        assert stem in module, f"{flag}: factory does not import a module named {stem}"
        assert len(list((root / "passes").glob(f"*/{stem}.py"))) == 1, f"no passes/*/{stem}.py"
        assert (root / "lit_tests" / "passes" / f"{flag}.mlir").is_file(), f"no lit_tests/passes/{flag}.mlir"


def test_pipeline_elements_split_at_top_level():
    assert pipeline_elements("builtin.module(a{x=1,y=2}, func.func(b, c), d)") == [
        "a{x=1,y=2}",
        "func.func(b, c)",
        "d",
    ]
    assert split_top_level("a, 'b,c'") == ["a", "'b,c'"]
    with pytest.raises(PipelineError):
        pipeline_elements("builtin.module[oops")


@pytest.mark.parametrize("text, problem", [
    ("a{x=1}, f(b, c{y})", None),
    ("a{x='}'}", None),
    ("a{x=1", "'{' is never closed"),
    ("f(a{x=1)", "unbalanced ')'"),
    ("a}", "unbalanced '}'"),
])
def test_bracket_errors(text, problem):
    assert bracket_error(text) == problem


def test_opt_lowers_to_linalg(gmx_opt, gather_file, capsys):
    assert gmx_opt(gather_file, "--convert-gmx-to-linalg") == 0
    out = capsys.readouterr().out
    assert "linalg.generic" in out and "gmx.gather_multiaxis" not in out


def test_opt_pass_order_is_command_line_order(gmx_opt, mlir_file, capsys):
    # Raising first leaves a gmx op to lower; lowering first finds none, and
    # the raising then leaves the gmx op in the output.
    path = mlir_file(TOSA_GATHER)
    assert gmx_opt(path, "--gmx-canonicalize", "--convert-gmx-to-linalg") == 0
    raised_then_lowered = capsys.readouterr().out
    assert gmx_opt(path, "--convert-gmx-to-linalg", "--gmx-canonicalize") == 0
    lowered_then_raised = capsys.readouterr().out
    assert "linalg.generic" in raised_then_lowered and OP_NAME not in raised_then_lowered
    assert OP_NAME in lowered_then_raised and "linalg.generic" not in lowered_then_raised
    assert gmx_opt(path, "--pass-pipeline=builtin.module(convert-gmx-to-linalg, gmx-canonicalize)") == 0
    assert capsys.readouterr().out == lowered_then_raised


def test_opt_reads_stdin(gmx_opt, monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(GATHER))
    assert gmx_opt("-", "--canonicalize") == 0
    assert "gmx.gather_multiaxis" in capsys.readouterr().out


def test_opt_verify_error_is_located(gmx_opt, mlir_file, capsys):
    path = mlir_file(INVALID, "bad.mlir")
    assert gmx_opt(path) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:8: error: 'gmx.gather_multiaxis' op axis 5 is out of range [0, 2)" in err
    assert "Traceback" not in err


def test_opt_failure_never_touches_the_output_file(gmx_opt, mlir_file, tmp_path, capsys):
    source = mlir_file(INVALID, "bad.mlir")
    target = tmp_path / "out.mlir"
    target.write_text("precious")
    assert gmx_opt(source, "-o", target) == 1
    assert target.read_text() == "precious"


def test_opt_output_file(gmx_opt, gather_file, tmp_path):
    target = tmp_path / "out.mlir"
    assert gmx_opt(gather_file, "--convert-gmx-to-linalg", "-o", target) == 0
    assert "linalg.generic" in target.read_text()


def test_output_files_get_the_usual_mode(gmx_opt, gather_file, tmp_path):
    # written through a temporary file, yet not left with its private 0600
    umask = os.umask(0o022)
    try:
        target = tmp_path / "out.mlir"
        assert gmx_opt(gather_file, "-o", target) == 0
        assert stat.S_IMODE(target.stat().st_mode) == 0o644
        target.chmod(0o600)
        assert gmx_opt(gather_file, "-o", target) == 0
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
    finally:
        os.umask(umask)


def test_opt_bad_option_value(gmx_opt, gather_file, capsys):
    assert gmx_opt(gather_file, "--convert-gmx-to-linalg=checked=maybe") == 1
    assert "expects true or false, got 'maybe'" in capsys.readouterr().err


def test_opt_split_input_file_keeps_line_numbers(gmx_opt, mlir_file, capsys):
    path = mlir_file(GATHER + "// -----\n" + INVALID, "split.mlir")
    assert gmx_opt(path, "--split-input-file") == 1
    # The invalid op is on line 2 of the second chunk: line 7 of the file.
    assert f"{path}:7:8: error:" in capsys.readouterr().err


def test_verify_diagnostics_reports_missing_and_unexpected(gmx_opt, mlir_file, capsys):
    path = mlir_file(
        "// expected-error@+2 {{axis 5 is out of range}}\n"
        + INVALID.replace("func.func @main", "func.func @a")
        + "// -----\n"
        + "// expected-error@+1 {{this is never emitted}}\n"
        + GATHER
    )
    assert gmx_opt(path, "--split-input-file", "--verify-diagnostics") == 1
    err = capsys.readouterr().err
    assert 'expected error "this is never emitted" was not produced' in err
    assert "axis 5" not in err  # the first chunk's error was expected


def test_the_test_session_is_strict():
    assert debug.strict()  # tests/conftest.py: a crashing pattern fails its test


@pytest.mark.parametrize("value, on", [(None, False), ("", False), ("0", False), ("off", False), ("1", True),
                                       ("true", True)])
def test_environment_switches(value, on):
    assert debug.switch_is_on(value) == on


def test_a_crashing_pattern_fails_the_pass_in_strict_mode(gmx_opt, mlir_file, monkeypatch, capsys):
    monkeypatch.setenv(debug.FAIL_PATTERN_ENV, "raise-tosa-gather")
    path = mlir_file(TOSA_GATHER)
    assert gmx_opt(path, "--gmx-canonicalize") == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"{path}:2:8: error: gmx-canonicalize: pattern raise-tosa-gather failed "
        "(RuntimeError: injected by GMX_FAIL_PATTERN); an error in strict mode (GMX_STRICT)\n"
    )


def test_a_crashing_pattern_only_warns_users(gmx_opt, mlir_file, monkeypatch, capsys):
    monkeypatch.delenv(debug.STRICT_ENV)
    monkeypatch.setenv(debug.FAIL_PATTERN_ENV, "raise-tosa-gather")
    path = mlir_file(TOSA_GATHER)
    assert gmx_opt(path, "--gmx-canonicalize") == 0
    out, err = capsys.readouterr()
    assert "tosa.gather" in out and OP_NAME not in out  # the op left unchanged
    assert err == (
        f"{path}:2:8: warning: gmx-canonicalize: pattern raise-tosa-gather failed "
        "(RuntimeError: injected by GMX_FAIL_PATTERN); op left unchanged\n"
    )


@pytest.mark.parametrize("strict", [True, False])
def test_patterns_that_do_not_converge_are_reported_not_raised(gmx_opt, monkeypatch, capsys, strict):
    """The greedy driver gives up (a RuntimeError from the bindings) when
    patterns keep rewriting; that is a located diagnostic like a pattern's
    failure, never a traceback."""
    from gmx.passes.raising import gmx_canonicalize

    monkeypatch.setattr(gmx_canonicalize, "MAX_ITERATIONS", 1)  # this program needs several
    if not strict:
        monkeypatch.delenv(debug.STRICT_ENV)
    assert gmx_opt(LINEARISED, "--gmx-canonicalize") == (1 if strict else 0)
    err = capsys.readouterr().err
    kind = "error" if strict else "warning"
    assert f": {kind}: gmx-canonicalize: the rewrite failed (pattern application failed to converge in 1 iterations)" in err
    assert len(err.splitlines()) == 1, err


def test_debug_only_says_why_patterns_did_not_match(gmx_opt, gather_file, capsys):
    assert gmx_opt(gather_file, "--gmx-canonicalize", "--debug-only=gmx-canonicalize") == 0
    err = capsys.readouterr().err
    assert f"{gather_file}:2:8: gmx-canonicalize: fold-input-transpose: no match: input is not a transpose\n" in err
    assert gmx_opt(gather_file, "--gmx-canonicalize") == 0  # the switch ended with the run
    assert capsys.readouterr().err == ""


def test_a_bug_in_a_helper_of_a_pattern_fails_the_pipeline(monkeypatch):
    """The bug the strict mode was made for: `_split_linear` raising left
    every test that only counted ops green."""
    from gmx.passes.raising import input_views

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(input_views, "_split_linear", broken)
    with make_context():
        module = ir.Module.parse(LINEARISED.read_text())
        with pytest.raises(ir.MLIRError) as failure:
            build_pass_manager(["gmx-canonicalize"]).run(module.operation)
    messages = [d.message for d in failure.value.error_diagnostics]
    assert any("pattern raise-linearised-indices failed (RuntimeError: a bug)" in m for m in messages), messages


def test_run_prints_results(gmx_run, gather_file, tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(4, 3))
    np.save(tmp_path / "i.npy", np.array([[3], [-4]]))
    assert gmx_run(gather_file, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy") == 0
    expected = np.array([[9, 10, 11], [0, 1, 2]], dtype=np.float32)
    assert capsys.readouterr().out.strip() == repr(expected)


def test_run_writes_npz(gmx_run, gather_file, tmp_path):
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(4, 3))
    np.save(tmp_path / "i.npy", np.array([[1], [2]]))
    out = tmp_path / "out.npz"
    assert gmx_run(gather_file, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy", "--output", out) == 0
    np.testing.assert_array_equal(np.load(out)["result0"], [[3, 4, 5], [6, 7, 8]])


@pytest.mark.parametrize(
    "indices, message",
    [
        (np.array([[4], [0]]), "index 4 is out of bounds for axis 0 with size 4"),
        (np.array([[0], [-5]]), "index -5 is out of bounds for axis 0 with size 4"),
    ],
)
def test_run_out_of_range_index(gmx_run, gather_file, tmp_path, capsys, indices, message):
    np.save(tmp_path / "x.npy", np.zeros((4, 3), np.float32))
    np.save(tmp_path / "i.npy", indices)
    target = tmp_path / "out.npy"
    target.write_bytes(b"precious")
    code = gmx_run(gather_file, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy", "--output", target)
    err = capsys.readouterr().err
    assert code == 1
    assert f"{gather_file}:2:8: {message}" in err
    assert target.read_bytes() == b"precious"


@pytest.mark.parametrize(
    "make_input, message",
    [
        (lambda p: p.write_text("not numpy"), "is not a .npy file"),
        (lambda p: np.save(p, np.zeros((4, 3), np.int32)), "must be float32[4x3], got dtype int32"),
        (lambda p: np.save(p, np.zeros((5, 3), np.float32)), "must be float32[4x3], got shape [5, 3]"),
    ],
)
def test_run_bad_inputs(gmx_run, gather_file, tmp_path, capsys, make_input, message):
    x = tmp_path / "x.npy"
    make_input(x)
    np.save(tmp_path / "i.npy", np.zeros((2, 1), np.int64))
    assert gmx_run(gather_file, "--input", x, "--input", tmp_path / "i.npy") == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_run_bad_output_suffix(gmx_run, gather_file, tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.zeros((4, 3), np.float32))
    np.save(tmp_path / "i.npy", np.zeros((2, 1), np.int64))
    code = gmx_run(gather_file, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy", "--output", tmp_path / "o.txt")
    assert code == 1
    assert "must end in .npy or .npz" in capsys.readouterr().err


def _read_fifo_while(fifo, write) -> bytes:
    """What `write()` wrote into the fifo `fifo`, read by a thread."""
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write()
    reader.join(timeout=30)
    return received[0]


@pytest.mark.parametrize("name", ["fifo", "fifo.txt"])
def test_run_writes_through_a_fifo_whatever_its_name(gmx_run, gather_file, tmp_path, name):
    """The extension rule is for regular files: a fifo (or a device, such as
    /dev/null) gets .npy for one result, as docs/runtime.md says it is
    written through ("must end in .npy or .npz" before)."""
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(4, 3))
    np.save(tmp_path / "i.npy", np.array([[1], [2]]))
    fifo = tmp_path / name
    os.mkfifo(fifo)
    codes = []
    data = _read_fifo_while(fifo, lambda: codes.append(gmx_run(
        gather_file, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy", "--output", fifo)))
    assert codes == [0]
    np.testing.assert_array_equal(np.load(io.BytesIO(data)), [[3, 4, 5], [6, 7, 8]])
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_run_writes_several_results_through_a_fifo_as_npz(gmx_run, mlir_file, tmp_path):
    two = mlir_file(
        "func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
        "  return %x, %x : tensor<2xf32>, tensor<2xf32>\n}\n"
    )
    np.save(tmp_path / "x.npy", np.array([1, 2], np.float32))
    fifo = tmp_path / "results"
    os.mkfifo(fifo)
    codes = []
    data = _read_fifo_while(fifo, lambda: codes.append(gmx_run(two, "--input", tmp_path / "x.npy", "--output", fifo)))
    assert codes == [0]
    with np.load(io.BytesIO(data)) as results:
        assert sorted(results) == ["result0", "result1"]


def test_run_writes_through_a_device(gmx_run, gather_file, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((4, 3), np.float32))
    np.save(tmp_path / "i.npy", np.zeros((2, 1), np.int64))
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is
    except OSError as error:
        pytest.skip(f"cannot make a device node here: {error}")
    assert gmx_run(gather_file, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy", "--output", null) == 0
    assert stat.S_ISCHR(null.stat().st_mode)


def test_run_accepts_a_module_lowered_by_gmx_opt(gmx_opt, gmx_run, gather_file, tmp_path, capsys):
    lowered = tmp_path / "lowered.mlir"
    assert gmx_opt(gather_file, "--gmx-lower-to-llvm", "-o", lowered) == 0
    assert "gmx.signature" in lowered.read_text()
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(4, 3))
    np.save(tmp_path / "i.npy", np.array([[2], [0]]))
    assert gmx_run(lowered, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy") == 0
    expected = np.array([[6, 7, 8], [0, 1, 2]], dtype=np.float32)
    assert capsys.readouterr().out.strip() == repr(expected)


def test_run_rejects_llvm_module_without_signature(gmx_run, mlir_file, capsys):
    path = mlir_file("llvm.func @main() {\n  llvm.return\n}\n", "llvm.mlir")
    assert gmx_run(path) == 1
    assert "without its tensor signature" in capsys.readouterr().err


# -- bytecode input, options given twice, hostile .npy headers, the study budget

def bytecode_of(text: str) -> bytes:
    import io

    with make_context():
        module = ir.Module.parse(text)
        buffer = io.BytesIO()
        module.operation.write_bytecode(buffer)
        return buffer.getvalue()


def test_bytecode_input_is_read_as_text_is(gmx_opt, gmx_run, tmp_path, capsys):
    source = tmp_path / "gather.mlirbc"
    source.write_bytes(bytecode_of(GATHER))
    assert gmx_opt(source, "--convert-gmx-to-linalg") == 0
    assert "linalg.generic" in capsys.readouterr().out
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(4, 3))
    np.save(tmp_path / "i.npy", np.array([[2], [0]]))
    assert gmx_run(source, "--input", tmp_path / "x.npy", "--input", tmp_path / "i.npy") == 0
    assert capsys.readouterr().out.strip() == repr(np.array([[6, 7, 8], [0, 1, 2]], dtype=np.float32))


def test_broken_bytecode_is_one_error(gmx_opt, tmp_path, capsys):
    source = tmp_path / "broken.mlirbc"
    source.write_bytes(bytecode_of(GATHER)[:40])
    assert gmx_opt(source) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"gmx-opt: error: could not read input file '{source}' (MLIR bytecode): ")
    assert "Traceback" not in err


def test_deeply_nested_bytecode_is_one_error_in_every_tool(tmp_path):
    """104 KB of bytecode holding an array nested 20,000 deep crashed
    gmx-opt and gmx-run with SIGSEGV (each in a process of its own here, so
    that a crash fails the test, not the session; compile(bytes):
    test_fuzz.test_nested_bytecode)."""
    from nested_bytecode import nested_bytecode

    source = tmp_path / "deep.mlirbc"
    source.write_bytes(nested_bytecode("array", 20_000))
    tools = {tool: subprocess.Popen([sys.executable, "-c", f"from gmx.tools.{tool} import _cli_main; _cli_main()",
                                     source], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for tool in ("gmx_opt", "gmx_run")}  # at once
    for tool, child in tools.items():
        _, err = child.communicate(timeout=120)
        assert child.returncode == 1, (tool, child.returncode, err[-500:])
        assert err.count("\n") == 1 and f"could not read input file '{source}' (MLIR bytecode)" in err
        assert "nest" in err and "Traceback" not in err, err


@pytest.mark.parametrize("tool, twice, option", [
    ("gmx_opt", ["-o", "a.mlir", "-o", "b.mlir"], "-o"),
    ("gmx_opt", ["--pass-pipeline=builtin.module(cse)", "--pass-pipeline", "builtin.module(canonicalize)"],
     "--pass-pipeline"),
    ("gmx_run", ["--output", "a.npy", "--output=b.npy"], "--output"),
    ("gmx_run", ["-e", "main", "--entry", "f"], "--entry"),
])
def test_an_option_given_twice_is_refused(tool, twice, option, gather_file, tmp_path, capsys, monkeypatch):
    """As mlir-opt refuses it: the last one does not silently win."""
    from gmx.tools import gmx_opt, gmx_run

    monkeypatch.chdir(tmp_path)
    module = {"gmx_opt": gmx_opt, "gmx_run": gmx_run}[tool]
    with pytest.raises(SystemExit) as exited:
        module.parse_arguments([str(gather_file), *twice])
    assert exited.value.code == 2
    assert f"error: option '{option}' may be given only once" in capsys.readouterr().err
    assert not list(tmp_path.glob("[ab].*"))


def npy_with_header(path: Path, shape) -> Path:
    """A .npy file whose header claims `shape` (anything), over 16 bytes."""
    header = repr({"descr": "<f4", "fortran_order": False, "shape": shape}).encode()
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + bytes(16))
    return path


@pytest.mark.parametrize("shape, message", [
    ((True, 3), "dim True of shape (True, 3) is not a non-negative integer"),
    ((4, -3), "dim -3 of shape (4, -3) is not a non-negative integer"),
    ((10**23, 3), "beyond what any array can hold"),
    ((10**23, 0), "beyond what any array can hold"),  # no bytes, and no C long either
])
def test_hostile_npy_headers(gmx_run, gather_file, tmp_path, capsys, shape, message):
    x = npy_with_header(tmp_path / "x.npy", shape)
    np.save(tmp_path / "i.npy", np.zeros((2, 1), np.int64))
    assert gmx_run(gather_file, "--input", x, "--input", tmp_path / "i.npy") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("gmx-run: error: input ")


def test_study_refuses_a_shape_beyond_its_budget(capsys):
    from gmx.tools import gmx_study

    with pytest.raises(SystemExit):
        gmx_study.parse_arguments(["take-along-axis", "--shape", "65536x32768"])
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == ("gmx-study: error: --shape '65536x32768' has 2,147,483,648 elements; gmx-study studies "
                   "at most 67,108,864 (2^26) per array: every frontend holds its own copies")
