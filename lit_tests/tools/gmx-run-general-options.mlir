// gmx-run takes mlir-opt's general options that apply to the lowering it
// runs (--gmx-lower-to-llvm), on stderr; the results stay on stdout.
// RUN: gmx-run %s --mlir-print-ir-after-all --mlir-print-ir-before=gmx-report-asserts --mlir-timing --dump-pass-pipeline --mlir-elide-elementsattrs-if-larger=2 2>&1 >/dev/null | grep -e "Pass Manager" -e "IR Dump" -e "Execution time" -e "dense_resource<__elided__>" | FileCheck %s --check-prefix=LOWERING
// RUN: gmx-run %s --mlir-print-ir-after=convert-gmx-to-linalg 2>/dev/null | FileCheck %s --check-prefix=RESULT
// RUN: not gmx-run %s --mlir-timin 2>&1 | FileCheck %s --check-prefix=NEAR
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
