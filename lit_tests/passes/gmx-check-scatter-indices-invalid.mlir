// A scatter on an unranked tensor has no K to check its indices against:
// a located error, never a scatter lowered unchecked.
// RUN: gmx-opt %s --verify-diagnostics --gmx-check-scatter-indices
// RUN: gmx-opt %s --verify-diagnostics --gmx-lower-to-llvm

func.func @unranked(%v: tensor<*xf32>, %i: tensor<1x3xi32>, %x: tensor<1x3x2xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{tosa.scatter on an unranked tensor cannot be bounds-checked}}
  %0 = tosa.scatter %v, %i, %x : (tensor<*xf32>, tensor<1x3xi32>, tensor<1x3x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
