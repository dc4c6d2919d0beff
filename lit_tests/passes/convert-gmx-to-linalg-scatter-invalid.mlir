// What --convert-gmx-to-linalg cannot lower yet is refused at the op, the
// other ops lowered.
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --convert-gmx-to-linalg

func.func @complex_sum(%x: tensor<4xcomplex<f32>>, %i: tensor<2xi64>, %u: tensor<2xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'gmx.scatter_multiaxis' has no lowering: reduction "add" on complex<f32> is not lowered yet}}
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<4xcomplex<f32>>, tensor<2xi64>, tensor<2xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
}

// -----

func.func @dynamic(%x: tensor<?xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{'gmx.scatter_multiaxis' has no lowering: dynamic shapes are not lowered yet}}
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<?xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
