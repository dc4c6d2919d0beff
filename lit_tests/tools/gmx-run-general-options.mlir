// gmx-run takes mlir-opt's general options that apply to the lowering it
// runs (--gmx-lower-to-llvm), on stderr; the results stay on stdout.
// RUN: gmx-run %s --mlir-print-ir-after-all --mlir-print-ir-before=gmx-report-asserts --mlir-timing --dump-pass-pipeline --mlir-elide-elementsattrs-if-larger=2 2>&1 >/dev/null | grep -e "Pass Manager" -e "IR Dump" -e "Execution time" -e "dense_resource<__elided__>" | FileCheck %s --check-prefix=LOWERING
// RUN: gmx-run %s --mlir-print-ir-after=convert-gmx-to-linalg 2>/dev/null | FileCheck %s --check-prefix=RESULT
// RUN: gmx-run %s --mlir-print-ir-before-all --mlir-print-ir-after-all --mlir-print-ir-after-change --mlir-print-ir-module-scope --mlir-print-op-generic --mlir-print-debuginfo --mlir-pass-statistics --mlir-pass-statistics-display=list --verify-each=false --mlir-elide-resource-strings-if-larger=4 2> %t.err >/dev/null
// RUN: FileCheck %s --input-file %t.err --check-prefix=DETAILS
// RUN: grep "IR Dump" %t.err | FileCheck %s --check-prefix=CHANGE
// DETAILS: IR Dump Before gmx-prepare-entry-points: gmx-prepare-entry-points ('builtin.module' operation) //----- //
// DETAILS-NEXT: "builtin.module"() ({
// DETAILS: loc(
// DETAILS: ... Pass statistics report ...
// gmx-check-tm-tensor-scatter changes nothing here: no dump after it.
// CHANGE: IR Dump Before gmx-check-tm-tensor-scatter
// CHANGE-NEXT: IR Dump Before
// A lowering that fails: the dump after the failing stage only, or its file.
// RUN: not gmx-run %S/Inputs/unlowerable-op.mlir --mlir-print-ir-after-failure 2>&1 | grep -e "IR Dump" -e "error:" | FileCheck %s --check-prefix=FAILURE
// FAILURE: IR Dump After TosaToLinalg Failed: tosa-to-linalg
// FAILURE-NEXT: {{.*}}error: failed to legalize operation 'tosa.custom'
// RUN: rm -rf %t.tree && not gmx-run %S/Inputs/unlowerable-op.mlir --mlir-print-ir-after-failure --mlir-print-ir-tree-dir=%t.tree 2>&1 | FileCheck %s --check-prefix=FAILURE-TREE
// RUN: cat %t.tree/builtin_module_no-symbol-name/func_func_main/0_0_tosa-to-linalg.mlir | FileCheck %s --check-prefix=FAILURE-FILE
// FAILURE-TREE-NOT: IR Dump
// FAILURE-FILE: IR Dump After TosaToLinalg Failed: tosa-to-linalg
// mlir-runner's -e and --entry-point-result (checked against the entry).
// RUN: gmx-run %s -e nothing --entry-point-result=void | FileCheck %s --allow-empty --check-prefix=VOID
// RUN: not gmx-run %s --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NOT-VOID
// VOID-NOT: {{.}}
// NOT-VOID: gmx-run: error: --entry-point-result=void, but @main returns float32[2x3]
// RUN: not gmx-run %s --mlir-timin 2>&1 | FileCheck %s --check-prefix=NEAR
// RUN: gmx-run --help | FileCheck %s --check-prefix=HELP
// HELP: General options (mlir-opt's, applied to the lowering):
// HELP: --mlir-print-ir-after-all
// RUN: gmx-run --version | FileCheck %s --check-prefix=VERSION
// LOWERING: Pass Manager with {{[0-9]+}} passes:
// LOWERING: IR Dump After gmx-prepare-entry-points: gmx-prepare-entry-points //----- //
// LOWERING: dense_resource<__elided__>
// LOWERING: IR Dump After convert-gmx-to-linalg: convert-gmx-to-linalg //----- //
// LOWERING: IR Dump Before gmx-report-asserts: gmx-report-asserts //----- //
// LOWERING: IR Dump After gmx-report-asserts: gmx-report-asserts //----- //
// LOWERING: IR Dump After gmx-mark-arguments-noalias
// LOWERING: Execution time report
// RESULT: array([[3., 4., 5.],
// RESULT-NEXT: [0., 1., 2.]], dtype=float32)
// NEAR: gmx-run: error: unrecognized argument '--mlir-timin'; did you mean '--mlir-timing'?
// VERSION: gmx-run (gmx {{[0-9.]+}})
func.func @main() -> tensor<2x3xf32> {
  %x = arith.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %i = arith.constant dense<[[1], [0]]> : tensor<2x1xi64>
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @nothing() {
  return
}
