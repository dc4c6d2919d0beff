"""What gmx.runtime does not take from a module's text: the attributes it
relies on (pipeline_attributes) and the functions of the process it lets
compiled code call (external_symbols)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gmx.runtime import CompileError, compile, run
from gmx.runtime.external_symbols import provided, refused

BIG = 1 << 22  # 16 MiB of f32


def forged(attributes: str, shape: int = BIG) -> str:
    """A plain tensor-level entry of f32[shape] carrying forged `attributes`."""
    return (
        f"func.func @main(%x: tensor<{shape}xf32>) -> tensor<{shape}xf32> attributes {{{attributes}}} {{\n"
        f"  %0 = tosa.abs %x : (tensor<{shape}xf32>) -> tensor<{shape}xf32>\n"
        f"  return %0 : tensor<{shape}xf32>\n}}\n"
    )


FORGERIES = {
    "too small a buffer": forged("gmx.signature = (tensor<1xf32>) -> tensor<1xf32>"),
    "wrong rank": forged("gmx.signature = (tensor<2x2xf32>) -> tensor<2x2xf32>", 4),
    "wrong dtype": forged("gmx.signature = (tensor<4xi8>) -> tensor<4xi8>", 4),
    "no result": forged("gmx.signature = (tensor<4xf32>) -> ()", 4),
    "destinations": forged("gmx.destinations", 4),
    "on a callee": forged("", 4).replace("func.func @main", "func.func private @f() attributes {gmx.signature = () -> ()} {\n  return\n}\nfunc.func @main"),
}

FORGERY_CHILD = """
import json, sys, numpy as np
from gmx.runtime import CompileError, compile
for name, text in json.load(sys.stdin).items():
    print(name, file=sys.stderr, flush=True)
    try:
        program = compile(text)
    except CompileError as error:
        print(str(error).splitlines()[0], flush=True)
        continue
    program(np.ones(1 if "too small" in name else 4, np.float32))
    print("COMPILED", name, flush=True)
