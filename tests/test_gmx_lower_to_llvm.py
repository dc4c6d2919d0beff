"""--gmx-lower-to-llvm is one declared list of stages: the pass, the
runtime's pipeline and gmx-study's levels are derived from it."""

from __future__ import annotations

import re

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
    assert "gmx-require-raised-tosa-gathers" in default and "gmx-require-raised-tosa-gathers" not in runtime
    assert "gmx-destination-passing" not in default and "gmx-destination-passing" in runtime
    assert "eliminate-empty-tensors" in runtime and "gmx-parallel-loops" in runtime
    assert "gmx-check-scatter-indices" not in runtime  # unchecked


def test_levels_are_prefixes_of_the_whole_pipeline():
    options = lowering_options(checked=True)
    whole = stages(options)
    linalg, loops = stages(options, until="linalg"), stages(options, until="loops")
    assert whole[: len(loops)] == loops and loops[: len(linalg)] == linalg
    assert linalg[-1].name == "gmx-check-scatter-indices" and loops[-1].name == "gmx-parallel-bodies"
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
