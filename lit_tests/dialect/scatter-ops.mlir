// RUN: gmx-opt %s | gmx-opt | FileCheck %s
// RUN: gmx-opt %s --canonicalize | FileCheck %s --check-prefix=DEAD

// Valid scatters round-trip unchanged (IRDL ops print in generic form).

// ONNX ScatterElements / torch.scatter_add along dim 1.
// CHECK-LABEL: func.func @scatter_elements_add
// CHECK: "gmx.scatter_multiaxis"(%{{.*}}, %{{.*}}, %{{.*}}) {axes = array<i64: 1>, reduction = "add"} : (tensor<4x5xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x5xf32>
func.func @scatter_elements_add(%x: tensor<4x5xf32>, %i: tensor<4x3xi64>, %u: tensor<4x3xf32>) -> tensor<4x5xf32> {
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 1>, reduction = "add"} : (tensor<4x5xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// x[i, :, j] = 0.0: axes [0, 2], one scalar update broadcast over every dim.
// CHECK-LABEL: func.func @advanced_index_put_scalar
// CHECK: {axes = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<3x1x2xi32>, tensor<1x1x1xf32>) -> tensor<4x5x6xf32>
func.func @advanced_index_put_scalar(%x: tensor<4x5x6xf32>, %ij: tensor<3x1x2xi32>, %v: tensor<1x1x1xf32>) -> tensor<4x5x6xf32> {
  %0 = "gmx.scatter_multiaxis"(%x, %ij, %v) {axes = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<3x1x2xi32>, tensor<1x1x1xf32>) -> tensor<4x5x6xf32>
  return %0 : tensor<4x5x6xf32>
}

// JAX .at[i].max(v, mode="drop"), with StableHLO's promise of unique indices; dynamic dims.
// CHECK-LABEL: func.func @drop_max_unique_dynamic
// CHECK: {axes = array<i64: 0>, mode = "drop", reduction = "max", unique_indices} : (tensor<?x8xbf16>, tensor<?x1xi64>, tensor<?x8xbf16>) -> tensor<?x8xbf16>
func.func @drop_max_unique_dynamic(%x: tensor<?x8xbf16>, %i: tensor<?x1xi64>, %u: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, mode = "drop", reduction = "max", unique_indices} : (tensor<?x8xbf16>, tensor<?x1xi64>, tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return %0 : tensor<?x8xbf16>
}

// i1 takes max (or) and min (and); rank 0 with empty axes.
// CHECK-LABEL: func.func @bool_max_and_rank0
// CHECK: {axes = array<i64: 0>, mode = "wrap", reduction = "max"} : (tensor<7xi1>, tensor<3xi8>, tensor<3xi1>) -> tensor<7xi1>
// CHECK: {axes = array<i64>, reduction = "mul"} : (tensor<f64>, tensor<i64>, tensor<f64>) -> tensor<f64>
func.func @bool_max_and_rank0(%m: tensor<7xi1>, %i: tensor<3xi8>, %b: tensor<3xi1>, %s: tensor<f64>, %k: tensor<i64>) -> (tensor<7xi1>, tensor<f64>) {
  %0 = "gmx.scatter_multiaxis"(%m, %i, %b) {axes = array<i64: 0>, mode = "wrap", reduction = "max"} : (tensor<7xi1>, tensor<3xi8>, tensor<3xi1>) -> tensor<7xi1>
  %1 = "gmx.scatter_multiaxis"(%s, %k, %s) {axes = array<i64>, reduction = "mul"} : (tensor<f64>, tensor<i64>, tensor<f64>) -> tensor<f64>
  return %0, %1 : tensor<7xi1>, tensor<f64>
}

// The op is Pure: unused, canonicalization erases it.
// DEAD-LABEL: func.func @unused
// DEAD-NOT: gmx.scatter_multiaxis
func.func @unused(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}