"""


def test_forged_pipeline_attributes_are_refused():
    """In a child: before the fix, the forged signature made the runtime
    pass a buffer of its size to code writing 16 MiB (SIGSEGV)."""
    done = subprocess.run([sys.executable, "-c", FORGERY_CHILD], input=json.dumps(FORGERIES),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"the child died ({done.returncode}) on: {done.stderr.splitlines()[-1:]}"
    lines = done.stdout.splitlines()
    assert len(lines) == len(FORGERIES)
    for name, line in zip(FORGERIES, lines):
        assert line.startswith("-:") and ": error: " in line and "carries 'gmx." in line, (name, line)


def test_error_sites_of_convert_gmx_to_linalg_are_taken(gmx_opt, tmp_path):
    """A module lowered by --convert-gmx-to-linalg (still tensors) carries
    the sites of its gathers; they only name them in messages."""
    source, linalg = tmp_path / "in.mlir", tmp_path / "linalg.mlir"
    source.write_text(
        'func.func @main(%x: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {\n'
        '  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>\n'
        '  return %0 : tensor<4xf32>\n}\n'
    )
    assert gmx_opt(source, "--convert-gmx-to-linalg", "-o", linalg, "--mlir-print-debuginfo") == 0
    assert "gmx.error_sites" in linalg.read_text()
    with pytest.raises(IndexError, match=f"^{source}:2:8: index 9 is out of bounds"):
        run(linalg.read_text(), np.zeros(4, np.float32), np.array([0, 9, 1, 2]))


def test_forged_attribute_is_located_at_its_op():
    with pytest.raises(CompileError, match=r"^-:3:1: error: 'func.func' carries 'gmx.destinations'"):
        compile("\n\n" + forged("gmx.destinations", 4))


def test_a_module_lowered_by_gmx_keeps_its_attributes(gmx_opt, tmp_path):
    """The pipeline's own attributes (an LLVM-dialect module from gmx-opt)
    are still taken."""
    source, lowered = tmp_path / "in.mlir", tmp_path / "lowered.mlir"
    source.write_text(forged("", 4))
    assert gmx_opt(source, "--gmx-lower-to-llvm", "-o", lowered) == 0
    x = np.array([-1, 2, -3, 4], np.float32)
    np.testing.assert_array_equal(run(lowered.read_text(), x), np.abs(x))


def calling(name: str) -> str:
    """@main calls the external function `name` with 0 and returns its result."""
    return textwrap.dedent(f"""\
        func.func private @{name}(i32) -> i32
        func.func @main() -> tensor<1xi32> {{
          %c0 = arith.constant 0 : i32
          %r = func.call @{name}(%c0) : (i32) -> i32
          %t = tensor.from_elements %r : tensor<1xi32>
          return %t : tensor<1xi32>
        }}
        """)


@pytest.mark.parametrize("name", ["system", "exit", "abort", "dlopen", "mprotect"])
def test_process_functions_are_refused_by_default(name):
    with pytest.raises(CompileError) as caught:
        compile(calling(name))
    message = str(caught.value)
    assert re.match(r"-:1:\d+: error: the module declares external function ", message), message
    assert f"'@{name}'" in message and "allow_external=True" in message and "--allow-external-symbols" in message


def test_every_refused_function_is_named():
    text = calling("exit").replace("func.func @main", "func.func private @abort()\nfunc.func private @kill(i32, i32) -> i32\nfunc.func @main")
    with pytest.raises(CompileError, match=r"'@exit' \(and @abort, @kill\)"):
        compile(text)


def test_an_external_global_is_refused():
    text = (
        "llvm.mlir.global external @environ() {addr_space = 0 : i32} : !llvm.ptr\n"
        "func.func @main() -> tensor<1xi64> {\n"
        "  %p = llvm.mlir.addressof @environ : !llvm.ptr\n"
        "  %i = llvm.ptrtoint %p : !llvm.ptr to i64\n"
        "  %t = tensor.from_elements %i : tensor<1xi64>\n"
        "  return %t : tensor<1xi64>\n}\n"
    )
    with pytest.raises(CompileError, match=r"^-:1:1: error: the module declares external global '@environ'"):
        compile(text)


def test_allowed_when_asked():
    """`allow_external=True` restores mlir-runner's behaviour (a harmless
    function of the process is called)."""
    text = calling("getpid").replace("(i32) -> i32", "() -> i32").replace("(%c0)", "()")
    with pytest.raises(CompileError, match="'@getpid'"):
        compile(text)
    assert run(text, allow_external=True)[0] == os.getpid()


def test_allow_external_takes_a_bool():
    with pytest.raises(TypeError, match="allow_external must be True or False"):
        compile(calling("getpid"), allow_external="yes")


def test_what_the_runtime_provides_still_links():
    """libm (math.erf of exact GELU becomes erff) and the runtime's callbacks
    (a checked gather) need no opt-in."""
    text = textwrap.dedent("""\
        #map = affine_map<(d0) -> (d0)>
        func.func @main(%x: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
          %e = tensor.empty() : tensor<4xf32>
          %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
          %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%g : tensor<4xf32>) outs(%e : tensor<4xf32>) {
          ^bb0(%a: f32, %o: f32):
            %v = math.erf %a : f32
            %w = math.tan %v : f32
            linalg.yield %w : f32
          } -> tensor<4xf32>
          return %r : tensor<4xf32>
        }
        """)
    x = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    out = run(text, x, np.array([3, 2, 1, 0]))
    from math import erf, tan
    np.testing.assert_allclose(out, [tan(erf(v)) for v in x[::-1]], rtol=1e-6)


def test_provided_names():
    """Exactly what the runtime registers or finds: the callbacks' C
    interfaces (the lowering defines their plain names), the 18 libomp
    entry points it registers, real intrinsics."""
    for name in ("_mlir_ciface_gmx_index_error", "_mlir_ciface_gmx_shape_error", "memrefCopy", "malloc", "free",
                 "aligned_alloc", "erff", "erf", "tanhf", "powf", "__kmpc_fork_call", "omp_get_num_threads",
                 "llvm.memcpy.p0.p0.i64", "llvm.abs.i32"):
        assert provided(name), name
    for name in ("system", "exit", "abort", "popen", "execve", "dlsym", "gmx_index_errors", "mallocx",
                 "_mlir_ciface_main", "__kmp", "omp", "erfff", "", "gmx_index_error", "omp_get_wtime",
                 "omp_set_num_threads", "__kmpc_fork_teams", "llvm.gmx.nothing", "llvm."):
        assert not provided(name), name
    # cf.assert's lowering prints and aborts; a module declaring them is refused.
    assert not refused("abort", written=False) and refused("abort", written=True)
    assert refused("system", written=False)


def test_an_assert_needs_no_opt_in():
    text = textwrap.dedent("""\
        func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
          %c0 = arith.constant 0 : index
          %a = tensor.dim %x, %c0 : tensor<?xf32>
          %b = tensor.dim %y, %c0 : tensor<?xf32>
          %eq = arith.cmpi eq, %a, %b : index
          cf.assert %eq, "sizes differ"
          return %x : tensor<?xf32>
        }
        """)
    x = np.ones(3, np.float32)
    np.testing.assert_array_equal(run(text, x, x), x)


def test_gmx_run_refuses_and_allows(gmx_run, mlir_file, tmp_path, capsys):
    """`exit(0)` made gmx-run exit 0 without writing --output."""
    path = mlir_file(calling("exit"))
    out = tmp_path / "out.npy"
    assert gmx_run(path, "--output", out) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{path}:1:") and ": error: " in err and "'@exit'" in err
    assert not out.exists()
    getpid = mlir_file(calling("getpid").replace("(i32) -> i32", "() -> i32").replace("(%c0)", "()"), "pid.mlir")
    assert gmx_run(getpid, "--allow-external-symbols", "--output", out) == 0
    assert np.load(out)[0] == os.getpid()


# -- what LLVM takes from the process, whatever the op and the linkage -------

SYSTEM_AVAILABLE_EXTERNALLY = textwrap.dedent("""\
    llvm.func available_externally @system(%cmd: !llvm.ptr) -> i32 {
      %c = llvm.mlir.constant(0 : i32) : i32
      llvm.return %c : i32
    }
    func.func @main() -> tensor<1xi32> {
      %p = llvm.mlir.zero : !llvm.ptr
      %r = llvm.call @system(%p) : (!llvm.ptr) -> i32
      %t = tensor.from_elements %r : tensor<1xi32>
      return %t : tensor<1xi32>
    }
    """)


def test_a_function_with_a_body_llvm_may_drop_is_the_processs():
    """LLVM drops an available_externally body and links libc's system()
    (it ran with no opt-in before)."""
    with pytest.raises(CompileError) as caught:
        compile(SYSTEM_AVAILABLE_EXTERNALLY)
    message = str(caught.value)
    assert message.startswith("-:1:1: error: the module defines function '@system' with available_externally linkage")
    assert "--allow-external-symbols" in message
    assert run(SYSTEM_AVAILABLE_EXTERNALLY, allow_external=True).shape == (1,)


def test_a_global_with_a_value_llvm_may_drop_is_the_processs():
    """`available_externally @environ` handed the module the process's environment."""
    text = textwrap.dedent("""\
        llvm.mlir.global available_externally @environ(0 : i64) {addr_space = 0 : i32} : i64
        func.func @main() -> tensor<1xi64> {
          %p = llvm.mlir.addressof @environ : !llvm.ptr
          %i = llvm.load %p : !llvm.ptr -> i64
          %t = tensor.from_elements %i : tensor<1xi64>
          return %t : tensor<1xi64>
        }
        """)
    with pytest.raises(CompileError, match=r"^-:1:1: error: the module defines global '@environ' with "
                                           r"available_externally linkage"):
        compile(text)


