// --gmx-canonicalize on index values the user computed: index arithmetic
// the user wrote is the index, not a linearisation to undo
// (raise-linearised-indices), and a broadcast of a constant index is
// folded into the gmx op's constant indices (simplify-indices).
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
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}{{\[}}[1], [3]]]> : tensor<1x2x1xi32>
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1
// CHECK: %[[T:.*]] = tensor.concat dim(2) %[[I]], %[[C]]
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
// raise-linearised-indices: the column an arange broadcast against the rows
// (`i[:, None] * 4 + torch.arange(4)` on y.reshape(-1), a paged KV cache's
// block rows): the arange is every column, the sum is row i of y, so the
// gather is a row gather of y; no arithmetic left.
// CHECK-LABEL: func.func @user_block_rows
// CHECK-NOT: tosa.mul
// CHECK-NOT: tosa.add
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK-NEXT: return %[[R]]
// TENSOR-LABEL: func.func @user_block_rows
// TENSOR-NOT: tosa.add
// TENSOR: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
func.func @user_block_rows(%y: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %four = "tosa.const"() <{values = dense<4> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %arange = "tosa.const"() <{values = dense<[[0, 1, 2, 3]]> : tensor<1x4xi32>}> : () -> tensor<1x4xi32>
  %s1121 = tosa.const_shape {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s18 = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s8 = tosa.const_shape {values = dense<8> : tensor<1xindex>} : () -> !tosa.shape<1>
  %rows = tosa.mul %i, %four, %shift : (tensor<2x1xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<2x1xi32>
  %flat = tosa.add %rows, %arange : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
  %flat2 = tosa.reshape %flat, %s18 : (tensor<2x4xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
  %values = tosa.reshape %y, %s1121 : (tensor<3x4xf32>, !tosa.shape<3>) -> tensor<1x12x1xf32>
  %g = tosa.gather %values, %flat2 : (tensor<1x12x1xf32>, tensor<1x8xi32>) -> tensor<1x8x1xf32>
  %r = tosa.reshape %g, %s8 : (tensor<1x8x1xf32>, !tosa.shape<1>) -> tensor<8xf32>
  return %r : tensor<8xf32>
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

// -----
// simplify-indices: w[torch.arange(4).expand(2, 4)] as TorchToTosa emits it
// (a tile of the arange, negative-index normalisation, one tosa.gather).
// The index is an iota, but only its broadcast produces the output's 2: it
// stays the index, folded into one constant; no tile, cast or select left.
// CHECK-LABEL: func.func @broadcast_iota_index
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}{{\[}}[0], [1], [2], [3]], {{\[}}[0], [1], [2], [3]]]> : tensor<2x4x1xi32>
// CHECK-NOT: tosa.tile
// CHECK-NOT: tosa.select
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%{{.*}}, %[[C]]) {axes = array<i64: 1>} : (tensor<1x5x3xf32>, tensor<2x4x1xi32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: return %[[G]]
// TENSOR-LABEL: func.func @broadcast_iota_index
// TENSOR-NOT: tosa.tile
// TENSOR: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 1>} : (tensor<1x5x3xf32>, tensor<2x4x1xi32>) -> tensor<2x4x3xf32>
func.func @broadcast_iota_index(%w: tensor<5x3xf32>) -> tensor<2x4x3xf32> {
  %m21 = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s153 = tosa.const_shape {values = dense<[1, 5, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s18 = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s243 = tosa.const_shape {values = dense<[2, 4, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %arange = "tosa.const"() <{values = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : () -> tensor<1x4xi64>
  %zero = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %five = "tosa.const"() <{values = dense<5> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %t = tosa.tile %arange, %m21 : (tensor<1x4xi64>, !tosa.shape<2>) -> tensor<2x4xi64>
  %c = tosa.cast %t : (tensor<2x4xi64>) -> tensor<2x4xi32>
  %wrapped = tosa.add %c, %five : (tensor<2x4xi32>, tensor<1x1xi32>) -> tensor<2x4xi32>
  %negative = tosa.greater %zero, %c : (tensor<1x1xi32>, tensor<2x4xi32>) -> tensor<2x4xi1>
  %n = tosa.select %negative, %wrapped, %c : (tensor<2x4xi1>, tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %values = tosa.reshape %w, %s153 : (tensor<5x3xf32>, !tosa.shape<3>) -> tensor<1x5x3xf32>
  %flat = tosa.reshape %n, %s18 : (tensor<2x4xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
  %g = tosa.gather %values, %flat : (tensor<1x5x3xf32>, tensor<1x8xi32>) -> tensor<1x8x3xf32>
  %r = tosa.reshape %g, %s243 : (tensor<1x8x3xf32>, !tosa.shape<3>) -> tensor<2x4x3xf32>
  return %r : tensor<2x4x3xf32>
}

// -----
// simplify-indices: the same broadcast of a constant that is no iota
// (w[torch.tensor([4, 0, 2]).expand(2, 3)]) is one folded constant too,
// not a broadcast of the constant at run time.
// CHECK-LABEL: func.func @broadcast_constant_index
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}{{\[}}[4], [0], [2]], {{\[}}[4], [0], [2]]]> : tensor<2x3x1xi32>
// CHECK-NOT: linalg.broadcast
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %[[C]]) {axes = array<i64: 1>} : (tensor<1x5x3xf32>, tensor<2x3x1xi32>) -> tensor<2x3x3xf32>
// TENSOR-LABEL: func.func @broadcast_constant_index
// TENSOR-NOT: linalg.broadcast
// TENSOR: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 1>} : (tensor<1x5x3xf32>, tensor<2x3x1xi32>) -> tensor<2x3x3xf32>
func.func @broadcast_constant_index(%w: tensor<5x3xf32>) -> tensor<2x3x3xf32> {
  %m21 = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s153 = tosa.const_shape {values = dense<[1, 5, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s16 = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s233 = tosa.const_shape {values = dense<[2, 3, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k = "tosa.const"() <{values = dense<[[4, 0, 2]]> : tensor<1x3xi64>}> : () -> tensor<1x3xi64>
  %t = tosa.tile %k, %m21 : (tensor<1x3xi64>, !tosa.shape<2>) -> tensor<2x3xi64>
  %c = tosa.cast %t : (tensor<2x3xi64>) -> tensor<2x3xi32>
  %values = tosa.reshape %w, %s153 : (tensor<5x3xf32>, !tosa.shape<3>) -> tensor<1x5x3xf32>
  %flat = tosa.reshape %c, %s16 : (tensor<2x3xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
  %g = tosa.gather %values, %flat : (tensor<1x5x3xf32>, tensor<1x6xi32>) -> tensor<1x6x3xf32>
  %r = tosa.reshape %g, %s233 : (tensor<1x6x3xf32>, !tosa.shape<3>) -> tensor<2x3x3xf32>
  return %r : tensor<2x3x3xf32>
}

// -----
// simplify-indices, negative: a broadcast of the user's own index has no
// values to fold: the small index is broadcast at run time, as gmx needs it
// to produce the output's 2 (no tosa.tile left either way).
// CHECK-LABEL: func.func @broadcast_computed_index
// CHECK-NOT: arith.constant dense
// CHECK: %[[B:.*]] = linalg.broadcast
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %[[B]]) {axes = array<i64: 1>} : (tensor<1x5x3xf32>, tensor<2x3x1xi32>) -> tensor<2x3x3xf32>
// TENSOR-LABEL: func.func @broadcast_computed_index
// TENSOR: linalg.broadcast
// TENSOR: "gmx.gather_multiaxis"
func.func @broadcast_computed_index(%w: tensor<5x3xf32>, %i: tensor<1x3xi32>) -> tensor<2x3x3xf32> {
  %m21 = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s153 = tosa.const_shape {values = dense<[1, 5, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s16 = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s233 = tosa.const_shape {values = dense<[2, 3, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t = tosa.tile %i, %m21 : (tensor<1x3xi32>, !tosa.shape<2>) -> tensor<2x3xi32>
  %values = tosa.reshape %w, %s153 : (tensor<5x3xf32>, !tosa.shape<3>) -> tensor<1x5x3xf32>
  %flat = tosa.reshape %t, %s16 : (tensor<2x3xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
  %g = tosa.gather %values, %flat : (tensor<1x5x3xf32>, tensor<1x6xi32>) -> tensor<1x6x3xf32>
  %r = tosa.reshape %g, %s233 : (tensor<1x6x3xf32>, !tosa.shape<3>) -> tensor<2x3x3xf32>
  return %r : tensor<2x3x3xf32>
}
