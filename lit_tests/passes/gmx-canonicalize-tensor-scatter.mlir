// raise-tensor-scatter (passes/raising/tensor_scatters.py): upstream's
// tensor.scatter, which no upstream pass lowers, becomes one gmx scatter, rank-reducing
// or rank-preserving, static or dynamic, index-typed indices cast to i64; its `unique` is
// the op's unique_indices.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s --check-prefixes=CHECK,FUSED
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s --check-prefixes=CHECK,FUSED
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --debug-only=gmx-canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=WHY
// With fuse=false (the first stage of --gmx-lower-to-llvm) it is raised too, with no view folded into it.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize=fuse=false | FileCheck %s --check-prefixes=CHECK,RAW

// raise-tensor-scatter: rank-reducing, two scattered dims: the indices are the coordinate tuples as they are.
// CHECK-LABEL: func.func @rank_reducing
// CHECK-DAG: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [3, 1, 2] : tensor<3x2xi32> into tensor<3x1x2xi32>
// CHECK-DAG: %[[U:.*]] = tensor.expand_shape %arg2 {{\[}}[0], [1, 2]] output_shape [3, 5, 1] : tensor<3x5xf32> into tensor<3x5x1xf32>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[I]], %[[U]]) {axes = array<i64: 0, 2>, unique_indices} : (tensor<4x5x6xf32>, tensor<3x1x2xi32>, tensor<3x5x1xf32>) -> tensor<4x5x6xf32>
// CHECK-NOT: tensor.scatter
// CHECK: return %[[S]]
func.func @rank_reducing(%x: tensor<4x5x6xf32>, %i: tensor<3x2xi32>, %u: tensor<3x5xf32>) -> tensor<4x5x6xf32> {
  %r = tensor.scatter %u into %x[%i] scatter_dims([0, 2]) unique : (tensor<3x5xf32>, tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<4x5x6xf32>
  return %r : tensor<4x5x6xf32>
}

// -----

// raise-tensor-scatter: rank-preserving, two batch dims, index-typed indices: a linalg.generic casts them to
// i64; the destination gains the batch dims as unit dims (every update of a batch writes its one row).
// With fuse, the gather's folds of views (fold-input-reshape, simplify-indices) read the scatter too: one
// batch dim and no view of the indices left.
// CHECK-LABEL: func.func @rank_preserving_index
// CHECK-DAG: %[[C:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x3x1xindex>) outs(%{{.*}} : tensor<2x3x1xi64>)
// RAW-DAG: %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 4, 5] : tensor<4x5xf32> into tensor<1x1x4x5xf32>
// RAW-DAG: %[[I:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 1, 1] : tensor<2x3x1xi64> into tensor<2x3x1x1xi64>
// RAW: %[[S:.*]] = "gmx.scatter_multiaxis"(%[[X]], %[[I]], %arg2) {axes = array<i64: 2>, unique_indices} : (tensor<1x1x4x5xf32>, tensor<2x3x1x1xi64>, tensor<2x3x1x5xf32>) -> tensor<1x1x4x5xf32>
// RAW: %[[R:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x4x5xf32> into tensor<4x5xf32>
// FUSED-DAG: %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [1, 4, 5] : tensor<4x5xf32> into tensor<1x4x5xf32>
// FUSED-DAG: %[[U:.*]] = tensor.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : tensor<2x3x1x5xf32> into tensor<2x3x5xf32>
// FUSED: %[[S:.*]] = "gmx.scatter_multiaxis"(%[[X]], %[[C]], %[[U]]) {axes = array<i64: 1>, unique_indices} : (tensor<1x4x5xf32>, tensor<2x3x1xi64>, tensor<2x3x5xf32>) -> tensor<1x4x5xf32>
// FUSED: %[[R:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1], [2]] : tensor<1x4x5xf32> into tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @rank_preserving_index(%x: tensor<4x5xf32>, %i: tensor<2x3x1xindex>, %u: tensor<2x3x1x5xf32>) -> tensor<4x5xf32> {
  %r = tensor.scatter %u into %x[%i] scatter_dims([0]) unique : (tensor<2x3x1x5xf32>, tensor<4x5xf32>, tensor<2x3x1xindex>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// raise-tensor-scatter: a `?` count of rows.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 0>, unique_indices} : (tensor<?x5xf32>, tensor<?x1xi64>, tensor<?x5xf32>) -> tensor<?x5xf32>
// CHECK: return %[[S]]
func.func @dynamic_rows(%x: tensor<?x5xf32>, %i: tensor<?x1xi64>, %u: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %r = tensor.scatter %u into %x[%i] scatter_dims([0]) unique : (tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x1xi64>) -> tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}

// -----

// raise-tensor-scatter, negative: a `?` dim the scatter writes whole is read as a window of unknown size
// (the plan cannot prove it spans its dim); left alone.
// CHECK-LABEL: func.func @dynamic_window
// CHECK: tensor.scatter
// CHECK-NOT: gmx.scatter_multiaxis
// WHY: raise-tensor-scatter: no match: operand dim 1: a slice of None of ? (a window)
func.func @dynamic_window(%x: tensor<?x?xf32>, %i: tensor<?x1xi32>, %u: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.scatter %u into %x[%i] scatter_dims([0]) unique : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xi32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// raise-tensor-scatter, negative: a `?` count of tuples over a `?` batch dim, every dim but one scattered:
// no unit-dim view gives the indices gmx needs; left alone.
// CHECK-LABEL: func.func @dynamic_tuples
// CHECK: tensor.scatter
// CHECK-NOT: gmx.scatter_multiaxis
// WHY: raise-tensor-scatter: no match: no view from [None, None, 2] to [None, None]
func.func @dynamic_tuples(%x: tensor<4x?xf32>, %i: tensor<?x?x2xi32>, %u: tensor<?x?xf32>) -> tensor<4x?xf32> {
  %r = tensor.scatter %u into %x[%i] scatter_dims([0, 1]) unique : (tensor<?x?xf32>, tensor<4x?xf32>, tensor<?x?x2xi32>) -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}