def test_a_definition_llvm_keeps_is_the_modules_own():
    """A process name defined with a kept linkage is the module's: its own
    body runs, with no opt-in."""
    text = SYSTEM_AVAILABLE_EXTERNALLY.replace("available_externally", "internal").replace("0 : i32)", "7 : i32)")
    assert run(text)[0] == 7


def _calling_missing(declaration: str, name: str) -> str:
    return calling(name).replace(f"func.func private @{name}(i32) -> i32", declaration)


@pytest.mark.parametrize("allow_external", [False, True])
@pytest.mark.parametrize("declaration, name", [
    # omp_* beyond the 18 registered, which no library has (torch's libgomp, loaded
    # by an earlier test, has omp_get_wtime: the process would provide it)
    ("func.func private @omp_gmx_no_such_function(i32) -> i32", "omp_gmx_no_such_function"),
    ("func.func private @gmx_no_such_symbol(i32) -> i32", "gmx_no_such_symbol"),
    ("llvm.func @llvm.gmx.nothing(i32) -> i32", "llvm.gmx.nothing"),  # llvm.* that is no intrinsic
])
def test_a_symbol_nothing_provides_is_one_located_error(declaration, name, allow_external):
    """It ended in 'JIT session error: Symbols not found' and a traceback
    (`RuntimeError: Unknown function main`), with or without the opt-in."""
    text = _calling_missing(declaration, name)
    if declaration.startswith("llvm.func"):
        text = text.replace("func.call", "llvm.call")
    with pytest.raises(CompileError, match=rf"^-:1:\d+: error: the module declares external function '@{re.escape(name)}', "
                                           r"which neither gmx.runtime nor the process provides"):
        compile(text, allow_external=allow_external)


