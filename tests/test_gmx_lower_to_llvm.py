"""--gmx-lower-to-llvm is one declared list of stages: the pass, the
runtime's pipeline and gmx-study's levels are derived from it."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import ir, passmanager
from gmx.passes.lowering import gmx_lower_to_llvm as lowering
from gmx.passes.lowering.gmx_lower_to_llvm import LowerOptions, Step, Upstream, add_lowering, stages
from gmx.runtime.lowering import lowering_options
from gmx.tools.study import stages as study

GATHER = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
DUMPED = re.compile(r"^// -----// IR Dump After \S+: ([a-z0-9-]+)", re.M)


def _pass_names(stage) -> list[str]:
    """The pass names an element shows in a dump (nested ones unwrapped)."""
    if isinstance(stage, Upstream):
        return re.findall(r"([a-z0-9-]+)(?:\{[^}]*\})?(?:\)|$)", stage.element)
    return [stage.name]


@pytest.mark.parametrize("options", [LowerOptions(), lowering_options(checked=False)], ids=["default", "runtime"])
def test_every_stage_is_dumped_under_its_own_name_in_order(options, capfd):
    """--mlir-print-ir-after-all shows each declared stage by name, in the
    declared order (upstream pipelines such as buffer-deallocation-pipeline
    show their own passes, so only the other names are matched in order)."""
    with make_context():
        module = ir.Module.parse(GATHER)
        pm = passmanager.PassManager("builtin.module")
        add_lowering(pm, options)
        pm.enable_ir_printing(print_after_all=True, print_module_scope=True)
        capfd.readouterr()
        pm.run(module.operation)
    dumped = DUMPED.findall(capfd.readouterr().err)
    expected = [n for s in stages(options) for n in _pass_names(s) if n != "buffer-deallocation-pipeline"]
    position = 0
    for name in expected:
        assert name in dumped[position:], f"{name} not dumped after {dumped[position - 1:position]}"
        position = dumped.index(name, position) + 1
    assert "gmx-lower-to-llvm" not in dumped  # no anonymous step under the pass's own name


def test_conditions_select_the_stages():
    names = {o: [s.name for s in stages(o)] for o in (LowerOptions(), lowering_options(checked=False))}
    default, runtime = names.values()
    assert "gmx-require-checkable-indices" in default and "gmx-require-checkable-indices" not in runtime
    assert "gmx-destination-passing" not in default and "gmx-destination-passing" in runtime
    assert "eliminate-empty-tensors" in runtime and "gmx-parallel-loops" in runtime
    assert "gmx-check-scatter-indices" not in runtime  # unchecked
    assert "gmx-check-slices" in default and "gmx-check-slices" not in runtime


def test_levels_are_prefixes_of_the_whole_pipeline():
    options = lowering_options(checked=True)
    whole = stages(options)
    linalg, loops = stages(options, until="linalg"), stages(options, until="loops")
    assert whole[: len(loops)] == loops and loops[: len(linalg)] == linalg
    assert linalg[-1].name == "gmx-check-tm-tensor-scatter" and loops[-1].name == "gmx-parallel-bodies"
    with pytest.raises(ValueError, match="no level 'tensors'"):
        stages(options, until="tensors")


def test_options_are_typed_and_spelled_from_one_declaration():
    """The flag's options are LowerOptions' fields; their text is derived."""
    assert [o.name for o in lowering.PASS.options] == ["checked", "destinations"]
    assert LowerOptions().flag() == "--gmx-lower-to-llvm"
    options = lowering_options(checked=False)
    assert options.flag() == "--gmx-lower-to-llvm=checked=false,destinations=true"
    spelled = options.flag().partition("=")[2]
    assert LowerOptions.from_flag(lowering.PASS.parse_options(spelled)) == options


def test_a_named_step_failing_fails_the_pipeline():
    def refuse(module):
        from gmx.passes.registry import PassFailed

        raise PassFailed("no")

    with make_context():
        module = ir.Module.parse(GATHER)
        pm = passmanager.PassManager("builtin.module")
        Step("gmx-refuse", "refuses", refuse).add_to(pm, LowerOptions())
        with pytest.raises(ir.MLIRError):
            pm.run(module.operation)


def test_gmx_study_loop_level_is_what_the_runtime_compiles():
    """gmx-study's loops stage takes destinations as the runtime's program
    does: the result is the caller's buffer (no allocation for it), the
    entry marked as the runtime reads it."""
    lowered = study.lower(GATHER, ["x", "i"], checked=True)
    loops = lowered.stages["loops"]
    assert loops.error is None, loops.error
    assert "gmx.destinations" in loops.text and "%arg2: memref<2x3xf32>" in loops.text
    assert loops.counts["memref.alloc"] == 0
    assert "destinations=true up to its loops level" in loops.title


# --- what it lowers beyond gathers: loops carrying tensors, arith on tensors ---

ARITH_ON_TENSORS = """func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %y : tensor<4xf32>
  %1 = math.erf %0 : tensor<4xf32>
  %2 = arith.mulf %1, %x : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""
