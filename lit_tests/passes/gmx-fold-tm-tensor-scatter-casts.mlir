// RUN: gmx-opt %s --split-input-file --gmx-fold-tm-tensor-scatter-casts | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-fold-tm-tensor-scatter-casts --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: tm_tensor.
// CANON-NOT: tensor<5x1x4xf32>, tensor<?x1xi64>
// CANON-NOT: tensor<?x1x4xf32>, tensor<5x1xi64>

// torch-mlir's x[mask] = v: v's 5 rows cast to `?`, the mask's nonzero
// rows a dynamic count. Canonicalization alone would fold the updates'
// cast, not the indices' (a scatter its verifier rejects); both get 5.
// CHECK-LABEL: func.func @test_static_updates
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1
// CHECK: %[[J:.*]] = tensor.cast %arg2 : tensor<?x1xi64> to tensor<5x1xi64>
// CHECK: tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%[[E]], %[[J]] : tensor<5x1x4xf32>, tensor<5x1xi64>)
// CANON-LABEL: func.func @test_static_updates
// CANON: tm_tensor.scatter {{.*}} ins(%{{.*}}, %{{.*}} : tensor<5x1x4xf32>, tensor<5x1xi64>)
func.func @test_static_updates(%x: tensor<6x4xf32>, %v: tensor<5x4xf32>, %i: tensor<?x1xi64>) -> tensor<6x4xf32> {
  %e = tensor.expand_shape %v [[0], [1, 2]] output_shape [5, 1, 4] : tensor<5x4xf32> into tensor<5x1x4xf32>
  %u = tensor.cast %e : tensor<5x1x4xf32> to tensor<?x1x4xf32>
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%u, %i : tensor<?x1x4xf32>, tensor<?x1xi64>) outs(%x : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// -----

// The other way round: the indices' count is the static one.
// CHECK-LABEL: func.func @test_static_indices
// CHECK: %[[U:.*]] = tensor.cast %arg1 : tensor<?x1x4xf32> to tensor<3x1x4xf32>
// CHECK: tm_tensor.scatter {{.*}} ins(%[[U]], %arg2 : tensor<3x1x4xf32>, tensor<3x1xi64>)
func.func @test_static_indices(%x: tensor<6x4xf32>, %u: tensor<?x1x4xf32>, %j: tensor<3x1xi64>) -> tensor<6x4xf32> {
  %i = tensor.cast %j : tensor<3x1xi64> to tensor<?x1xi64>
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%u, %i : tensor<?x1x4xf32>, tensor<?x1xi64>) outs(%x : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// -----

// Negative: both counts dynamic (casts of only other dims), or both
// static: nothing to give, the scatter as it was.
// CHECK-LABEL: func.func @test_consistent
// CHECK-NOT: tensor.cast {{.*}} to tensor<{{[0-9]}}
// CHECK: tm_tensor.scatter {{.*}} ins(%[[U:.*]], %arg2 : tensor<?x1x?xf32>, tensor<?x1xi64>)
// CHECK: tm_tensor.scatter {{.*}} ins(%arg3, %arg4 : tensor<2x1x4xf32>, tensor<2x1xi64>)
func.func @test_consistent(%x: tensor<6x4xf32>, %w: tensor<?x1x4xf32>, %i: tensor<?x1xi64>, %v: tensor<2x1x4xf32>, %j: tensor<2x1xi64>) -> tensor<6x4xf32> {
  %u = tensor.cast %w : tensor<?x1x4xf32> to tensor<?x1x?xf32>
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%u, %i : tensor<?x1x?xf32>, tensor<?x1xi64>) outs(%x : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<6x4xf32>
  %s = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%v, %j : tensor<2x1x4xf32>, tensor<2x1xi64>) outs(%r : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<6x4xf32>
  return %s : tensor<6x4xf32>
}