def test_an_intrinsic_declared_by_the_module_links():
    text = textwrap.dedent("""\
        llvm.func @llvm.fabs.f64(f64) -> f64
        func.func @main() -> tensor<1xf64> {
          %c = arith.constant -3.0 : f64
          %r = llvm.call @llvm.fabs.f64(%c) : (f64) -> f64
          %t = tensor.from_elements %r : tensor<1xf64>
          return %t : tensor<1xf64>
        }
        """)
    assert run(text)[0] == 3.0


@pytest.mark.parametrize("name", ["memrefCopy", "__kmpc_barrier", "_mlir_ciface_gmx_index_error"])
def test_a_definition_of_a_runtime_symbol_is_refused(name):
    """The engine refused to register the runtime's own (a traceback:
    `RuntimeError: Invalid argument`)."""
    text = f"llvm.func @{name}() {{\n  llvm.return\n}}\n" + forged("", 4)
    with pytest.raises(CompileError, match=rf"^-:1:1: error: the module defines function '@{name}', a symbol "
                                           "gmx.runtime defines itself"):
        compile(text, allow_external=True)


def test_a_link_failure_past_the_check_is_a_compile_error(monkeypatch):
    """What the check cannot see (a symbol LLVM's code generation asks
    for) still ends in a CompileError, not a RuntimeError."""
    from gmx.runtime import external_symbols

    monkeypatch.setattr(external_symbols, "resolvable", lambda name: True)
    with pytest.raises(CompileError, match=r"^<unknown>: error: the JIT could not link @main"):
        compile(calling("gmx_no_such_symbol_either"), allow_external=True)


def test_gmx_run_names_a_missing_symbol_in_one_line(gmx_run, mlir_file, capsys):
    path = mlir_file(calling("omp_gmx_no_such_function"))
    assert gmx_run(path, "--allow-external-symbols") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{path}:1:") and "'@omp_gmx_no_such_function'" in err, err
