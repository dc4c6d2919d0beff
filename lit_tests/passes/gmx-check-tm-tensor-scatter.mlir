// RUN: gmx-opt %s --split-input-file --gmx-check-tm-tensor-scatter | FileCheck %s

// torch-mlir's scatter along two dims: each coordinate is checked against
// the size of the dim its column indexes (3, then 5: chosen by column, as
// every index check chooses a coordinate's size); the scatter runs
// only when all are in range, else each bad one is reported with its dim.
// CHECK-LABEL: module attributes {gmx.error_sites = ["{{.*}}gmx-check-tm-tensor-scatter.mlir:[[# @LINE + 18]]:8"]}
// CHECK-LABEL: func.func @test_scatter
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK: %[[FLAG:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%arg1 : tensor<2x2xi64>)
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: %[[SECOND:.*]] = arith.cmpi eq, %[[COL]], %{{.*}} : index
// CHECK: %[[SIZE:.*]] = arith.select %[[SECOND]], %[[C5]], %[[C3]] : i64
// CHECK: arith.cmpi ult, %{{.*}}, %[[SIZE]] : i64
// CHECK: %[[OK:.*]] = tensor.extract %[[FLAG]][] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[OK]] -> (tensor<3x5xf32>) {
// CHECK: %[[S:.*]] = tm_tensor.scatter
// CHECK: scf.yield %[[S]] : tensor<3x5xf32>
// CHECK: } else {
// CHECK: func.call @gmx_index_error(
// CHECK: scf.yield %arg0 : tensor<3x5xf32>
// CHECK: return %[[R]]
func.func @test_scatter(%x: tensor<3x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2xf32>) -> tensor<3x5xf32> {
  %0 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%u, %i : tensor<2xf32>, tensor<2x2xi64>) outs(%x : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Rows of 7 written along a dim of run-time size: the scatter also runs
// only when 7 fits that size, else the runtime is told the sizes
// (SHAPE_ERROR_SCATTER_ROWS = -4) and nothing is written.
// CHECK-LABEL: func.func @test_dynamic_rows
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : i64
// CHECK-DAG: %[[CM4:.*]] = arith.constant -4 : i64
// CHECK: %[[DIM:.*]] = tensor.dim %arg0, %{{.*}} : tensor<3x?xf32>
// CHECK: %[[ROOM:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[FITS:.*]] = arith.cmpi uge, %[[ROOM]], %[[C7]] : i64
// CHECK: %[[OK:.*]] = arith.andi %{{.*}}, %[[FITS]] : i1
// CHECK: scf.if %[[OK]] -> (tensor<3x?xf32>) {
// CHECK: tm_tensor.scatter
// CHECK: } else {
// CHECK: func.call @gmx_shape_error(%{{.*}}, %[[CM4]], %{{.*}}, %{{.*}})
func.func @test_dynamic_rows(%x: tensor<3x?xf32>, %u: tensor<2x7xf32>, %i: tensor<2x1xi64>) -> tensor<3x?xf32> {
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%u, %i : tensor<2x7xf32>, tensor<2x1xi64>) outs(%x : tensor<3x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// Negative: no tm_tensor.scatter, nothing changes.
// CHECK-LABEL: func.func @test_no_scatter
// CHECK-NOT: linalg.generic
// CHECK-NOT: gmx_index_error
func.func @test_no_scatter(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  return %x : tensor<3x5xf32>
}
