// An internal error of a pattern (injected with GMX_FAIL_PATTERN, see
// gmx.passes.debug) leaves the op unchanged. In strict mode, which the test
// suites set, it is a located error that fails the pass:
// RUN: env GMX_FAIL_PATTERN=raise-tosa-gather gmx-opt %s --split-input-file --verify-diagnostics --gmx-canonicalize
// Users get a located warning, the op unchanged, and exit status 0:
// RUN: env GMX_STRICT=0 GMX_FAIL_PATTERN=raise-tosa-gather gmx-opt %s --split-input-file --gmx-canonicalize 2>&1 | FileCheck %s

// CHECK: gmx-canonicalize-invalid.mlir:[[# @LINE + 5]]:8: warning: gmx-canonicalize: pattern raise-tosa-gather failed (RuntimeError: injected by GMX_FAIL_PATTERN); op left unchanged
// CHECK-LABEL: func.func @crashing_pattern
// CHECK: tosa.gather
func.func @crashing_pattern(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  // expected-error@+1 {{gmx-canonicalize: pattern raise-tosa-gather failed (RuntimeError: injected by GMX_FAIL_PATTERN); an error in strict mode (GMX_STRICT)}}
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
