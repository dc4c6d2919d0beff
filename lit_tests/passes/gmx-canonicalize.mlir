// The patterns of --gmx-canonicalize, one positive and one negative case each
// (the pattern is named in the comment above each function).
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// The same after tosa-to-tensor, where reshapes are expand/collapse_shape.
// RUN: gmx-opt %s --split-input-file --tosa-to-tensor --gmx-canonicalize | FileCheck %s --check-prefix=TENSOR
// fuse=false: raise-tosa-gather alone (with raise-tensor-gather, the first stage of --gmx-lower-to-llvm).
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize=fuse=false | FileCheck %s --check-prefix=RAISE

// raise-tosa-gather: a bare tosa.gather becomes gmx with axes = [1].
// CHECK-LABEL: func.func @bare_gather
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [2, 4, 1]
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[E]]) {axes = array<i64: 1>} : (tensor<2x5x3xf32>, tensor<2x4x1xi32>) -> tensor<2x4x3xf32>
// CHECK-NOT: tosa.gather
// CHECK: return %[[G]]
func.func @bare_gather(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----
// raise-tosa-gather: dynamic shapes too (torch-mlir's 1x? embedding
// indices), the unit dim added with tensor.dim sizes and the result cast
// back to the op's type where gmx infers a more static one.
// CHECK-LABEL: func.func @dynamic_gather
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[W:.*]] = tensor.dim %arg1, %[[C1]] : tensor<1x?xi32>
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [1, %[[W]], 1] : tensor<1x?xi32> into tensor<1x?x1xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[E]]) {axes = array<i64: 1>} : (tensor<1x10x4xf32>, tensor<1x?x1xi32>) -> tensor<1x?x4xf32>
// CHECK: %[[R:.*]] = tensor.cast %[[G]] : tensor<1x?x4xf32> to tensor<?x?x4xf32>
// CHECK-NOT: tosa.gather
// CHECK: return %[[R]]
func.func @dynamic_gather(%v: tensor<1x10x4xf32>, %i: tensor<1x?xi32>) -> tensor<?x?x4xf32> {
  %0 = tosa.gather %v, %i : (tensor<1x10x4xf32>, tensor<1x?xi32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----
// raise-tosa-gather, negative: only tosa.gather is raised; a reduction
// over the same values stays.
// CHECK-LABEL: func.func @not_a_gather
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: tosa.reduce_sum
func.func @not_a_gather(%v: tensor<2x5x3xf32>) -> tensor<2x1x3xf32> {
  %0 = tosa.reduce_sum %v {axis = 1 : i32} : (tensor<2x5x3xf32>) -> tensor<2x1x3xf32>
  return %0 : tensor<2x1x3xf32>
}

// -----
// fold-input-reshape: a merged input dim read by an iota splits back.
// CHECK-LABEL: func.func @merged_iota_dim
// TENSOR-LABEL: func.func @merged_iota_dim
// TENSOR: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 2>} : (tensor<4x5x6xf32>, tensor<4x5x3xi64>)
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [4, 5, 3]
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 2>} : (tensor<4x5x6xf32>, tensor<4x5x3xi64>) -> tensor<4x5x3xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0, 1], [2]]
// CHECK-NOT: tosa.reshape
// CHECK: return %[[R]]
func.func @merged_iota_dim(%x: tensor<4x5x6xf32>, %i: tensor<20x3xi64>) -> tensor<20x3xf32> {
  %s = tosa.const_shape {values = dense<[20, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %s : (tensor<4x5x6xf32>, !tosa.shape<2>) -> tensor<20x6xf32>
  %0 = "gmx.gather_multiaxis"(%r, %i) {axes = array<i64: 1>} : (tensor<20x6xf32>, tensor<20x3xi64>) -> tensor<20x3xf32>
  return %0 : tensor<20x3xf32>
}

// -----
// fold-input-reshape, negative: [6, 4] -> [4, 6] is no merge of dims.
// CHECK-LABEL: func.func @not_a_merge
// CHECK: %[[R:.*]] = tosa.reshape %arg0
// CHECK: "gmx.gather_multiaxis"(%[[R]], %arg1) {axes = array<i64: 1>} : (tensor<4x6xf32>, tensor<4x2xi64>)
func.func @not_a_merge(%x: tensor<6x4xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  %s = tosa.const_shape {values = dense<[4, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %s : (tensor<6x4xf32>, !tosa.shape<2>) -> tensor<4x6xf32>
  %0 = "gmx.gather_multiaxis"(%r, %i) {axes = array<i64: 1>} : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----
// raise-linearised-indices: torch.gather(x, 1, idx) as TorchToTosa emits it.
// CHECK-LABEL: func.func @linearised
// TENSOR-LABEL: func.func @linearised
// TENSOR-NEXT: "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
// CHECK-NEXT: return %[[G]]
func.func @linearised(%x: tensor<2x3xf32>, %idx: tensor<2x2xi32>) -> tensor<2x2xf32> {
  %iota = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]]]> : tensor<2x2x1xi32>}> : () -> tensor<2x2x1xi32>
  %strides = "tosa.const"() <{values = dense<[[3, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s221 = tosa.const_shape {values = dense<[2, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s161 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s42 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s14 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s22 = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %i3 = tosa.reshape %idx, %s221 : (tensor<2x2xi32>, !tosa.shape<3>) -> tensor<2x2x1xi32>
  %coords = tosa.concat %iota, %i3 {axis = 2 : i32} : (tensor<2x2x1xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
  %values = tosa.reshape %x, %s161 : (tensor<2x3xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
  %rows = tosa.reshape %coords, %s42 : (tensor<2x2x2xi32>, !tosa.shape<2>) -> tensor<4x2xi32>
  %scaled = tosa.mul %rows, %strides, %shift : (tensor<4x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<4x2xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<4x2xi32>) -> tensor<4x1xi32>
  %flat2 = tosa.reshape %flat, %s14 : (tensor<4x1xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
  %g = tosa.gather %values, %flat2 : (tensor<1x6x1xf32>, tensor<1x4xi32>) -> tensor<1x4x1xf32>
  %r = tosa.reshape %g, %s22 : (tensor<1x4x1xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----
// raise-linearised-indices, negative: strides [4, 1] are not those of 2x3 (and
// split-linearised-index: they address no dims of 6 elements).
// CHECK-LABEL: func.func @wrong_strides
// TENSOR-LABEL: func.func @wrong_strides
// TENSOR: tensor.insert_slice
// TENSOR: tosa.reduce_sum
// CHECK: tosa.concat
// CHECK: tosa.mul
// CHECK: tosa.reduce_sum
// CHECK: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 1>} : (tensor<1x6x1xf32>, tensor<1x2x2xi32>) -> tensor<1x2x2xf32>
func.func @wrong_strides(%x: tensor<2x3xf32>, %idx: tensor<2x2xi32>) -> tensor<2x2xf32> {
  %iota = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]]]> : tensor<2x2x1xi32>}> : () -> tensor<2x2x1xi32>
  %strides = "tosa.const"() <{values = dense<[[4, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s221 = tosa.const_shape {values = dense<[2, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s161 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s42 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s14 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s22 = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %i3 = tosa.reshape %idx, %s221 : (tensor<2x2xi32>, !tosa.shape<3>) -> tensor<2x2x1xi32>
  %coords = tosa.concat %iota, %i3 {axis = 2 : i32} : (tensor<2x2x1xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
  %values = tosa.reshape %x, %s161 : (tensor<2x3xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
  %rows = tosa.reshape %coords, %s42 : (tensor<2x2x2xi32>, !tosa.shape<2>) -> tensor<4x2xi32>
  %scaled = tosa.mul %rows, %strides, %shift : (tensor<4x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<4x2xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<4x2xi32>) -> tensor<4x1xi32>
  %flat2 = tosa.reshape %flat, %s14 : (tensor<4x1xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
  %g = tosa.gather %values, %flat2 : (tensor<1x6x1xf32>, tensor<1x4xi32>) -> tensor<1x4x1xf32>
  %r = tosa.reshape %g, %s22 : (tensor<1x4x1xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----
// raise-linearised-indices: x[:, i].reshape(2, 4), the gathered dim merged
// with the one after it by a reshape of the result (fold-result-reshape has
// made the gmx output 1x2x4 first): the linear terms are 2x2x2 tiles, so the
// output space is refined back to 2x2x2 while they are read. One gmx op,
// one collapse of its result.
// CHECK-LABEL: func.func @linearised_merged_result
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1, 2]] output_shape [1, 2, 1]
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 1>} : (tensor<2x3x2xf32>, tensor<1x2x1xi32>) -> tensor<2x2x2xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<2x2x2xf32> into tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
// TENSOR-LABEL: func.func @linearised_merged_result
// TENSOR-NOT: tosa.reduce_sum
// TENSOR: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 1>} : (tensor<2x3x2xf32>, tensor<1x2x1xi32>) -> tensor<2x2x2xf32>
func.func @linearised_merged_result(%x: tensor<2x3x2xf32>, %i: tensor<2xi32>) -> tensor<2x4xf32> {
  %iota0 = "tosa.const"() <{values = dense<[[[[0]]], [[[1]]]]> : tensor<2x1x1x1xi32>}> : () -> tensor<2x1x1x1xi32>
  %iota2 = "tosa.const"() <{values = dense<[[[[0], [1]]]]> : tensor<1x1x2x1xi32>}> : () -> tensor<1x1x2x1xi32>
  %strides = "tosa.const"() <{values = dense<[[6, 2, 1]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s1211 = tosa.const_shape {values = dense<[1, 2, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %m0 = tosa.const_shape {values = dense<[1, 2, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %m1 = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %m2 = tosa.const_shape {values = dense<[2, 2, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s83 = tosa.const_shape {values = dense<[8, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s18 = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s1121 = tosa.const_shape {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s24 = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %i4 = tosa.reshape %i, %s1211 : (tensor<2xi32>, !tosa.shape<4>) -> tensor<1x2x1x1xi32>
  %t0 = tosa.tile %iota0, %m0 : (tensor<2x1x1x1xi32>, !tosa.shape<4>) -> tensor<2x2x2x1xi32>
  %t1 = tosa.tile %i4, %m1 : (tensor<1x2x1x1xi32>, !tosa.shape<4>) -> tensor<2x2x2x1xi32>
  %t2 = tosa.tile %iota2, %m2 : (tensor<1x1x2x1xi32>, !tosa.shape<4>) -> tensor<2x2x2x1xi32>
  %coords = tosa.concat %t0, %t1, %t2 {axis = 3 : i32} : (tensor<2x2x2x1xi32>, tensor<2x2x2x1xi32>, tensor<2x2x2x1xi32>) -> tensor<2x2x2x3xi32>
  %rows = tosa.reshape %coords, %s83 : (tensor<2x2x2x3xi32>, !tosa.shape<2>) -> tensor<8x3xi32>
  %scaled = tosa.mul %rows, %strides, %shift : (tensor<8x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<8x3xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<8x3xi32>) -> tensor<8x1xi32>
  %flat2 = tosa.reshape %flat, %s18 : (tensor<8x1xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
  %values = tosa.reshape %x, %s1121 : (tensor<2x3x2xf32>, !tosa.shape<3>) -> tensor<1x12x1xf32>
  %g = tosa.gather %values, %flat2 : (tensor<1x12x1xf32>, tensor<1x8xi32>) -> tensor<1x8x1xf32>
  %r = tosa.reshape %g, %s24 : (tensor<1x8x1xf32>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----
// raise-linearised-indices, negative: a result merged the same way (here the
// first dim with the gathered one, 4x2), but the iotas read the output's
// dims crosswise (out[a, j, c] = x[c, i[j], a]): gmx cannot permute dims, so
// the pattern declines and the linear index stays in front of the gmx op.
// CHECK-LABEL: func.func @linearised_merged_result_crosswise
// CHECK: tosa.concat
// CHECK: tosa.reduce_sum
// CHECK: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 1>} : (tensor<1x12x1xf32>, tensor<1x4x2xi32>) -> tensor<1x4x2xf32>
// TENSOR-LABEL: func.func @linearised_merged_result_crosswise
// TENSOR: tosa.reduce_sum
// TENSOR: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 1>} : (tensor<1x12x1xf32>, tensor<1x4x2xi32>) -> tensor<1x4x2xf32>
func.func @linearised_merged_result_crosswise(%x: tensor<2x3x2xf32>, %i: tensor<2xi32>) -> tensor<4x2xf32> {
  %iota_a = "tosa.const"() <{values = dense<[[[[0]]], [[[1]]]]> : tensor<2x1x1x1xi32>}> : () -> tensor<2x1x1x1xi32>
  %iota_c = "tosa.const"() <{values = dense<[[[[0], [1]]]]> : tensor<1x1x2x1xi32>}> : () -> tensor<1x1x2x1xi32>
  %strides = "tosa.const"() <{values = dense<[[6, 2, 1]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s1211 = tosa.const_shape {values = dense<[1, 2, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %ma = tosa.const_shape {values = dense<[1, 2, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %m1 = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %mc = tosa.const_shape {values = dense<[2, 2, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s83 = tosa.const_shape {values = dense<[8, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s18 = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s1121 = tosa.const_shape {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s42 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %i4 = tosa.reshape %i, %s1211 : (tensor<2xi32>, !tosa.shape<4>) -> tensor<1x2x1x1xi32>
  %ta = tosa.tile %iota_a, %ma : (tensor<2x1x1x1xi32>, !tosa.shape<4>) -> tensor<2x2x2x1xi32>
  %t1 = tosa.tile %i4, %m1 : (tensor<1x2x1x1xi32>, !tosa.shape<4>) -> tensor<2x2x2x1xi32>
  %tc = tosa.tile %iota_c, %mc : (tensor<1x1x2x1xi32>, !tosa.shape<4>) -> tensor<2x2x2x1xi32>
  %coords = tosa.concat %tc, %t1, %ta {axis = 3 : i32} : (tensor<2x2x2x1xi32>, tensor<2x2x2x1xi32>, tensor<2x2x2x1xi32>) -> tensor<2x2x2x3xi32>
  %rows = tosa.reshape %coords, %s83 : (tensor<2x2x2x3xi32>, !tosa.shape<2>) -> tensor<8x3xi32>
  %scaled = tosa.mul %rows, %strides, %shift : (tensor<8x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<8x3xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<8x3xi32>) -> tensor<8x1xi32>
  %flat2 = tosa.reshape %flat, %s18 : (tensor<8x1xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
  %values = tosa.reshape %x, %s1121 : (tensor<2x3x2xf32>, !tosa.shape<3>) -> tensor<1x12x1xf32>
  %g = tosa.gather %values, %flat2 : (tensor<1x12x1xf32>, tensor<1x8xi32>) -> tensor<1x8x1xf32>
  %r = tosa.reshape %g, %s42 : (tensor<1x8x1xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----
// fold-input-transpose: x[i, :, j] gathers from a transpose; the axes follow it.
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT: tosa.transpose
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<3x1x2xi64>) -> tensor<3x5x1xf32>
func.func @transposed(%x: tensor<4x5x6xf32>, %ij: tensor<3x1x2xi64>) -> tensor<3x1x5xf32> {
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<4x5x6xf32>) -> tensor<4x6x5xf32>
  %0 = "gmx.gather_multiaxis"(%t, %ij) {axes = array<i64: 0, 1>} : (tensor<4x6x5xf32>, tensor<3x1x2xi64>) -> tensor<3x1x5xf32>
  return %0 : tensor<3x1x5xf32>
}

// -----
// fold-input-transpose, negative: the kept dims would come out swapped.
// CHECK-LABEL: func.func @transposed_kept_dims
// CHECK: %[[T:.*]] = tosa.transpose %arg0
// CHECK: "gmx.gather_multiaxis"(%[[T]], %arg1) {axes = array<i64: 2>}
func.func @transposed_kept_dims(%x: tensor<4x5x6xf32>, %i: tensor<1x1x2xi64>) -> tensor<5x4x2xf32> {
  %t = tosa.transpose %x {perms = array<i32: 1, 0, 2>} : (tensor<4x5x6xf32>) -> tensor<5x4x6xf32>
  %0 = "gmx.gather_multiaxis"(%t, %i) {axes = array<i64: 2>} : (tensor<5x4x6xf32>, tensor<1x1x2xi64>) -> tensor<5x4x2xf32>
  return %0 : tensor<5x4x2xf32>
}

// -----
// fold-result-reshape: the reshape of the result splits the index dim.
// CHECK-LABEL: func.func @result_reshape(
// TENSOR-LABEL: func.func @result_reshape(
// TENSOR: "gmx.gather_multiaxis"{{.*}} -> tensor<3x4x8xf32>
// TENSOR-NEXT: return
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<3x4x1xi64>) -> tensor<3x4x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @result_reshape(%w: tensor<1x10x8xf32>, %i: tensor<1x12x1xi64>) -> tensor<3x4x8xf32> {
  %0 = "gmx.gather_multiaxis"(%w, %i) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x12x1xi64>) -> tensor<1x12x8xf32>
  %r = tensor.collapse_shape %0 [[0, 1], [2]] : tensor<1x12x8xf32> into tensor<12x8xf32>
  %s = tensor.expand_shape %r [[0, 1], [2]] output_shape [3, 4, 8] : tensor<12x8xf32> into tensor<3x4x8xf32>
  return %s : tensor<3x4x8xf32>
}

// -----
// fold-result-reshape, negative: the gather result has another use.
// CHECK-LABEL: func.func @result_reshape_shared
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x12x1xi64>) -> tensor<1x12x8xf32>
// CHECK: tensor.collapse_shape %[[G]]
// CHECK: tensor.expand_shape
func.func @result_reshape_shared(%w: tensor<1x10x8xf32>, %i: tensor<1x12x1xi64>) -> (tensor<3x4x8xf32>, tensor<1x12x8xf32>) {
  %0 = "gmx.gather_multiaxis"(%w, %i) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x12x1xi64>) -> tensor<1x12x8xf32>
  %r = tensor.collapse_shape %0 [[0, 1], [2]] : tensor<1x12x8xf32> into tensor<12x8xf32>
  %s = tensor.expand_shape %r [[0, 1], [2]] output_shape [3, 4, 8] : tensor<12x8xf32> into tensor<3x4x8xf32>
  return %s, %0 : tensor<3x4x8xf32>, tensor<1x12x8xf32>
}

// -----
// simplify-indices: cast and negative-index normalisation are gmx's own wrap.
// The narrowing cast (torch-mlir's i64 -> i32 for tosa.gather) is only an
// index: it assumes in-range values, so the map is judged on the values i32
// holds and gmx reads the wide index (2**32 + 1 is an IndexError, as in
// PyTorch eager, not row 1).
// CHECK-LABEL: func.func @normalised(
// CHECK-NOT: tosa.cast
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0>} : (tensor<10x8xf32>, tensor<12x1xi64>) -> tensor<12x8xf32>
// CHECK-NEXT: return %[[G]]
// TENSOR-LABEL: func.func @normalised(
// TENSOR-NOT: tosa.cast
// TENSOR: "gmx.gather_multiaxis"(%arg0, %arg1)
func.func @normalised(%w: tensor<10x8xf32>, %i: tensor<12x1xi64>) -> tensor<12x8xf32> {
  %zero = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %ten = "tosa.const"() <{values = dense<10> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %c = tosa.cast %i : (tensor<12x1xi64>) -> tensor<12x1xi32>
  %a = tosa.add %c, %ten : (tensor<12x1xi32>, tensor<1x1xi32>) -> tensor<12x1xi32>
  %n = tosa.greater %zero, %c : (tensor<1x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi1>
  %s = tosa.select %n, %a, %c : (tensor<12x1xi1>, tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi32>
  %0 = "gmx.gather_multiaxis"(%w, %s) {axes = array<i64: 0>} : (tensor<10x8xf32>, tensor<12x1xi32>) -> tensor<12x8xf32>
  return %0 : tensor<12x8xf32>
}

// -----
// simplify-indices, negative: a narrowing cast used by something else than
// gmx's indices (here returned) is the program's own arithmetic: it stays,
// and the probes outside i32 see its truncation.
// CHECK-LABEL: func.func @narrowed_and_returned(
// CHECK: %[[C:.*]] = tosa.cast %arg1 : (tensor<12x1xi64>) -> tensor<12x1xi32>
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[C]]) {axes = array<i64: 0>} : (tensor<10x8xf32>, tensor<12x1xi32>) -> tensor<12x8xf32>
// CHECK-NEXT: return %[[G]], %[[C]]
// TENSOR-LABEL: func.func @narrowed_and_returned(
// TENSOR: %[[C:.*]] = tosa.cast %arg1
// TENSOR-NEXT: "gmx.gather_multiaxis"(%arg0, %[[C]])
func.func @narrowed_and_returned(%w: tensor<10x8xf32>, %i: tensor<12x1xi64>) -> (tensor<12x8xf32>, tensor<12x1xi32>) {
  %zero = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %ten = "tosa.const"() <{values = dense<10> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %c = tosa.cast %i : (tensor<12x1xi64>) -> tensor<12x1xi32>
  %a = tosa.add %c, %ten : (tensor<12x1xi32>, tensor<1x1xi32>) -> tensor<12x1xi32>
  %n = tosa.greater %zero, %c : (tensor<1x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi1>
  %s = tosa.select %n, %a, %c : (tensor<12x1xi1>, tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi32>
  %0 = "gmx.gather_multiaxis"(%w, %s) {axes = array<i64: 0>} : (tensor<10x8xf32>, tensor<12x1xi32>) -> tensor<12x8xf32>
  return %0, %c : tensor<12x8xf32>, tensor<12x1xi32>
}

// -----
// simplify-indices, negative: adding 9 is not the wrap of a dim of 10.
// CHECK-LABEL: func.func @normalised_wrong_dim
// CHECK: %[[S:.*]] = tosa.select
// CHECK: "gmx.gather_multiaxis"(%arg0, %[[S]])
func.func @normalised_wrong_dim(%w: tensor<10x8xf32>, %i: tensor<12x1xi32>) -> tensor<12x8xf32> {
  %zero = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %nine = "tosa.const"() <{values = dense<9> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %a = tosa.add %i, %nine : (tensor<12x1xi32>, tensor<1x1xi32>) -> tensor<12x1xi32>
  %n = tosa.greater %zero, %i : (tensor<1x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi1>
  %s = tosa.select %n, %a, %i : (tensor<12x1xi1>, tensor<12x1xi32>, tensor<12x1xi32>) -> tensor<12x1xi32>
  %0 = "gmx.gather_multiaxis"(%w, %s) {axes = array<i64: 0>} : (tensor<10x8xf32>, tensor<12x1xi32>) -> tensor<12x8xf32>
  return %0 : tensor<12x8xf32>
}

// -----
// simplify-indices: a tile that only broadcasts is dropped.
// CHECK-LABEL: func.func @broadcast_tile
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<1x3x1xi64>) -> tensor<4x3x6xf32>
// CHECK-NEXT: return %[[G]]
func.func @broadcast_tile(%x: tensor<4x5x6xf32>, %i: tensor<1x3x1xi64>) -> tensor<4x3x6xf32> {
  %m = tosa.const_shape {values = dense<[4, 1, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t = tosa.tile %i, %m : (tensor<1x3x1xi64>, !tosa.shape<3>) -> tensor<4x3x6xi64>
  %0 = "gmx.gather_multiaxis"(%x, %t) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
  return %0 : tensor<4x3x6xf32>
}

// -----
// simplify-indices, negative: a tile that repeats values is kept.
// CHECK-LABEL: func.func @repeating_tile
// CHECK: %[[T:.*]] = tosa.tile %arg1
// CHECK: "gmx.gather_multiaxis"(%arg0, %[[T]])
func.func @repeating_tile(%x: tensor<4x5x6xf32>, %i: tensor<2x3x6xi64>) -> tensor<4x3x6xf32> {
  %m = tosa.const_shape {values = dense<[2, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t = tosa.tile %i, %m : (tensor<2x3x6xi64>, !tosa.shape<3>) -> tensor<4x3x6xi64>
  %0 = "gmx.gather_multiaxis"(%x, %t) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
  return %0 : tensor<4x3x6xf32>
}

// -----
// simplify-indices: iota indices over a whole axis: the identity gather is its input.
// CHECK-LABEL: func.func @identity
// CHECK-NEXT: return %arg0
func.func @identity(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %iota = "tosa.const"() <{values = dense<[[0], [1], [2], [3]]> : tensor<4x1xi32>}> : () -> tensor<4x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %iota) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----
// simplify-indices: iota over part of an axis is a slice of the input.
// CHECK-LABEL: func.func @iota_prefix
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %arg0[0, 0] [2, 3] [1, 1]
// CHECK-NEXT: return %[[S]]
func.func @iota_prefix(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %iota = "tosa.const"() <{values = dense<[[0], [1]]> : tensor<2x1xi32>}> : () -> tensor<2x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %iota) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----
// simplify-indices: an iota with an offset (`arange(T) + 2`, BART's positions)
// is a slice of the input from that offset.
// CHECK-LABEL: func.func @iota_offset
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %arg0[2, 0] [2, 3] [1, 1]
// CHECK-NEXT: return %[[S]]
func.func @iota_offset(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %iota = "tosa.const"() <{values = dense<[[2], [3]]> : tensor<2x1xi32>}> : () -> tensor<2x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %iota) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----
// simplify-indices, negative: an iota running past the axis (3, 4 on size 4)
// or starting below 0 (-1, 0: -1 reads the last row) is no slice: the indices
// stay, and 4 is reported out of bounds at run time.
// CHECK-LABEL: func.func @iota_offset_beyond
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>}
// CHECK-LABEL: func.func @iota_negative_start
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>}
func.func @iota_offset_beyond(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %iota = "tosa.const"() <{values = dense<[[3], [4]]> : tensor<2x1xi32>}> : () -> tensor<2x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %iota) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @iota_negative_start(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %iota = "tosa.const"() <{values = dense<[[-1], [0]]> : tensor<2x1xi32>}> : () -> tensor<2x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %iota) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----
// simplify-indices, negative: constant indices that are no iota stay indices.
// CHECK-LABEL: func.func @constant_indices
// CHECK: %[[C:.*]] = "tosa.const"() <{values = dense<{{\[}}[3], [1]]>
// CHECK: "gmx.gather_multiaxis"(%arg0, %[[C]]) {axes = array<i64: 0>}
func.func @constant_indices(%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = "tosa.const"() <{values = dense<[[3], [1]]> : tensor<2x1xi32>}> : () -> tensor<2x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %c) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----
// raise-linearised-indices: a rank-0 index (index_select with a 0-d tensor,
// as torch-mlir exports it) is read through its reshape to [1].
// CHECK-LABEL: func.func @rank0_index
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 [] output_shape [1, 1] : tensor<i64> into tensor<1x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[E]]) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<1x1xi64>) -> tensor<1x3xf32>
// CHECK-NOT: tosa.reduce_sum
// CHECK: return %[[G]]
// TENSOR-LABEL: func.func @rank0_index
// fuse=false raises the gather alone: axes = [1] on the flattened input,
// the linearised index still in front of it.
// RAISE-LABEL: func.func @rank0_index
// RAISE: tosa.reduce_sum
// RAISE: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 1>} : (tensor<1x12x1xf32>, tensor<1x1x3xi32>) -> tensor<1x1x3xf32>
// RAISE-NOT: tosa.gather
// RAISE: tosa.reshape
// TENSOR: %[[E:.*]] = tensor.expand_shape %arg1 [] output_shape [1, 1] : tensor<i64> into tensor<1x1xi64>
// TENSOR: "gmx.gather_multiaxis"(%arg0, %[[E]]) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<1x1xi64>) -> tensor<1x3xf32>
func.func @rank0_index(%arg0: tensor<4x3xf32>, %arg1: tensor<i64>) -> tensor<1x3xf32> {
  %0 = tosa.const_shape  {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  %1 = tosa.const_shape  {values = dense<1> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.const_shape  {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %3 = tosa.const_shape  {values = dense<[1, 3, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %4 = "tosa.const"() <{values = dense<[[[0], [1], [2]]]> : tensor<1x3x1xi32>}> : () -> tensor<1x3x1xi32>
  %5 = tosa.const_shape  {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %6 = tosa.const_shape  {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %7 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %8 = "tosa.const"() <{values = dense<[[3, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %9 = tosa.reshape %arg1, %0 : (tensor<i64>, !tosa.shape<1>) -> tensor<1xi64>
  %10 = tosa.cast %9 : (tensor<1xi64>) -> tensor<1xi32>
  %11 = tosa.reshape %10, %1 : (tensor<1xi32>, !tosa.shape<2>) -> tensor<1x1xi32>
  %12 = tosa.tile %11, %2 : (tensor<1x1xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
  %13 = tosa.reshape %12, %3 : (tensor<1x3xi32>, !tosa.shape<3>) -> tensor<1x3x1xi32>
  %14 = tosa.concat %13, %4 {axis = 2 : i32} : (tensor<1x3x1xi32>, tensor<1x3x1xi32>) -> tensor<1x3x2xi32>
  %15 = tosa.reshape %arg0, %5 : (tensor<4x3xf32>, !tosa.shape<3>) -> tensor<1x12x1xf32>
  %16 = tosa.reshape %14, %6 : (tensor<1x3x2xi32>, !tosa.shape<2>) -> tensor<3x2xi32>
  %17 = tosa.mul %16, %8, %7 : (tensor<3x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<3x2xi32>
  %18 = tosa.reduce_sum %17 {axis = 1 : i32} : (tensor<3x2xi32>) -> tensor<3x1xi32>
  %19 = tosa.reshape %18, %2 : (tensor<3x1xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
  %20 = tosa.gather %15, %19 : (tensor<1x12x1xf32>, tensor<1x3xi32>) -> tensor<1x3x1xf32>
  %21 = tosa.reshape %20, %2 : (tensor<1x3x1xf32>, !tosa.shape<2>) -> tensor<1x3xf32>
  return %21 : tensor<1x3xf32>
}

// -----
// fold-result-reshape: views of the result down to rank 0 (a scalar index
// into a rank-1 input) become one collapse with no groups.
// CHECK-LABEL: func.func @rank0_result(
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0>} : (tensor<5xf32>, tensor<1xi32>) -> tensor<1xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %[[G]] [] : tensor<1xf32> into tensor<f32>
// CHECK-NEXT: return %[[R]]
func.func @rank0_result(%x: tensor<5xf32>, %i: tensor<1xi32>) -> tensor<f32> {
  %s = tosa.const_shape  {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<5xf32>, tensor<1xi32>) -> tensor<1xf32>
  %e = tensor.expand_shape %0 [[0, 1, 2]] output_shape [1, 1, 1] : tensor<1xf32> into tensor<1x1x1xf32>
  %r = tosa.reshape %e, %s : (tensor<1x1x1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----
// fold-result-reshape, negative: a rank-0 result needs its one collapse, and
// a result no gmx output refines (5x4 from 4x1x5) keeps its two views.
// CHECK-LABEL: func.func @rank0_result_kept(
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0>} : (tensor<5xf32>, tensor<1xi32>) -> tensor<1xf32>
// CHECK-NEXT: tensor.collapse_shape %[[G]] [] : tensor<1xf32> into tensor<f32>
// CHECK-LABEL: func.func @two_views_kept(
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<4x6x5xf32>, tensor<4x1x1xi64>) -> tensor<4x1x5xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0, 1, 2]] : tensor<4x1x5xf32> into tensor<20xf32>
// CHECK-NEXT: tensor.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [5, 4]
func.func @rank0_result_kept(%x: tensor<5xf32>, %i: tensor<1xi32>) -> tensor<f32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<5xf32>, tensor<1xi32>) -> tensor<1xf32>
  %r = tensor.collapse_shape %0 [] : tensor<1xf32> into tensor<f32>
  return %r : tensor<f32>
}
func.func @two_views_kept(%x: tensor<4x6x5xf32>, %i: tensor<4x1x1xi64>) -> tensor<5x4xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<4x6x5xf32>, tensor<4x1x1xi64>) -> tensor<4x1x5xf32>
  %c = tensor.collapse_shape %0 [[0, 1, 2]] : tensor<4x1x5xf32> into tensor<20xf32>
  %r = tensor.expand_shape %c [[0, 1]] output_shape [5, 4] : tensor<20xf32> into tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// -----
// absorb-floor-modulo: torch-mlir's floor modulo of torch.take_along_dim
// (x: 4x5x6, i: 4x3x6, dim 1) by the axis size 5 is the wrap mode; the wide
// i64 indices are gathered, the cast after the modulo goes with it.
// CHECK-LABEL: func.func @take_along_dim_floor_modulo(
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>, mode = "wrap"} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
// CHECK-NEXT: return %[[G]]
// TENSOR-LABEL: func.func @take_along_dim_floor_modulo(
// TENSOR-NEXT: "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>, mode = "wrap"}
func.func @take_along_dim_floor_modulo(%arg0: tensor<4x5x6xf32>, %arg1: tensor<4x3x6xi64>) -> tensor<4x3x6xf32> {
  %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = "tosa.const"() <{values = dense<5> : tensor<1x1x1xi64>}> : () -> tensor<1x1x1xi64>
  %2 = "tosa.const"() <{values = dense<1> : tensor<1x1x1xi64>}> : () -> tensor<1x1x1xi64>
  %3 = "tosa.const"() <{values = dense<0> : tensor<1x1x1xi64>}> : () -> tensor<1x1x1xi64>
  %4 = tosa.intdiv %arg1, %1 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>) -> tensor<4x3x6xi64>
  %5 = tosa.mul %arg1, %1, %0 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>, tensor<1xi8>) -> tensor<4x3x6xi64>
  %6 = tosa.greater %3, %5 : (tensor<1x1x1xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi1>
  %7 = tosa.mul %4, %1, %0 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>, tensor<1xi8>) -> tensor<4x3x6xi64>
  %8 = tosa.equal %7, %arg1 : (tensor<4x3x6xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi1>
  %9 = tosa.logical_not %8 : (tensor<4x3x6xi1>) -> tensor<4x3x6xi1>
  %10 = tosa.sub %4, %2 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>) -> tensor<4x3x6xi64>
  %11 = tosa.logical_and %6, %9 : (tensor<4x3x6xi1>, tensor<4x3x6xi1>) -> tensor<4x3x6xi1>
  %12 = tosa.select %11, %10, %4 : (tensor<4x3x6xi1>, tensor<4x3x6xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi64>
  %13 = tosa.mul %1, %12, %0 : (tensor<1x1x1xi64>, tensor<4x3x6xi64>, tensor<1xi8>) -> tensor<4x3x6xi64>
  %14 = tosa.sub %arg1, %13 : (tensor<4x3x6xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi64>
  %15 = tosa.cast %14 : (tensor<4x3x6xi64>) -> tensor<4x3x6xi32>
  %16 = "gmx.gather_multiaxis"(%arg0, %15) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi32>) -> tensor<4x3x6xf32>
  return %16 : tensor<4x3x6xf32>
}

// -----
// absorb-floor-modulo, negative: a truncating remainder (torch.fmod,
// i - intdiv(i, 5) * 5) keeps the sign of a negative index: not the wrap.
// CHECK-LABEL: func.func @truncating_remainder
// CHECK: %[[R:.*]] = tosa.sub %arg1
// CHECK: "gmx.gather_multiaxis"(%arg0, %[[R]]) {axes = array<i64: 1>} :
func.func @truncating_remainder(%arg0: tensor<4x5x6xf32>, %arg1: tensor<4x3x6xi64>) -> tensor<4x3x6xf32> {
  %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = "tosa.const"() <{values = dense<5> : tensor<1x1x1xi64>}> : () -> tensor<1x1x1xi64>
  %4 = tosa.intdiv %arg1, %1 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>) -> tensor<4x3x6xi64>
  %7 = tosa.mul %4, %1, %0 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>, tensor<1xi8>) -> tensor<4x3x6xi64>
  %14 = tosa.sub %arg1, %7 : (tensor<4x3x6xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi64>
  %16 = "gmx.gather_multiaxis"(%arg0, %14) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
  return %16 : tensor<4x3x6xf32>
}

// -----
// absorb-floor-modulo, negative: a floor modulo by 4 on an axis of 5.
// CHECK-LABEL: func.func @floor_modulo_other_size
// CHECK: %[[R:.*]] = tosa.sub %arg1
// CHECK: "gmx.gather_multiaxis"(%arg0, %[[R]]) {axes = array<i64: 1>} :
func.func @floor_modulo_other_size(%arg0: tensor<4x5x6xf32>, %arg1: tensor<4x3x6xi64>) -> tensor<4x3x6xf32> {
  %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = "tosa.const"() <{values = dense<4> : tensor<1x1x1xi64>}> : () -> tensor<1x1x1xi64>
  %2 = "tosa.const"() <{values = dense<1> : tensor<1x1x1xi64>}> : () -> tensor<1x1x1xi64>
  %3 = "tosa.const"() <{values = dense<0> : tensor<1x1x1xi64>}> : () -> tensor<1x1x1xi64>
  %4 = tosa.intdiv %arg1, %1 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>) -> tensor<4x3x6xi64>
  %5 = tosa.mul %arg1, %1, %0 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>, tensor<1xi8>) -> tensor<4x3x6xi64>
  %6 = tosa.greater %3, %5 : (tensor<1x1x1xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi1>
  %7 = tosa.mul %4, %1, %0 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>, tensor<1xi8>) -> tensor<4x3x6xi64>
  %8 = tosa.equal %7, %arg1 : (tensor<4x3x6xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi1>
  %9 = tosa.logical_not %8 : (tensor<4x3x6xi1>) -> tensor<4x3x6xi1>
  %10 = tosa.sub %4, %2 : (tensor<4x3x6xi64>, tensor<1x1x1xi64>) -> tensor<4x3x6xi64>
  %11 = tosa.logical_and %6, %9 : (tensor<4x3x6xi1>, tensor<4x3x6xi1>) -> tensor<4x3x6xi1>
  %12 = tosa.select %11, %10, %4 : (tensor<4x3x6xi1>, tensor<4x3x6xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi64>
  %13 = tosa.mul %1, %12, %0 : (tensor<1x1x1xi64>, tensor<4x3x6xi64>, tensor<1xi8>) -> tensor<4x3x6xi64>
  %14 = tosa.sub %arg1, %13 : (tensor<4x3x6xi64>, tensor<4x3x6xi64>) -> tensor<4x3x6xi64>
  %16 = "gmx.gather_multiaxis"(%arg0, %14) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
  return %16 : tensor<4x3x6xf32>
}

// -----
// A gather with a mode other than "raise" is left as it is by the patterns
// that rewrite through a spec (here fold-result-reshape): they change index
// values and axis sizes, which only "raise" survives.
// CHECK-LABEL: func.func @mode_kept
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>, fill_value = 0.000000e+00 : f32, mode = "fill"}
// CHECK: tosa.reshape %[[G]]
func.func @mode_kept(%x: tensor<1x10x8xf32>, %i: tensor<1x12x1xi64>) -> tensor<3x4x8xf32> {
  %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>, mode = "fill", fill_value = 0.0 : f32} : (tensor<1x10x8xf32>, tensor<1x12x1xi64>) -> tensor<1x12x8xf32>
  %s = tosa.const_shape {values = dense<[3, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %g, %s : (tensor<1x12x8xf32>, !tosa.shape<3>) -> tensor<3x4x8xf32>
  return %r : tensor<3x4x8xf32>
}

// -----
// fold-input-broadcast: a tile of the input's unit dim is gmx's own broadcasting.
// CHECK-LABEL: func.func @broadcast_input
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<1x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
// CHECK-NEXT: return %[[G]]
func.func @broadcast_input(%x: tensor<1x5x6xf32>, %i: tensor<4x3x6xi64>) -> tensor<4x3x6xf32> {
  %m = tosa.const_shape {values = dense<[4, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t = tosa.tile %x, %m : (tensor<1x5x6xf32>, !tosa.shape<3>) -> tensor<4x5x6xf32>
  %0 = "gmx.gather_multiaxis"(%t, %i) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
  return %0 : tensor<4x3x6xf32>
}

// -----
// fold-input-broadcast, negative: a tile along the gathered axis repeats the
// values the indices read; it stays.
// CHECK-LABEL: func.func @broadcast_input_axis
// CHECK: %[[T:.*]] = tosa.tile %arg0
// CHECK: "gmx.gather_multiaxis"(%[[T]], %arg1) {axes = array<i64: 1>} : (tensor<4x10x6xf32>, tensor<4x3x6xi64>)
func.func @broadcast_input_axis(%x: tensor<4x5x6xf32>, %i: tensor<4x3x6xi64>) -> tensor<4x3x6xf32> {
  %m = tosa.const_shape {values = dense<[1, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t = tosa.tile %x, %m : (tensor<4x5x6xf32>, !tosa.shape<3>) -> tensor<4x10x6xf32>
  %0 = "gmx.gather_multiaxis"(%t, %i) {axes = array<i64: 1>} : (tensor<4x10x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
  return %0 : tensor<4x3x6xf32>
}

// -----
// fold-value-casts: booleans widened for the gather (TOSA has none of i1) and
// narrowed back after it are gathered as they are.
// CHECK-LABEL: func.func @bool_round_trip
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0>} : (tensor<4x5xi1>, tensor<3x1xi64>) -> tensor<3x5xi1>
// CHECK-NEXT: return %[[G]]
func.func @bool_round_trip(%x: tensor<4x5xi1>, %i: tensor<3x1xi64>) -> tensor<3x5xi1> {
  %w = tosa.cast %x : (tensor<4x5xi1>) -> tensor<4x5xi8>
  %g = "gmx.gather_multiaxis"(%w, %i) {axes = array<i64: 0>} : (tensor<4x5xi8>, tensor<3x1xi64>) -> tensor<3x5xi8>
  %r = tosa.cast %g : (tensor<3x5xi8>) -> tensor<3x5xi1>
  return %r : tensor<3x5xi1>
}

// -----
// fold-value-casts, negative: f32 -> f16 loses values; the casts stay.
// CHECK-LABEL: func.func @lossy_round_trip
// CHECK: %[[W:.*]] = tosa.cast %arg0
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %arg1) {axes = array<i64: 0>} : (tensor<4x5xf16>, tensor<3x1xi64>) -> tensor<3x5xf16>
// CHECK: tosa.cast %[[G]]
func.func @lossy_round_trip(%x: tensor<4x5xf32>, %i: tensor<3x1xi64>) -> tensor<3x5xf32> {
  %w = tosa.cast %x : (tensor<4x5xf32>) -> tensor<4x5xf16>
  %g = "gmx.gather_multiaxis"(%w, %i) {axes = array<i64: 0>} : (tensor<4x5xf16>, tensor<3x1xi64>) -> tensor<3x5xf16>
  %r = tosa.cast %g : (tensor<3x5xf16>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
