// Checked mode never lowers a tosa.gather unchecked: one that raise-tosa-gather
// left (a pattern failure, injected with GMX_FAIL_PATTERN; users get its
// warning, see gmx-canonicalize-invalid.mlir) is a located error.
// RUN: env GMX_STRICT=0 GMX_FAIL_PATTERN=raise-tosa-gather gmx-opt %s --verify-diagnostics --gmx-lower-to-llvm
// Unchecked, it is lowered as upstream's tosa-to-linalg lowers it.
// RUN: env GMX_STRICT=0 GMX_FAIL_PATTERN=raise-tosa-gather gmx-opt %s --gmx-lower-to-llvm=checked=false 2>/dev/null | FileCheck %s

// CHECK-LABEL: llvm.func @unraised(
// CHECK-NOT: llvm.call @gmx_index_error
func.func @unraised(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  // expected-error@+1 {{tosa.gather was not raised into gmx.gather_multiaxis, so it cannot be bounds-checked (lower with checked=false to run it unchecked)}}
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

