// --gmx-canonicalize on index values the user computed: index arithmetic
// the user wrote is the index, not a linearisation to undo
// (raise-linearised-indices).
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// The same after tosa-to-tensor, where reshapes are expand/collapse_shape.
// RUN: gmx-opt %s --split-input-file --tosa-to-tensor --gmx-canonicalize | FileCheck %s --check-prefix=TENSOR

// raise-linearised-indices: x.index_select(0, i + j) as TorchToTosa emits
// it. The concat's parts are the per-dim coordinates (strides 4 and 1);
// the user's `i + j` is the row index, kept in front of one gmx op on x.
// CHECK-LABEL: func.func @user_sum_index
// CHECK: %[[S:.*]] = tosa.add %arg1, %arg2 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1]] output_shape [3, 1]
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[E]]) {axes = array<i64: 0>} : (tensor<10x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[G]]
// TENSOR-LABEL: func.func @user_sum_index
// TENSOR-NOT: tosa.reduce_sum
// TENSOR: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<10x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
func.func @user_sum_index(%x: tensor<10x4xf32>, %i: tensor<3xi32>, %j: tensor<3xi32>) -> tensor<3x4xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s31 = tosa.const_shape {values = dense<[3, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %m14 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s341 = tosa.const_shape {values = dense<[3, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %iota = "tosa.const"() <{values = dense<[[[0], [1], [2], [3]], [[0], [1], [2], [3]], [[0], [1], [2], [3]]]> : tensor<3x4x1xi32>}> : () -> tensor<3x4x1xi32>
  %s1401 = tosa.const_shape {values = dense<[1, 40, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s122 = tosa.const_shape {values = dense<[12, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s112 = tosa.const_shape {values = dense<[1, 12]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s34 = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %strides = "tosa.const"() <{values = dense<[[4, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %sum = tosa.add %i, %j : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %sum2 = tosa.reshape %sum, %s31 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<3x1xi32>
  %rows = tosa.tile %sum2, %m14 : (tensor<3x1xi32>, !tosa.shape<2>) -> tensor<3x4xi32>
  %rows3 = tosa.reshape %rows, %s341 : (tensor<3x4xi32>, !tosa.shape<3>) -> tensor<3x4x1xi32>
  %coords = tosa.concat %rows3, %iota {axis = 2 : i32} : (tensor<3x4x1xi32>, tensor<3x4x1xi32>) -> tensor<3x4x2xi32>
  %values = tosa.reshape %x, %s1401 : (tensor<10x4xf32>, !tosa.shape<3>) -> tensor<1x40x1xf32>
  %flat_coords = tosa.reshape %coords, %s122 : (tensor<3x4x2xi32>, !tosa.shape<2>) -> tensor<12x2xi32>
  %scaled = tosa.mul %flat_coords, %strides, %shift : (tensor<12x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<12x2xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<12x2xi32>) -> tensor<12x1xi32>
  %flat2 = tosa.reshape %flat, %s112 : (tensor<12x1xi32>, !tosa.shape<2>) -> tensor<1x12xi32>
  %g = tosa.gather %values, %flat2 : (tensor<1x40x1xf32>, tensor<1x12xi32>) -> tensor<1x12x1xf32>
  %r = tosa.reshape %g, %s34 : (tensor<1x12x1xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----
// raise-linearised-indices: the user's `i * 4 + c` on y.reshape(-1), with
// `c` a constant within [0, 4): every flat index it makes is valid exactly
// when `i` is a valid row, so it is read as y[i, c] (c becomes the column
// coordinate, the multiply by the row stride disappears).
// CHECK-LABEL: func.func @user_linear_index_known_column
// CHECK-NOT: tosa.mul
// CHECK-NOT: tosa.add
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<1x4xi32>) -> tensor<1x2xf32>
// TENSOR-LABEL: func.func @user_linear_index_known_column
// TENSOR-NOT: tosa.mul
// TENSOR: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<1x4xi32>) -> tensor<1x2xf32>
func.func @user_linear_index_known_column(%y: tensor<3x4xf32>, %i: tensor<1x2xi32>) -> tensor<2xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %four = "tosa.const"() <{values = dense<4> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %c = "tosa.const"() <{values = dense<[[1, 3]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %s1121 = tosa.const_shape {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<2> : tensor<1xindex>} : () -> !tosa.shape<1>
  %rows = tosa.mul %i, %four, %shift : (tensor<1x2xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x2xi32>
  %flat = tosa.add %rows, %c : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<1x2xi32>
  %values = tosa.reshape %y, %s1121 : (tensor<3x4xf32>, !tosa.shape<3>) -> tensor<1x12x1xf32>
  %g = tosa.gather %values, %flat : (tensor<1x12x1xf32>, tensor<1x2xi32>) -> tensor<1x2x1xf32>
  %r = tosa.reshape %g, %s2 : (tensor<1x2x1xf32>, !tosa.shape<1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----
// raise-linearised-indices, negative: the same `i * 4 + j` with the user's
// own `j`: j = 5 is a valid flat index of y.reshape(-1) but no column of y,
// so the sum is not split; the gather stays one gmx op on the flattened y,
// the user's arithmetic its index.
// CHECK-LABEL: func.func @user_linear_index
// CHECK: %[[M:.*]] = tosa.mul %arg1
// CHECK: %[[S:.*]] = tosa.add %[[M]], %arg2
// CHECK: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: {{[0-9]}}>} : (tensor<{{(1x)?}}12x{{.*}}xf32>,
// TENSOR-LABEL: func.func @user_linear_index
// TENSOR: tosa.add
// TENSOR: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: {{[0-9]}}>} : (tensor<{{(1x)?}}12x{{.*}}xf32>,
func.func @user_linear_index(%y: tensor<3x4xf32>, %i: tensor<1x2xi32>, %j: tensor<1x2xi32>) -> tensor<2xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %four = "tosa.const"() <{values = dense<4> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %s1121 = tosa.const_shape {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<2> : tensor<1xindex>} : () -> !tosa.shape<1>
  %rows = tosa.mul %i, %four, %shift : (tensor<1x2xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x2xi32>
  %flat = tosa.add %rows, %j : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<1x2xi32>
  %values = tosa.reshape %y, %s1121 : (tensor<3x4xf32>, !tosa.shape<3>) -> tensor<1x12x1xf32>
  %g = tosa.gather %values, %flat : (tensor<1x12x1xf32>, tensor<1x2xi32>) -> tensor<1x2x1xf32>
  %r = tosa.reshape %g, %s2 : (tensor<1x2x1xf32>, !tosa.shape<1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----
// raise-linearised-indices, negative: `x[i * 4 + j]` on a 1-D x of 12 is
// no linearisation at all (x was never reshaped): one gmx op on x with
// axes = [0], the user's arithmetic its index.
// CHECK-LABEL: func.func @user_linear_index_1d
// CHECK: %[[M:.*]] = tosa.mul %arg1
// CHECK: %[[S:.*]] = tosa.add %[[M]], %arg2
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<12xf32>, tensor<2xi32>) -> tensor<2xf32>
// TENSOR-LABEL: func.func @user_linear_index_1d
// TENSOR: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<12xf32>, tensor<2xi32>) -> tensor<2xf32>
func.func @user_linear_index_1d(%x: tensor<12xf32>, %i: tensor<1x2xi32>, %j: tensor<1x2xi32>) -> tensor<2xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %four = "tosa.const"() <{values = dense<4> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %s1121 = tosa.const_shape {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<2> : tensor<1xindex>} : () -> !tosa.shape<1>
  %rows = tosa.mul %i, %four, %shift : (tensor<1x2xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x2xi32>
  %flat = tosa.add %rows, %j : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<1x2xi32>
  %values = tosa.reshape %x, %s1121 : (tensor<12xf32>, !tosa.shape<3>) -> tensor<1x12x1xf32>
  %g = tosa.gather %values, %flat : (tensor<1x12x1xf32>, tensor<1x2xi32>) -> tensor<1x2x1xf32>
  %r = tosa.reshape %g, %s2 : (tensor<1x2x1xf32>, !tosa.shape<1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
