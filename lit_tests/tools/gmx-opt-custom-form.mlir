// An op of the gmx dialect in custom form. IRDL ops parse in generic form
// only, and the parser fails without a diagnostic: the tools locate and
// explain the failure, exit 1, and keep what -o held.
// RUN: not gmx-opt %s 2>&1 | FileCheck %s
// RUN: echo precious > %t && not gmx-opt %s -o %t 2>/dev/null && FileCheck %s --check-prefix=KEPT < %t
// RUN: not gmx-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not gmx-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not gmx-run %s -e custom 2>&1 | FileCheck %s

// CHECK: gmx-opt-custom-form.mlir:22:8: error: 'gmx.gather_multiaxis' has no custom form (gmx ops are defined in IRDL, which parses the generic form only): write "gmx.gather_multiaxis"(%input, %indices) {axes = array<i64: ...>} : (...) -> ...
// KEPT: precious
// SPLIT: gmx-opt-custom-form.mlir:22:8: error: 'gmx.gather_multiaxis' has no custom form
// VERIFY: gmx-opt-custom-form.mlir:22:8: error: unexpected error: 'gmx.gather_multiaxis' has no custom form
func.func @generic(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @custom(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = gmx.gather_multiaxis %x, %i {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
