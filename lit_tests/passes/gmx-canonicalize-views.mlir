// --gmx-canonicalize where the data is gathered through a view the frontend
// no longer shows: split-linearised-index (the dims a linearisation's strides
// address: data reshaped before indexing, unit dims), fold-constant-input
// (constant data already flattened), and raise-linearised-indices splitting
// a batch dim that a reshape of the result splits. One positive and one
// negative case each, as in gmx-canonicalize.mlir.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// The same after tosa-to-tensor, where reshapes are expand/collapse_shape.
// RUN: gmx-opt %s --split-input-file --tosa-to-tensor --gmx-canonicalize | FileCheck %s --check-prefix=TENSOR

// split-linearised-index: x.reshape(3, 8, 4)[torch.arange(3), j] on x of
// 24x4 (GPT-2's pooled logits): torch-mlir composes the reshape with its
// flattening; the strides [8, 1] say the coordinates address a 3x8 split of
// dim 0. The gmx op reads that view; arange(3) is a non-axis dim.
// CHECK-LABEL: func.func @reshaped_before_indexing
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [3, 8, 4] : tensor<24x4xf32> into tensor<3x8x4xf32>
// CHECK-NEXT: %[[J:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1, 2]] output_shape [3, 1, 1]
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %[[J]]) {axes = array<i64: 1>} : (tensor<3x8x4xf32>, tensor<3x1x1xi64>) -> tensor<3x1x4xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2]] : tensor<3x1x4xf32> into tensor<3x4xf32>
// CHECK-NEXT: return %[[R]]
// TENSOR-LABEL: func.func @reshaped_before_indexing
// TENSOR-NOT: tosa.reduce_sum
// TENSOR: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 1>} : (tensor<3x8x4xf32>, tensor<3x1x1xi64>) -> tensor<3x1x4xf32>
func.func @reshaped_before_indexing(%x: tensor<24x4xf32>, %j: tensor<3xi64>) -> tensor<3x4xf32> {
  %s31 = tosa.const_shape {values = dense<[3, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s1 = tosa.const_shape {values = dense<[1, 24, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s13 = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s34 = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %arange = "tosa.const"() <{values = dense<[0, 1, 2]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %zero = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %eight = "tosa.const"() <{values = dense<8> : tensor<1xi32>}> : () -> tensor<1xi32>
  %strides = "tosa.const"() <{values = dense<[[8, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %i = tosa.reshape %arange, %s31 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<3x1xi32>
  %jc = tosa.cast %j : (tensor<3xi64>) -> tensor<3xi32>
  %jw = tosa.add %jc, %eight : (tensor<3xi32>, tensor<1xi32>) -> tensor<3xi32>
  %neg = tosa.greater %zero, %jc : (tensor<1xi32>, tensor<3xi32>) -> tensor<3xi1>
  %jn = tosa.select %neg, %jw, %jc : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %j2 = tosa.reshape %jn, %s31 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<3x1xi32>
  %ij = tosa.concat %i, %j2 {axis = 1 : i32} : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
  %values = tosa.reshape %x, %s1 : (tensor<24x4xf32>, !tosa.shape<3>) -> tensor<1x24x4xf32>
  %scaled = tosa.mul %ij, %strides, %shift : (tensor<3x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<3x2xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<3x2xi32>) -> tensor<3x1xi32>
  %flat2 = tosa.reshape %flat, %s13 : (tensor<3x1xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
  %g = tosa.gather %values, %flat2 : (tensor<1x24x4xf32>, tensor<1x3xi32>) -> tensor<1x3x4xf32>
  %r = tosa.reshape %g, %s34 : (tensor<1x3x4xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----
// split-linearised-index: torch.gather(x, 1, i) on x of 4x6x1 (cross-entropy
// with T = 1): strides [6, 1, 1], two of them equal, address 4x6x1; the unit
// dim's coordinate is a constant 0.
// CHECK-LABEL: func.func @unit_dim
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<4x6x1xf32>, tensor<4x1x1xi64>) -> tensor<4x1x1xf32>
// CHECK-NEXT: return %[[G]]
// TENSOR-LABEL: func.func @unit_dim
// TENSOR-NOT: tosa.reduce_sum
// TENSOR: "gmx.gather_multiaxis"(%arg0, {{.*}}) {axes = array<i64: 1>} : (tensor<4x6x1xf32>, tensor<4x1x1xi64>) -> tensor<4x1x1xf32>
func.func @unit_dim(%x: tensor<4x6x1xf32>, %idx: tensor<4x1x1xi64>) -> tensor<4x1x1xf32> {
  %s4111 = tosa.const_shape {values = dense<[4, 1, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %iota = "tosa.const"() <{values = dense<[[[[0]]], [[[1]]], [[[2]]], [[[3]]]]> : tensor<4x1x1x1xi32>}> : () -> tensor<4x1x1x1xi32>
  %zeros = "tosa.const"() <{values = dense<0> : tensor<4x1x1x1xi32>}> : () -> tensor<4x1x1x1xi32>
  %s43 = tosa.const_shape {values = dense<[4, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %strides = "tosa.const"() <{values = dense<[[6, 1, 1]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
  %s1241 = tosa.const_shape {values = dense<[1, 24, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s14 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s411 = tosa.const_shape {values = dense<[4, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %c = tosa.cast %idx : (tensor<4x1x1xi64>) -> tensor<4x1x1xi32>
  %c4 = tosa.reshape %c, %s4111 : (tensor<4x1x1xi32>, !tosa.shape<4>) -> tensor<4x1x1x1xi32>
  %coords = tosa.concat %iota, %c4, %zeros {axis = 3 : i32} : (tensor<4x1x1x1xi32>, tensor<4x1x1x1xi32>, tensor<4x1x1x1xi32>) -> tensor<4x1x1x3xi32>
  %rows = tosa.reshape %coords, %s43 : (tensor<4x1x1x3xi32>, !tosa.shape<2>) -> tensor<4x3xi32>
  %scaled = tosa.mul %rows, %strides, %shift : (tensor<4x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<4x3xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<4x3xi32>) -> tensor<4x1xi32>
  %values = tosa.reshape %x, %s1241 : (tensor<4x6x1xf32>, !tosa.shape<3>) -> tensor<1x24x1xf32>
  %flat2 = tosa.reshape %flat, %s14 : (tensor<4x1xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
  %g = tosa.gather %values, %flat2 : (tensor<1x24x1xf32>, tensor<1x4xi32>) -> tensor<1x4x1xf32>
  %r = tosa.reshape %g, %s411 : (tensor<1x4x1xf32>, !tosa.shape<3>) -> tensor<4x1x1xf32>
  return %r : tensor<4x1x1xf32>
}

// -----
// split-linearised-index: every stride 1 (torch.gather(x, 0, i) on x of
// 10x1): torch-mlir leaves the mul out and sums the coordinates as they are.
// (The 7 output rows are laid out along x's unit dim, hence the views.)
// CHECK-LABEL: func.func @unit_strides
// CHECK-NOT: tosa.reduce_sum
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<10x1xf32>, tensor<1x7xi64>) -> tensor<1x7xf32>
// TENSOR-LABEL: func.func @unit_strides
// TENSOR-NOT: tosa.reduce_sum
// TENSOR: "gmx.gather_multiaxis"(%arg0, {{.*}}) {axes = array<i64: 0>} : (tensor<10x1xf32>, tensor<1x7xi64>) -> tensor<1x7xf32>
func.func @unit_strides(%x: tensor<10x1xf32>, %idx: tensor<7x1xi64>) -> tensor<7x1xf32> {
  %s711 = tosa.const_shape {values = dense<[7, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %zeros = "tosa.const"() <{values = dense<0> : tensor<7x1x1xi32>}> : () -> tensor<7x1x1xi32>
  %s1101 = tosa.const_shape {values = dense<[1, 10, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s72 = tosa.const_shape {values = dense<[7, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s17 = tosa.const_shape {values = dense<[1, 7]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s71 = tosa.const_shape {values = dense<[7, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %c = tosa.cast %idx : (tensor<7x1xi64>) -> tensor<7x1xi32>
  %c3 = tosa.reshape %c, %s711 : (tensor<7x1xi32>, !tosa.shape<3>) -> tensor<7x1x1xi32>
  %coords = tosa.concat %c3, %zeros {axis = 2 : i32} : (tensor<7x1x1xi32>, tensor<7x1x1xi32>) -> tensor<7x1x2xi32>
  %values = tosa.reshape %x, %s1101 : (tensor<10x1xf32>, !tosa.shape<3>) -> tensor<1x10x1xf32>
  %rows = tosa.reshape %coords, %s72 : (tensor<7x1x2xi32>, !tosa.shape<2>) -> tensor<7x2xi32>
  %flat = tosa.reduce_sum %rows {axis = 1 : i32} : (tensor<7x2xi32>) -> tensor<7x1xi32>
  %flat2 = tosa.reshape %flat, %s17 : (tensor<7x1xi32>, !tosa.shape<2>) -> tensor<1x7xi32>
  %g = tosa.gather %values, %flat2 : (tensor<1x10x1xf32>, tensor<1x7xi32>) -> tensor<1x7x1xf32>
  %r = tosa.reshape %g, %s71 : (tensor<1x7x1xf32>, !tosa.shape<2>) -> tensor<7x1xf32>
  return %r : tensor<7x1xf32>
}

// -----
// split-linearised-index: ONNX Gather(w, i, axis=0) on a 3x2 initializer:
// torch-mlir's importer has folded the flattening into the constant
// (1x6x1); the strides [2, 1] give it back its 3x2 shape, as a constant.
// CHECK-LABEL: func.func @constant_data
// CHECK-NOT: tosa.reduce_sum
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[}}0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00]]> : tensor<3x2xf32>}>
// CHECK: "gmx.gather_multiaxis"(%[[W]], %{{.*}}) {axes = array<i64: 0>} : (tensor<3x2xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>
// TENSOR-LABEL: func.func @constant_data
// TENSOR-NOT: tosa.reduce_sum
// TENSOR: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 0>} : (tensor<3x2xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>
func.func @constant_data(%i: tensor<2xi32>) -> tensor<2x2xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s21 = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %m12 = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s221 = tosa.const_shape {values = dense<[2, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %cols = "tosa.const"() <{values = dense<[[[0], [1]], [[0], [1]]]> : tensor<2x2x1xi32>}> : () -> tensor<2x2x1xi32>
  %s42 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s14 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s22 = tosa.const_shape {values = dense<2> : tensor<2xindex>} : () -> !tosa.shape<2>
  %w = "tosa.const"() <{values = dense<[[[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]]> : tensor<1x6x1xf32>}> : () -> tensor<1x6x1xf32>
  %strides = "tosa.const"() <{values = dense<[[2, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %i2 = tosa.reshape %i, %s21 : (tensor<2xi32>, !tosa.shape<2>) -> tensor<2x1xi32>
  %it = tosa.tile %i2, %m12 : (tensor<2x1xi32>, !tosa.shape<2>) -> tensor<2x2xi32>
  %i3 = tosa.reshape %it, %s221 : (tensor<2x2xi32>, !tosa.shape<3>) -> tensor<2x2x1xi32>
  %coords = tosa.concat %i3, %cols {axis = 2 : i32} : (tensor<2x2x1xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
  %rows = tosa.reshape %coords, %s42 : (tensor<2x2x2xi32>, !tosa.shape<2>) -> tensor<4x2xi32>
  %scaled = tosa.mul %rows, %strides, %shift : (tensor<4x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<4x2xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<4x2xi32>) -> tensor<4x1xi32>
  %flat2 = tosa.reshape %flat, %s14 : (tensor<4x1xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
  %g = tosa.gather %w, %flat2 : (tensor<1x6x1xf32>, tensor<1x4xi32>) -> tensor<1x4x1xf32>
  %r = tosa.reshape %g, %s22 : (tensor<1x4x1xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----
// split-linearised-index, negative: the user's own arithmetic on an index
// (x[i * 8 + j] on x of 24x4) is no linearisation of coordinate tuples: it
// says nothing about the dims of x, and stays the index of a 24x4 gather.
// CHECK-LABEL: func.func @user_arithmetic
// CHECK: %[[S:.*]] = tosa.add
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<24x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
// TENSOR-LABEL: func.func @user_arithmetic
// TENSOR: tosa.add
// TENSOR: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<24x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
func.func @user_arithmetic(%x: tensor<24x4xf32>, %i: tensor<3xi32>, %j: tensor<3xi32>) -> tensor<3x4xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %eight = "tosa.const"() <{values = dense<8> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s1 = tosa.const_shape {values = dense<[1, 24, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s13 = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s34 = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %i8 = tosa.mul %i, %eight, %shift : (tensor<3xi32>, tensor<1xi32>, tensor<1xi8>) -> tensor<3xi32>
  %sum = tosa.add %i8, %j : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %values = tosa.reshape %x, %s1 : (tensor<24x4xf32>, !tosa.shape<3>) -> tensor<1x24x4xf32>
  %idx = tosa.reshape %sum, %s13 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
  %g = tosa.gather %values, %idx : (tensor<1x24x4xf32>, tensor<1x3xi32>) -> tensor<1x3x4xf32>
  %r = tosa.reshape %g, %s34 : (tensor<1x3x4xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----
// fold-constant-input: ONNX Gather(w, i, axis=0) on a 1-D initializer: the
// constant arrives as 1x6x1, no reshape to look through; it becomes 6.
// CHECK-LABEL: func.func @constant_unit_dims
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<6xf32>}>
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %arg0) {axes = array<i64: 0>} : (tensor<6xf32>, tensor<3xi32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[G]]
// TENSOR-LABEL: func.func @constant_unit_dims
// TENSOR: "gmx.gather_multiaxis"({{.*}}, %arg0) {axes = array<i64: 0>} : (tensor<6xf32>, tensor<3xi32>) -> tensor<3xf32>
func.func @constant_unit_dims(%i: tensor<3xi32>) -> tensor<3xf32> {
  %w = "tosa.const"() <{values = dense<[[[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]]> : tensor<1x6x1xf32>}> : () -> tensor<1x6x1xf32>
  %s13 = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s3 = tosa.const_shape {values = dense<3> : tensor<1xindex>} : () -> !tosa.shape<1>
  %i2 = tosa.reshape %i, %s13 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
  %g = tosa.gather %w, %i2 : (tensor<1x6x1xf32>, tensor<1x3xi32>) -> tensor<1x3x1xf32>
  %r = tosa.reshape %g, %s3 : (tensor<1x3x1xf32>, !tosa.shape<1>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----
// fold-constant-input, negative: a constant with another use is not copied
// in another shape (as upstream's reshape folders): the gather reads it as it is.
// CHECK-LABEL: func.func @constant_shared
// CHECK: %[[W:.*]] = "tosa.const"() <{values = {{.*}} : tensor<1x6x1xf32>}>
// CHECK: "gmx.gather_multiaxis"(%[[W]], %{{.*}}) {axes = array<i64: 1>} : (tensor<1x6x1xf32>, tensor<1x1x3xi32>) -> tensor<1x1x3xf32>
// CHECK-NOT: tosa.const
// TENSOR-LABEL: func.func @constant_shared
// TENSOR: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 1>} : (tensor<1x6x1xf32>, tensor<1x1x3xi32>) -> tensor<1x1x3xf32>
func.func @constant_shared(%i: tensor<3xi32>) -> (tensor<3xf32>, tensor<1x6x1xf32>) {
  %w = "tosa.const"() <{values = dense<[[[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]]> : tensor<1x6x1xf32>}> : () -> tensor<1x6x1xf32>
  %s13 = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s3 = tosa.const_shape {values = dense<3> : tensor<1xindex>} : () -> !tosa.shape<1>
  %i2 = tosa.reshape %i, %s13 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
  %g = tosa.gather %w, %i2 : (tensor<1x6x1xf32>, tensor<1x3xi32>) -> tensor<1x3x1xf32>
  %r = tosa.reshape %g, %s3 : (tensor<1x3x1xf32>, !tosa.shape<1>) -> tensor<3xf32>
  return %r, %w : tensor<3xf32>, tensor<1x6x1xf32>
}

// -----
// raise-linearised-indices: x[:, i].reshape(2, -1) on x of 4x5x8, as
// torch-mlir emits it: the reshape of the result splits the batch, so batch
// row 2 * o0 + o1 is a constant over two output dims; read as row (o0, o1)
// of x viewed as 2x2x5x8, it is two non-axis dims, not a second axis.
// CHECK-LABEL: func.func @batch_split_by_merge
// CHECK-NOT: tensor.concat
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2], [3]] output_shape [2, 2, 5, 8] : tensor<4x5x8xf32> into tensor<2x2x5x8xf32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %{{.*}}) {axes = array<i64: 2>} : (tensor<2x2x5x8xf32>, tensor<1x1x6x1xi64>) -> tensor<2x2x6x8xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2, 3]] : tensor<2x2x6x8xf32> into tensor<2x96xf32>
// CHECK-NEXT: return %[[R]]
// TENSOR-LABEL: func.func @batch_split_by_merge
// TENSOR-NOT: tensor.concat
// TENSOR: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 2>} : (tensor<2x2x5x8xf32>, tensor<1x1x6x1xi64>) -> tensor<2x2x6x8xf32>
func.func @batch_split_by_merge(%arg0: tensor<4x5x8xf32>, %arg1: tensor<6xi64>) -> tensor<2x96xf32> {
  %0 = tosa.const_shape  {values = dense<[6, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %1 = tosa.const_shape  {values = dense<[4, 1, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %2 = tosa.const_shape  {values = dense<[1, 6, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %3 = tosa.const_shape  {values = dense<[1, 1, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %4 = tosa.const_shape  {values = dense<[1, 6, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %5 = tosa.const_shape  {values = dense<[4, 1, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %6 = tosa.const_shape  {values = dense<[4, 6, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %7 = tosa.const_shape  {values = dense<[1, 160, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %8 = tosa.const_shape  {values = dense<[192, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %9 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %10 = tosa.const_shape  {values = dense<[1, 192]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %11 = tosa.const_shape  {values = dense<[2, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %cst = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %12 = "tosa.const"() <{values = dense<0> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %13 = "tosa.const"() <{values = dense<4> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %14 = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %15 = "tosa.const"() <{values = dense<5> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %16 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %17 = "tosa.const"() <{values = dense<8> : tensor<1xi32>}> : () -> tensor<1xi32>
  %18 = "tosa.const"() <{values = dense<[[40, 8, 1]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
  %cst_0 = arith.constant dense<[[[0]], [[1]], [[2]], [[3]]]> : tensor<4x1x1xi64>
  %19 = tosa.reshape %arg1, %0 : (tensor<6xi64>, !tosa.shape<2>) -> tensor<6x1xi64>
  %20 = tosa.cast %cst_0 : (tensor<4x1x1xi64>) -> tensor<4x1x1xi32>
  %21 = tosa.add %20, %13 : (tensor<4x1x1xi32>, tensor<1x1x1xi32>) -> tensor<4x1x1xi32>
  %22 = tosa.greater %12, %20 : (tensor<1x1x1xi32>, tensor<4x1x1xi32>) -> tensor<4x1x1xi1>
  %23 = tosa.select %22, %21, %20 : (tensor<4x1x1xi1>, tensor<4x1x1xi32>, tensor<4x1x1xi32>) -> tensor<4x1x1xi32>
  %24 = tosa.reshape %23, %1 : (tensor<4x1x1xi32>, !tosa.shape<4>) -> tensor<4x1x1x1xi32>
  %25 = tosa.cast %19 : (tensor<6x1xi64>) -> tensor<6x1xi32>
  %26 = tosa.add %25, %15 : (tensor<6x1xi32>, tensor<1x1xi32>) -> tensor<6x1xi32>
  %27 = tosa.greater %14, %25 : (tensor<1x1xi32>, tensor<6x1xi32>) -> tensor<6x1xi1>
  %28 = tosa.select %27, %26, %25 : (tensor<6x1xi1>, tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x1xi32>
  %29 = tosa.cast %cst : (tensor<8xi64>) -> tensor<8xi32>
  %30 = tosa.add %29, %17 : (tensor<8xi32>, tensor<1xi32>) -> tensor<8xi32>
  %31 = tosa.greater %16, %29 : (tensor<1xi32>, tensor<8xi32>) -> tensor<8xi1>
  %32 = tosa.select %31, %30, %29 : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %33 = tosa.reshape %28, %2 : (tensor<6x1xi32>, !tosa.shape<4>) -> tensor<1x6x1x1xi32>
  %34 = tosa.reshape %32, %3 : (tensor<8xi32>, !tosa.shape<4>) -> tensor<1x1x8x1xi32>
  %35 = tosa.tile %24, %4 : (tensor<4x1x1x1xi32>, !tosa.shape<4>) -> tensor<4x6x8x1xi32>
  %36 = tosa.tile %33, %5 : (tensor<1x6x1x1xi32>, !tosa.shape<4>) -> tensor<4x6x8x1xi32>
  %37 = tosa.tile %34, %6 : (tensor<1x1x8x1xi32>, !tosa.shape<4>) -> tensor<4x6x8x1xi32>
  %38 = tosa.concat %35, %36, %37 {axis = 3 : i32} : (tensor<4x6x8x1xi32>, tensor<4x6x8x1xi32>, tensor<4x6x8x1xi32>) -> tensor<4x6x8x3xi32>
  %39 = tosa.reshape %arg0, %7 : (tensor<4x5x8xf32>, !tosa.shape<3>) -> tensor<1x160x1xf32>
  %40 = tosa.reshape %38, %8 : (tensor<4x6x8x3xi32>, !tosa.shape<2>) -> tensor<192x3xi32>
  %41 = tosa.mul %40, %18, %9 : (tensor<192x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<192x3xi32>
  %42 = tosa.reduce_sum %41 {axis = 1 : i32} : (tensor<192x3xi32>) -> tensor<192x1xi32>
  %43 = tosa.reshape %42, %10 : (tensor<192x1xi32>, !tosa.shape<2>) -> tensor<1x192xi32>
  %44 = tosa.gather %39, %43 : (tensor<1x160x1xf32>, tensor<1x192xi32>) -> tensor<1x192x1xf32>
  %45 = tosa.reshape %44, %11 : (tensor<1x192x1xf32>, !tosa.shape<2>) -> tensor<2x96xf32>
  return %45 : tensor<2x96xf32>
}

// -----
// raise-linearised-indices, negative: batch rows [1, 0, 3, 2] do not count
// through the split batch in row-major order: they stay a constant index
// (a second axis).
// CHECK-LABEL: func.func @batch_permuted
// CHECK: tensor.concat
// CHECK: "gmx.gather_multiaxis"(%{{.*}}) {axes = array<i64: 1, 2>} : (tensor<1x4x5x8xf32>, tensor<2x2x6x2xi32>) -> tensor<2x2x6x8xf32>
// TENSOR-LABEL: func.func @batch_permuted
// TENSOR: "gmx.gather_multiaxis"(%{{.*}}) {axes = array<i64: 1, 2>} : (tensor<1x4x5x8xf32>, tensor<2x2x6x2xi32>) -> tensor<2x2x6x8xf32>
func.func @batch_permuted(%arg0: tensor<4x5x8xf32>, %arg1: tensor<6xi64>) -> tensor<2x96xf32> {
  %0 = tosa.const_shape  {values = dense<[6, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %1 = tosa.const_shape  {values = dense<[4, 1, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %2 = tosa.const_shape  {values = dense<[1, 6, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %3 = tosa.const_shape  {values = dense<[1, 1, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %4 = tosa.const_shape  {values = dense<[1, 6, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %5 = tosa.const_shape  {values = dense<[4, 1, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %6 = tosa.const_shape  {values = dense<[4, 6, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %7 = tosa.const_shape  {values = dense<[1, 160, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %8 = tosa.const_shape  {values = dense<[192, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %9 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %10 = tosa.const_shape  {values = dense<[1, 192]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %11 = tosa.const_shape  {values = dense<[2, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %cst = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %12 = "tosa.const"() <{values = dense<0> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %13 = "tosa.const"() <{values = dense<4> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %14 = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %15 = "tosa.const"() <{values = dense<5> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %16 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %17 = "tosa.const"() <{values = dense<8> : tensor<1xi32>}> : () -> tensor<1xi32>
  %18 = "tosa.const"() <{values = dense<[[40, 8, 1]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
  %cst_0 = arith.constant dense<[[[1]], [[0]], [[3]], [[2]]]> : tensor<4x1x1xi64>
  %19 = tosa.reshape %arg1, %0 : (tensor<6xi64>, !tosa.shape<2>) -> tensor<6x1xi64>
  %20 = tosa.cast %cst_0 : (tensor<4x1x1xi64>) -> tensor<4x1x1xi32>
  %21 = tosa.add %20, %13 : (tensor<4x1x1xi32>, tensor<1x1x1xi32>) -> tensor<4x1x1xi32>
  %22 = tosa.greater %12, %20 : (tensor<1x1x1xi32>, tensor<4x1x1xi32>) -> tensor<4x1x1xi1>
  %23 = tosa.select %22, %21, %20 : (tensor<4x1x1xi1>, tensor<4x1x1xi32>, tensor<4x1x1xi32>) -> tensor<4x1x1xi32>
  %24 = tosa.reshape %23, %1 : (tensor<4x1x1xi32>, !tosa.shape<4>) -> tensor<4x1x1x1xi32>
  %25 = tosa.cast %19 : (tensor<6x1xi64>) -> tensor<6x1xi32>
  %26 = tosa.add %25, %15 : (tensor<6x1xi32>, tensor<1x1xi32>) -> tensor<6x1xi32>
  %27 = tosa.greater %14, %25 : (tensor<1x1xi32>, tensor<6x1xi32>) -> tensor<6x1xi1>
  %28 = tosa.select %27, %26, %25 : (tensor<6x1xi1>, tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x1xi32>
  %29 = tosa.cast %cst : (tensor<8xi64>) -> tensor<8xi32>
  %30 = tosa.add %29, %17 : (tensor<8xi32>, tensor<1xi32>) -> tensor<8xi32>
  %31 = tosa.greater %16, %29 : (tensor<1xi32>, tensor<8xi32>) -> tensor<8xi1>
  %32 = tosa.select %31, %30, %29 : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %33 = tosa.reshape %28, %2 : (tensor<6x1xi32>, !tosa.shape<4>) -> tensor<1x6x1x1xi32>
  %34 = tosa.reshape %32, %3 : (tensor<8xi32>, !tosa.shape<4>) -> tensor<1x1x8x1xi32>
  %35 = tosa.tile %24, %4 : (tensor<4x1x1x1xi32>, !tosa.shape<4>) -> tensor<4x6x8x1xi32>
  %36 = tosa.tile %33, %5 : (tensor<1x6x1x1xi32>, !tosa.shape<4>) -> tensor<4x6x8x1xi32>
  %37 = tosa.tile %34, %6 : (tensor<1x1x8x1xi32>, !tosa.shape<4>) -> tensor<4x6x8x1xi32>
  %38 = tosa.concat %35, %36, %37 {axis = 3 : i32} : (tensor<4x6x8x1xi32>, tensor<4x6x8x1xi32>, tensor<4x6x8x1xi32>) -> tensor<4x6x8x3xi32>
  %39 = tosa.reshape %arg0, %7 : (tensor<4x5x8xf32>, !tosa.shape<3>) -> tensor<1x160x1xf32>
  %40 = tosa.reshape %38, %8 : (tensor<4x6x8x3xi32>, !tosa.shape<2>) -> tensor<192x3xi32>
  %41 = tosa.mul %40, %18, %9 : (tensor<192x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<192x3xi32>
  %42 = tosa.reduce_sum %41 {axis = 1 : i32} : (tensor<192x3xi32>) -> tensor<192x1xi32>
  %43 = tosa.reshape %42, %10 : (tensor<192x1xi32>, !tosa.shape<2>) -> tensor<1x192xi32>
  %44 = tosa.gather %39, %43 : (tensor<1x160x1xf32>, tensor<1x192xi32>) -> tensor<1x192x1xf32>
  %45 = tosa.reshape %44, %11 : (tensor<1x192x1xf32>, !tosa.shape<2>) -> tensor<2x96xf32>
  return %45 : tensor<2x96xf32>
}
