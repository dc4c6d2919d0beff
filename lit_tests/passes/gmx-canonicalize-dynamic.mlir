// The dynamic-shape patterns of --gmx-canonicalize (passes/raising/dynamic_gathers.py),
// one positive and one negative case each (the pattern is named in the
// comment above each function).
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// The same after tosa-to-tensor, where a reshape with a -1 is a collapse to
// 1-D and an expand by tensor.dim over a constant.
// RUN: gmx-opt %s --split-input-file --tosa-to-tensor --gmx-canonicalize | FileCheck %s --check-prefix=TENSOR

// fold-dynamic-result-reshape (with fold-dynamic-input-views and
// fold-dynamic-index-views): F.embedding(ids, w) with ids 2x? as
// torch_mlir.fx.export_and_import emits it for a torch.export.Dim on the
// sequence becomes one gmx op on the ids (the narrowing cast stays, moved
// under the views).
// CHECK-LABEL: func.func @embedding_dynamic_sequence
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[W:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [1, 10, 8] : tensor<10x8xf32> into tensor<1x10x8xf32>
// CHECK-DAG: %[[C:.*]] = tosa.cast %arg1 : (tensor<2x?xi64>) -> tensor<2x?xi32>
// CHECK: %[[D:.*]] = tensor.dim %[[C]], %[[C1]] : tensor<2x?xi32>
// CHECK: %[[I:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [2, %[[D]], 1] : tensor<2x?xi32> into tensor<2x?x1xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %[[I]]) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<2x?x1xi32>) -> tensor<2x?x8xf32>
// CHECK-NOT: tosa.reshape
// CHECK: return %[[G]]
// TENSOR-LABEL: func.func @embedding_dynamic_sequence
// TENSOR: %[[C:.*]] = tosa.cast %arg1 : (tensor<2x?xi64>) -> tensor<2x?xi32>
// TENSOR: %[[I:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [2, %{{.*}}, 1]
// TENSOR: %[[G:.*]] = "gmx.gather_multiaxis"(%{{.*}}, %[[I]]) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<2x?x1xi32>) -> tensor<2x?x8xf32>
// TENSOR-NOT: tensor.collapse_shape
// TENSOR: return %[[G]]
func.func @embedding_dynamic_sequence(%arg0: tensor<10x8xf32>, %arg1: tensor<2x?xi64>) -> tensor<2x?x8xf32> {
  %0 = tosa.const_shape  {values = dense<[1, 10, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = tosa.const_shape  {values = dense<[1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.const_shape  {values = dense<[2, -1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.reshape %arg0, %0 : (tensor<10x8xf32>, !tosa.shape<3>) -> tensor<1x10x8xf32>
  %4 = tosa.reshape %arg1, %1 : (tensor<2x?xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
  %5 = tosa.cast %4 : (tensor<1x?xi64>) -> tensor<1x?xi32>
  %6 = tosa.gather %3, %5 : (tensor<1x10x8xf32>, tensor<1x?xi32>) -> tensor<1x?x8xf32>
  %7 = tosa.reshape %6, %2 : (tensor<1x?x8xf32>, !tosa.shape<3>) -> tensor<2x?x8xf32>
  return %7 : tensor<2x?x8xf32>
}

// -----
// fold-dynamic-result-reshape: 3-D ids (2x3x?) with a dynamic table (?x8):
// the input gets a unit dim per extra output dim, the axis is the ids' last dim.
// CHECK-LABEL: func.func @embedding_dynamic_table
// CHECK: %[[D0:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8xf32>
// CHECK: %[[W:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1, 2], [3]] output_shape [1, 1, %[[D0]], 8] : tensor<?x8xf32> into tensor<1x1x?x8xf32>
// CHECK: %[[C:.*]] = tosa.cast %arg1 : (tensor<2x3x?xi64>) -> tensor<2x3x?xi32>
// CHECK: %[[I:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, %{{.*}}, 1]
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %[[I]]) {axes = array<i64: 2>} : (tensor<1x1x?x8xf32>, tensor<2x3x?x1xi32>) -> tensor<2x3x?x8xf32>
// CHECK: return %[[G]]
// TENSOR-LABEL: func.func @embedding_dynamic_table
// TENSOR: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 2>} : (tensor<1x1x?x8xf32>, tensor<2x3x?x1xi32>) -> tensor<2x3x?x8xf32>
// TENSOR-NEXT: return
func.func @embedding_dynamic_table(%arg0: tensor<?x8xf32>, %arg1: tensor<2x3x?xi64>) -> tensor<2x3x?x8xf32> {
  %0 = tosa.const_shape  {values = dense<[1, -1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = tosa.const_shape  {values = dense<[1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.const_shape  {values = dense<[2, 3, -1, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %3 = tosa.reshape %arg0, %0 : (tensor<?x8xf32>, !tosa.shape<3>) -> tensor<1x?x8xf32>
  %4 = tosa.reshape %arg1, %1 : (tensor<2x3x?xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
  %5 = tosa.cast %4 : (tensor<1x?xi64>) -> tensor<1x?xi32>
  %6 = tosa.gather %3, %5 : (tensor<1x?x8xf32>, tensor<1x?xi32>) -> tensor<1x?x8xf32>
  %7 = tosa.reshape %6, %2 : (tensor<1x?x8xf32>, !tosa.shape<4>) -> tensor<2x3x?x8xf32>
  return %7 : tensor<2x3x?x8xf32>
}

// -----
// fold-dynamic-result-reshape, negative: the reshape splits the gathered
// dim into two dynamic ones (a tensor.reshape by a shape known at run time
// only): which size is which cannot be proved, the reshape stays.
// CHECK-LABEL: func.func @two_dynamic_dims_in_one_group
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x?x1xi32>) -> tensor<1x?x8xf32>
// CHECK: %[[R:.*]] = tensor.reshape %[[G]](%arg2) : (tensor<1x?x8xf32>, tensor<3xindex>) -> tensor<?x?x8xf32>
// CHECK: return %[[R]]
func.func @two_dynamic_dims_in_one_group(%x: tensor<1x10x8xf32>, %i: tensor<1x?x1xi32>, %shape: tensor<3xindex>) -> tensor<?x?x8xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x?x1xi32>) -> tensor<1x?x8xf32>
  %1 = tensor.reshape %0(%shape) : (tensor<1x?x8xf32>, tensor<3xindex>) -> tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----
// fold-dynamic-result-reshape, negative: the reshape merges the gathered
// dim with a dynamic row dim of the input (one output element per row
// element): no gather of the ids alone gives it, the collapse stays.
// CHECK-LABEL: func.func @row_merged_with_the_axis
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<1x10x?xf32>, tensor<1x5x1xi32>) -> tensor<1x5x?xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<1x5x?xf32> into tensor<1x?xf32>
// CHECK: return %[[R]]
func.func @row_merged_with_the_axis(%x: tensor<1x10x?xf32>, %i: tensor<1x5x1xi32>) -> tensor<1x?xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x10x?xf32>, tensor<1x5x1xi32>) -> tensor<1x5x?xf32>
  %1 = tensor.collapse_shape %0 [[0], [1, 2]] : tensor<1x5x?xf32> into tensor<1x?xf32>
  return %1 : tensor<1x?xf32>
}

// -----
// fold-dynamic-input-views: a -1 reshape of a dynamic gather's input
// becomes one expand_shape whose size is a tensor.dim of the source.
// CHECK-LABEL: func.func @dynamic_input_view
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8xf32>
// CHECK: %[[W:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [1, %[[D]], 8] : tensor<?x8xf32> into tensor<1x?x8xf32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %arg1) {axes = array<i64: 1>} : (tensor<1x?x8xf32>, tensor<1x4x1xi32>) -> tensor<1x4x8xf32>
// CHECK-NOT: tosa.reshape
// CHECK: return %[[G]]
func.func @dynamic_input_view(%w: tensor<?x8xf32>, %i: tensor<1x4x1xi32>) -> tensor<1x4x8xf32> {
  %s = tosa.const_shape  {values = dense<[1, -1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x = tosa.reshape %w, %s : (tensor<?x8xf32>, !tosa.shape<3>) -> tensor<1x?x8xf32>
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x?x8xf32>, tensor<1x4x1xi32>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}

// -----
// fold-dynamic-input-views, negative: ?x? -> 1x?x? by a run-time shape
// (two dynamic dims in one group) has no expand_shape that is certain; the
// view stays.
// CHECK-LABEL: func.func @dynamic_input_view_not_certain
// CHECK: %[[X:.*]] = tensor.reshape %arg0(%arg2)
// CHECK: "gmx.gather_multiaxis"(%[[X]], %arg1) {axes = array<i64: 1>} : (tensor<1x?x?xf32>, tensor<1x4x1xi32>) -> tensor<1x4x?xf32>
func.func @dynamic_input_view_not_certain(%w: tensor<?x?xf32>, %i: tensor<1x4x1xi32>, %shape: tensor<3xindex>) -> tensor<1x4x?xf32> {
  %x = tensor.reshape %w(%shape) : (tensor<?x?xf32>, tensor<3xindex>) -> tensor<1x?x?xf32>
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x?x?xf32>, tensor<1x4x1xi32>) -> tensor<1x4x?xf32>
  return %0 : tensor<1x4x?xf32>
}

// -----
// fold-dynamic-index-views: a cast between views of dynamic indices moves
// onto the source; the views become one.
// CHECK-LABEL: func.func @dynamic_index_views
// CHECK: %[[C:.*]] = tosa.cast %arg1 : (tensor<?xi64>) -> tensor<?xi32>
// CHECK: %[[D:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?xi32>
// CHECK: %[[I:.*]] = tensor.expand_shape %[[C]] {{\[}}[0, 1, 2]] output_shape [1, %[[D]], 1] : tensor<?xi32> into tensor<1x?x1xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x?x1xi32>) -> tensor<1x?x8xf32>
// CHECK: return %[[G]]
func.func @dynamic_index_views(%x: tensor<1x10x8xf32>, %ids: tensor<?xi64>) -> tensor<1x?x8xf32> {
  %s = tosa.const_shape  {values = dense<[1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %ids, %s : (tensor<?xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
  %c = tosa.cast %r : (tensor<1x?xi64>) -> tensor<1x?xi32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %c, %c1 : tensor<1x?xi32>
  %e = tensor.expand_shape %c [[0], [1, 2]] output_shape [1, %d, 1] : tensor<1x?xi32> into tensor<1x?x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %e) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x?x1xi32>) -> tensor<1x?x8xf32>
  return %0 : tensor<1x?x8xf32>
}

// -----
// fold-dynamic-index-views, negative: the ids are reshaped ?x? -> ?x? by a
// shape known at run time only; which dim goes where cannot be proved, so
// the cast does not move under that reshape (the view above it is one already).
// CHECK-LABEL: func.func @dynamic_index_views_not_certain
// CHECK: %[[R:.*]] = tensor.reshape %arg1(%arg2) : (tensor<?x?xi64>, tensor<2xindex>) -> tensor<?x?xi64>
// CHECK: %[[C:.*]] = tosa.cast %[[R]]
// CHECK: tensor.expand_shape %[[C]]
// CHECK: "gmx.gather_multiaxis"
func.func @dynamic_index_views_not_certain(%x: tensor<1x10x8xf32>, %ids: tensor<?x?xi64>, %shape: tensor<2xindex>) -> tensor<?x?x8xf32> {
  %r = tensor.reshape %ids(%shape) : (tensor<?x?xi64>, tensor<2xindex>) -> tensor<?x?xi64>
  %c = tosa.cast %r : (tensor<?x?xi64>) -> tensor<?x?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %c, %c0 : tensor<?x?xi32>
  %d1 = tensor.dim %c, %c1 : tensor<?x?xi32>
  %e = tensor.expand_shape %c [[0], [1, 2]] output_shape [%d0, %d1, 1] : tensor<?x?xi32> into tensor<?x?x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %e) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<?x?x1xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// fold-dynamic-input-views keeps the gather's mode (the axis keeps its
// size, the index values stay): here "fill" with its value.
// CHECK-LABEL: func.func @dynamic_input_view_mode
// CHECK: %[[W:.*]] = tensor.expand_shape %arg0
// CHECK: "gmx.gather_multiaxis"(%[[W]], %arg1) {axes = array<i64: 1>, fill_value = -1.000000e+00 : f32, mode = "fill"} : (tensor<1x?x8xf32>, tensor<1x4x1xi32>) -> tensor<1x4x8xf32>
// CHECK-NOT: tosa.reshape
func.func @dynamic_input_view_mode(%w: tensor<?x8xf32>, %i: tensor<1x4x1xi32>) -> tensor<1x4x8xf32> {
  %s = tosa.const_shape  {values = dense<[1, -1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x = tosa.reshape %w, %s : (tensor<?x8xf32>, !tosa.shape<3>) -> tensor<1x?x8xf32>
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>, mode = "fill", fill_value = -1.0 : f32} : (tensor<1x?x8xf32>, tensor<1x4x1xi32>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}
