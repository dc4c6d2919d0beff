// Pass flags and --pass-pipeline run gmx and upstream passes in order; stdin
// is read for '-'. Errors: gmx-opt-errors.mlir.
// RUN: gmx-opt %s --convert-gmx-to-linalg --canonicalize | FileCheck %s
// RUN: gmx-opt %s --pass-pipeline='builtin.module(convert-gmx-to-linalg{checked=false}, canonicalize)' | FileCheck %s --check-prefix=PIPE
// RUN: cat %s | gmx-opt - --convert-gmx-to-linalg | FileCheck %s
// RUN: gmx-opt %s --gmx-lower-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: gmx-opt %s --convert-gmx-to-linalg --mlir-print-ir-after-all -o %t 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// RUN: gmx-opt --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: func.func @main
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: linalg.generic
// PIPE-LABEL: func.func @main
// PIPE-NOT: gmx_index_error(
// PIPE: linalg.generic
// LLVM: llvm.func @main
// LLVM-NOT: linalg.generic
// AFTER: IR Dump After convert-gmx-to-linalg
// HELP: --convert-gmx-to-linalg
// HELP: --gmx-lower-to-llvm
func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
