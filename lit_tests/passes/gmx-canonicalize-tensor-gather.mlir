// raise-tensor-gather (passes/raising/tensor_gathers.py): upstream's
// tensor.gather, which no upstream pass lowers, becomes one gmx op, rank-reducing
// or rank-preserving, static or dynamic, index-typed indices cast to i64.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --debug-only=gmx-canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=WHY

// raise-tensor-gather: rank-reducing, two gathered dims: the indices are the coordinate tuples as they are.
// CHECK-LABEL: func.func @rank_reducing_tuple
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [3, 1, 2] : tensor<3x2xi32> into tensor<3x1x2xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<3x1x2xi32>) -> tensor<3x5x1xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<3x5x1xf32> into tensor<3x5xf32>
// CHECK-NOT: tensor.gather
// CHECK: return %[[R]]
func.func @rank_reducing_tuple(%s: tensor<4x5x6xf32>, %i: tensor<3x2xi32>) -> tensor<3x5xf32> {
  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----
// raise-tensor-gather: rank-preserving with index-typed indices: a linalg.generic casts them to i64;
// the gathered dim stays a unit dim of the result.
// CHECK-LABEL: func.func @rank_preserving_index_type
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 5, 6] : tensor<4x5x6xf32> into tensor<1x4x5x6xf32>
// CHECK: %[[I:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2, 3]] output_shape [3, 1, 1, 1] : tensor<3x1xi64> into tensor<3x1x1x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %[[I]]) {axes = array<i64: 2>} : (tensor<1x4x5x6xf32>, tensor<3x1x1x1xi64>) -> tensor<3x4x1x6xf32>
// CHECK-NOT: tensor.gather
// CHECK: return %[[G]]
func.func @rank_preserving_index_type(%s: tensor<4x5x6xf32>, %i: tensor<3x1xindex>) -> tensor<3x4x1x6xf32> {
  %0 = tensor.gather %s[%i] gather_dims([1]) : (tensor<4x5x6xf32>, tensor<3x1xindex>) -> tensor<3x4x1x6xf32>
  return %0 : tensor<3x4x1x6xf32>
}

// -----
// raise-tensor-gather: dynamic batch and source: unit dims added by expands over tensor.dim sizes.
// CHECK-LABEL: func.func @dynamic_rank_preserving
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1, 2], [3], [4]] output_shape [1, 1, %{{.*}}, 5, 6] : tensor<?x5x6xf32> into tensor<1x1x?x5x6xf32>
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2, 3], [4]] output_shape [%{{.*}}, 2, 1, 1, 1] : tensor<?x2x1xi64> into tensor<?x2x1x1x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %[[I]]) {axes = array<i64: 2>} : (tensor<1x1x?x5x6xf32>, tensor<?x2x1x1x1xi64>) -> tensor<?x2x1x5x6xf32>
// CHECK-NOT: tensor.gather
// CHECK: return %[[G]]
func.func @dynamic_rank_preserving(%s: tensor<?x5x6xf32>, %i: tensor<?x2x1xi64>) -> tensor<?x2x1x5x6xf32> {
  %0 = tensor.gather %s[%i] gather_dims([0]) : (tensor<?x5x6xf32>, tensor<?x2x1xi64>) -> tensor<?x2x1x5x6xf32>
  return %0 : tensor<?x2x1x5x6xf32>
}

// -----
// raise-tensor-gather: dynamic, rank-reducing, index-typed: the source's ? dim is the result's.
// CHECK-LABEL: func.func @dynamic_rank_reducing_index_type
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 3>} : (tensor<1x4x?x6xf32>, tensor<?x1x1x1xi64>) -> tensor<?x4x?x1xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1], [2, 3]] : tensor<?x4x?x1xf32> into tensor<?x4x?xf32>
// CHECK-NOT: tensor.gather
// CHECK: return %[[R]]
func.func @dynamic_rank_reducing_index_type(%s: tensor<4x?x6xf32>, %i: tensor<?x1xindex>) -> tensor<?x4x?xf32> {
  %0 = tensor.gather %s[%i] gather_dims([2]) : (tensor<4x?x6xf32>, tensor<?x1xindex>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// -----
// raise-tensor-gather, negative: a dynamic count of coordinate tuples gathering every dim would put
// the ? count and the tuple into one indices dim, which no unit-dim view gives;
// left alone (its static form is raised, @rank_reducing_tuple).
// CHECK-LABEL: func.func @dynamic_full_tuple
// CHECK: tensor.gather
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-tensor-gather: no match: no view of the indices
func.func @dynamic_full_tuple(%s: tensor<4x5xf32>, %i: tensor<?x2xi32>) -> tensor<?xf32> {
  %0 = tensor.gather %s[%i] gather_dims([0, 1]) : (tensor<4x5xf32>, tensor<?x2xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