FOR_LOOP = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %n = arith.addf %acc, %x : tensor<?xf32>
    scf.yield %n : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
"""
WHILE_LOOP = """func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %c0 = arith.constant dense<0> : tensor<i32>
  %r:2 = scf.while (%acc = %x, %i = %c0) : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
    %lt = arith.cmpi slt, %i, %n : tensor<i32>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %acc, %i : tensor<4xf32>, tensor<i32>
  } do {
  ^bb0(%a: tensor<4xf32>, %j: tensor<i32>):
    %one = arith.constant dense<1> : tensor<i32>
    %k = arith.addi %j, %one : tensor<i32>
    %b = tosa.mul %a, %a, %shift : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
    scf.yield %b, %k : tensor<4xf32>, tensor<i32>
  }
  return %r#0 : tensor<4xf32>
}
"""


def test_arith_and_math_on_tensors_run_as_numpy():
    from gmx.runtime import compile

    x, y = np.array([0.5, -1.0, 2.0, 0.0], np.float32), np.array([1.0, 0.25, -3.0, 0.0], np.float32)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(compile(ARITH_ON_TENSORS)(x, y), erf(x + y) * x, rtol=1e-6)


def test_scf_for_carrying_a_dynamic_tensor_runs():
    from gmx.runtime import compile

    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(compile(FOR_LOOP)(x), 4 * x)


def test_scf_while_carrying_tensors_runs():
    from gmx.runtime import compile

    text = WHILE_LOOP.replace("%b = tosa.mul", '%shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> '
                              ": () -> tensor<1xi8>\n    %b = tosa.mul")
    x = np.array([1.0, 2.0, -1.5, 0.5], np.float32)
    np.testing.assert_array_equal(compile(text)(x, np.array(3, np.int32)), x ** 8)


@pytest.mark.parametrize("name", ["fori_loop", "while_loop", "cond"])
def test_jax_control_flow_equals_jax(name):
    jax = pytest.importorskip("jax")
    from gmx.runtime import compile
    from gmx.tools.experiments.frontends import jax_to_stablehlo

    functions = {
        "fori_loop": lambda a: jax.lax.fori_loop(0, 3, lambda i, acc: acc * 2 + a[i], a),
        "while_loop": lambda a: jax.lax.while_loop(lambda s: s[1] < 10, lambda s: (s[0] + a, s[1] + 3), (a, 0))[0],
        "cond": lambda a: jax.lax.cond(a[0] > 1, lambda v: v * 2, lambda v: v - 1, a),
    }
    x = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(compile(jax_to_stablehlo(functions[name], [x]))(x), np.asarray(functions[name](jax.numpy.asarray(x))))


def test_an_op_with_no_lowering_is_named_without_a_reproducer():
    """Not "op was not bufferized" and a "reproduce with" line blaming gmx."""
    from gmx.runtime import CompileError, compile

    text = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    with pytest.raises(CompileError) as info:
        compile(text)
    message = str(info.value)
    assert message.startswith("-:2:8: error: 'stablehlo.custom_call' has no lowering: "), message
    assert "reproduce with" not in message
