// Gathers of real programs that --gmx-canonicalize got wrong, each reduced to
// the smallest program torch-mlir (TOSA, linalg-on-tensors) or JAX (StableHLO)
// exports for it; the pattern is named in the comment above each function,
// with a positive and a negative case.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s

// raise-linearised-indices: Funnel's relative shift, torch.gather(pe, 0,
// arange(3, -1, -1)[:, None].expand(4, 2)): the constant index, peeled once,
// is read again from its compacted values (it crashed: "cannot reshape").
// CHECK-LABEL: func.func @funnel_relative_shift
// CHECK: %[[I:.*]] = arith.constant dense<{{\[}}[3], [2], [1], [0]]> : tensor<4x1xi32>
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0>} : (tensor<4x2xf32>, tensor<4x1xi32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[G]]
func.func @funnel_relative_shift(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = tosa.const_shape  {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %1 = tosa.const_shape  {values = dense<[4, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %2 = "tosa.const"() <{values = dense<[[[0], [1]], [[0], [1]], [[0], [1]], [[0], [1]]]> : tensor<4x2x1xi32>}> : () -> tensor<4x2x1xi32>
    %3 = tosa.const_shape  {values = dense<[1, 8, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %4 = tosa.const_shape  {values = dense<[8, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %5 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %6 = tosa.const_shape  {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %7 = tosa.const_shape  {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = "tosa.const"() <{values = dense<[[3], [2], [1], [0]]> : tensor<4x1xi64>}> : () -> tensor<4x1xi64>
    %9 = "tosa.const"() <{values = dense<[[2, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
    %10 = tosa.tile %8, %0 : (tensor<4x1xi64>, !tosa.shape<2>) -> tensor<4x2xi64>
    %11 = tosa.cast %10 : (tensor<4x2xi64>) -> tensor<4x2xi32>
    %12 = tosa.reshape %11, %1 : (tensor<4x2xi32>, !tosa.shape<3>) -> tensor<4x2x1xi32>
    %13 = tosa.concat %12, %2 {axis = 2 : i32} : (tensor<4x2x1xi32>, tensor<4x2x1xi32>) -> tensor<4x2x2xi32>
    %14 = tosa.reshape %arg0, %3 : (tensor<4x2xf32>, !tosa.shape<3>) -> tensor<1x8x1xf32>
    %15 = tosa.reshape %13, %4 : (tensor<4x2x2xi32>, !tosa.shape<2>) -> tensor<8x2xi32>
    %16 = tosa.mul %15, %9, %5 : (tensor<8x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<8x2xi32>
    %17 = tosa.reduce_sum %16 {axis = 1 : i32} : (tensor<8x2xi32>) -> tensor<8x1xi32>
    %18 = tosa.reshape %17, %6 : (tensor<8x1xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
    %19 = tosa.gather %14, %18 : (tensor<1x8x1xf32>, tensor<1x8xi32>) -> tensor<1x8x1xf32>
    %20 = tosa.reshape %19, %7 : (tensor<1x8x1xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
    return %20 : tensor<4x2xf32>
  }

// -----
// raise-linearised-indices, negative: a constant index that differs per column
// is not compacted; it stays whole.
// CHECK-LABEL: func.func @constant_index_varying_per_column
// CHECK: %[[I:.*]] = arith.constant dense<{{\[}}[3, 0], [2, 1], [1, 2], [0, 3]]> : tensor<4x2xi32>
// CHECK-NEXT: "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0>} : (tensor<4x2xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
func.func @constant_index_varying_per_column(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = "tosa.const"() <{values = dense<[[3, 0], [2, 1], [1, 2], [0, 3]]> : tensor<4x2xi64>}> : () -> tensor<4x2xi64>
    %1 = tosa.const_shape  {values = dense<[4, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %2 = "tosa.const"() <{values = dense<[[[0], [1]], [[0], [1]], [[0], [1]], [[0], [1]]]> : tensor<4x2x1xi32>}> : () -> tensor<4x2x1xi32>
    %3 = tosa.const_shape  {values = dense<[1, 8, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %4 = tosa.const_shape  {values = dense<[8, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %5 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %6 = tosa.const_shape  {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %7 = tosa.const_shape  {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = "tosa.const"() <{values = dense<[[2, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
    %9 = tosa.cast %0 : (tensor<4x2xi64>) -> tensor<4x2xi32>
    %10 = tosa.reshape %9, %1 : (tensor<4x2xi32>, !tosa.shape<3>) -> tensor<4x2x1xi32>
    %11 = tosa.concat %10, %2 {axis = 2 : i32} : (tensor<4x2x1xi32>, tensor<4x2x1xi32>) -> tensor<4x2x2xi32>
    %12 = tosa.reshape %arg0, %3 : (tensor<4x2xf32>, !tosa.shape<3>) -> tensor<1x8x1xf32>
    %13 = tosa.reshape %11, %4 : (tensor<4x2x2xi32>, !tosa.shape<2>) -> tensor<8x2xi32>
    %14 = tosa.mul %13, %8, %5 : (tensor<8x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<8x2xi32>
    %15 = tosa.reduce_sum %14 {axis = 1 : i32} : (tensor<8x2xi32>) -> tensor<8x1xi32>
    %16 = tosa.reshape %15, %6 : (tensor<8x1xi32>, !tosa.shape<2>) -> tensor<1x8xi32>
    %17 = tosa.gather %12, %16 : (tensor<1x8x1xf32>, tensor<1x8xi32>) -> tensor<1x8x1xf32>
    %18 = tosa.reshape %17, %7 : (tensor<1x8x1xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
    return %18 : tensor<4x2xf32>
  }

// -----
// raise-linearised-indices then fold-result-reshape: DLRM's interaction,
// z[:, tensor([1, 2, 2]), tensor([0, 0, 1])]: the constant coordinate tuples
// are one constant, recognised as unchanged (the rewrite did not converge).
// CHECK-LABEL: func.func @dlrm_constant_index_lists
// CHECK: %[[I:.*]] = arith.constant dense<{{\[\[\[}}1, 0, 2, 0, 2, 1]]]> : tensor<1x1x6xi32>
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 1, 2>} : (tensor<2x3x3xf32>, tensor<1x1x6xi32>) -> tensor<2x1x3xf32>
// CHECK-NEXT: tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<2x1x3xf32> into tensor<2x3xf32>
// CHECK-NOT: tosa.
func.func @dlrm_constant_index_lists(%arg0: tensor<2x3x3xf32>) -> tensor<2x3xf32> {
    %0 = tosa.const_shape  {values = dense<[2, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %1 = tosa.const_shape  {values = dense<[1, 3, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %2 = tosa.const_shape  {values = dense<[1, 18, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %3 = tosa.const_shape  {values = dense<[6, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %5 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %6 = tosa.const_shape  {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %cst = arith.constant dense<[[0], [1]]> : tensor<2x1xi64>
    %cst_0 = arith.constant dense<[1, 2, 2]> : tensor<3xi64>
    %cst_1 = arith.constant dense<[0, 0, 1]> : tensor<3xi64>
    %7 = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
    %8 = "tosa.const"() <{values = dense<2> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
    %9 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %10 = "tosa.const"() <{values = dense<3> : tensor<1xi32>}> : () -> tensor<1xi32>
    %11 = "tosa.const"() <{values = dense<[[9, 3, 1]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
    %12 = tosa.cast %cst : (tensor<2x1xi64>) -> tensor<2x1xi32>
    %13 = tosa.add %12, %8 : (tensor<2x1xi32>, tensor<1x1xi32>) -> tensor<2x1xi32>
    %14 = tosa.greater %7, %12 : (tensor<1x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %15 = tosa.select %14, %13, %12 : (tensor<2x1xi1>, tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %16 = tosa.reshape %15, %0 : (tensor<2x1xi32>, !tosa.shape<3>) -> tensor<2x1x1xi32>
    %17 = tosa.cast %cst_0 : (tensor<3xi64>) -> tensor<3xi32>
    %18 = tosa.add %17, %10 : (tensor<3xi32>, tensor<1xi32>) -> tensor<3xi32>
    %19 = tosa.greater %9, %17 : (tensor<1xi32>, tensor<3xi32>) -> tensor<3xi1>
    %20 = tosa.select %19, %18, %17 : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %21 = tosa.cast %cst_1 : (tensor<3xi64>) -> tensor<3xi32>
    %22 = tosa.add %21, %10 : (tensor<3xi32>, tensor<1xi32>) -> tensor<3xi32>
    %23 = tosa.greater %9, %21 : (tensor<1xi32>, tensor<3xi32>) -> tensor<3xi1>
    %24 = tosa.select %23, %22, %21 : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %25 = tosa.reshape %20, %1 : (tensor<3xi32>, !tosa.shape<3>) -> tensor<1x3x1xi32>
    %26 = tosa.reshape %24, %1 : (tensor<3xi32>, !tosa.shape<3>) -> tensor<1x3x1xi32>
    %27 = tosa.tile %16, %1 : (tensor<2x1x1xi32>, !tosa.shape<3>) -> tensor<2x3x1xi32>
    %28 = tosa.tile %25, %0 : (tensor<1x3x1xi32>, !tosa.shape<3>) -> tensor<2x3x1xi32>
    %29 = tosa.tile %26, %0 : (tensor<1x3x1xi32>, !tosa.shape<3>) -> tensor<2x3x1xi32>
    %30 = tosa.concat %27, %28, %29 {axis = 2 : i32} : (tensor<2x3x1xi32>, tensor<2x3x1xi32>, tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
    %31 = tosa.reshape %arg0, %2 : (tensor<2x3x3xf32>, !tosa.shape<3>) -> tensor<1x18x1xf32>
    %32 = tosa.reshape %30, %3 : (tensor<2x3x3xi32>, !tosa.shape<2>) -> tensor<6x3xi32>
    %33 = tosa.mul %32, %11, %4 : (tensor<6x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<6x3xi32>
    %34 = tosa.reduce_sum %33 {axis = 1 : i32} : (tensor<6x3xi32>) -> tensor<6x1xi32>
    %35 = tosa.reshape %34, %5 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
    %36 = tosa.gather %31, %35 : (tensor<1x18x1xf32>, tensor<1x6xi32>) -> tensor<1x6x1xf32>
    %37 = tosa.reshape %36, %6 : (tensor<1x6x1xf32>, !tosa.shape<2>) -> tensor<2x3xf32>
    return %37 : tensor<2x3xf32>
  }

// -----
// raise-linearised-indices, negative: one list is a tensor of the program, so
// the tuples are a concat of it and the constant, not one constant.
// CHECK-LABEL: func.func @index_list_and_tensor
// CHECK: tensor.concat
// CHECK: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 1, 2>} : (tensor<2x3x3xf32>, tensor<1x1x6xi32>) -> tensor<2x1x3xf32>
func.func @index_list_and_tensor(%arg0: tensor<2x3x3xf32>, %arg1: tensor<3xi64>) -> tensor<2x3xf32> {
    %0 = tosa.const_shape  {values = dense<[2, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %1 = tosa.const_shape  {values = dense<[1, 3, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %2 = tosa.const_shape  {values = dense<[1, 18, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %3 = tosa.const_shape  {values = dense<[6, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %5 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %6 = tosa.const_shape  {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %cst = arith.constant dense<[[0], [1]]> : tensor<2x1xi64>
    %cst_0 = arith.constant dense<[0, 0, 1]> : tensor<3xi64>
    %7 = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
    %8 = "tosa.const"() <{values = dense<2> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
    %9 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %10 = "tosa.const"() <{values = dense<3> : tensor<1xi32>}> : () -> tensor<1xi32>
    %11 = "tosa.const"() <{values = dense<[[9, 3, 1]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
    %12 = tosa.cast %cst : (tensor<2x1xi64>) -> tensor<2x1xi32>
    %13 = tosa.add %12, %8 : (tensor<2x1xi32>, tensor<1x1xi32>) -> tensor<2x1xi32>
    %14 = tosa.greater %7, %12 : (tensor<1x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
    %15 = tosa.select %14, %13, %12 : (tensor<2x1xi1>, tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %16 = tosa.reshape %15, %0 : (tensor<2x1xi32>, !tosa.shape<3>) -> tensor<2x1x1xi32>
    %17 = tosa.cast %arg1 : (tensor<3xi64>) -> tensor<3xi32>
    %18 = tosa.add %17, %10 : (tensor<3xi32>, tensor<1xi32>) -> tensor<3xi32>
    %19 = tosa.greater %9, %17 : (tensor<1xi32>, tensor<3xi32>) -> tensor<3xi1>
    %20 = tosa.select %19, %18, %17 : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %21 = tosa.cast %cst_0 : (tensor<3xi64>) -> tensor<3xi32>
    %22 = tosa.add %21, %10 : (tensor<3xi32>, tensor<1xi32>) -> tensor<3xi32>
    %23 = tosa.greater %9, %21 : (tensor<1xi32>, tensor<3xi32>) -> tensor<3xi1>
    %24 = tosa.select %23, %22, %21 : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %25 = tosa.reshape %20, %1 : (tensor<3xi32>, !tosa.shape<3>) -> tensor<1x3x1xi32>
    %26 = tosa.reshape %24, %1 : (tensor<3xi32>, !tosa.shape<3>) -> tensor<1x3x1xi32>
    %27 = tosa.tile %16, %1 : (tensor<2x1x1xi32>, !tosa.shape<3>) -> tensor<2x3x1xi32>
    %28 = tosa.tile %25, %0 : (tensor<1x3x1xi32>, !tosa.shape<3>) -> tensor<2x3x1xi32>
    %29 = tosa.tile %26, %0 : (tensor<1x3x1xi32>, !tosa.shape<3>) -> tensor<2x3x1xi32>
    %30 = tosa.concat %27, %28, %29 {axis = 2 : i32} : (tensor<2x3x1xi32>, tensor<2x3x1xi32>, tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
    %31 = tosa.reshape %arg0, %2 : (tensor<2x3x3xf32>, !tosa.shape<3>) -> tensor<1x18x1xf32>
    %32 = tosa.reshape %30, %3 : (tensor<2x3x3xi32>, !tosa.shape<2>) -> tensor<6x3xi32>
    %33 = tosa.mul %32, %11, %4 : (tensor<6x3xi32>, tensor<1x3xi32>, tensor<1xi8>) -> tensor<6x3xi32>
    %34 = tosa.reduce_sum %33 {axis = 1 : i32} : (tensor<6x3xi32>) -> tensor<6x1xi32>
    %35 = tosa.reshape %34, %5 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
    %36 = tosa.gather %31, %35 : (tensor<1x18x1xf32>, tensor<1x6xi32>) -> tensor<1x6x1xf32>
    %37 = tosa.reshape %36, %6 : (tensor<1x6x1xf32>, !tosa.shape<2>) -> tensor<2x3xf32>
    return %37 : tensor<2x3xf32>
  }

// -----
// split-linearised-index: Big Bird's block gather, torch.gather(x.view(2, 2, 4, 2),
// 2, zeros(2, 2, 3)[..., None].expand(...)): the constant index peels to
// iotas and a zero; one stays the index that produces the gathered dim, no
// linearisation is left in front.
// CHECK-LABEL: func.func @big_bird_block_view
// CHECK: %[[V:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 4, 2]
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[V]][0, 0, 0, 0] [2, 2, 1, 2] [1, 1, 1, 1]
// CHECK-NEXT: "gmx.gather_multiaxis"(%[[S]], %{{.*}}) {axes = array<i64: 3>} : (tensor<2x2x1x2xf32>, tensor<1x1x3x2xi32>) -> tensor<2x2x3x2xf32>
// CHECK-NOT: tosa.
func.func @big_bird_block_view(%arg0: tensor<2x8x2xf32>) -> tensor<2x2x3x2xf32> {
    %0 = "tosa.const"() <{values = dense<[[[[[0], [0]], [[0], [0]], [[0], [0]]], [[[0], [0]], [[0], [0]], [[0], [0]]]], [[[[1], [1]], [[1], [1]], [[1], [1]]], [[[1], [1]], [[1], [1]], [[1], [1]]]]]> : tensor<2x2x3x2x1xi32>}> : () -> tensor<2x2x3x2x1xi32>
    %1 = "tosa.const"() <{values = dense<[[[[[0], [0]], [[0], [0]], [[0], [0]]], [[[1], [1]], [[1], [1]], [[1], [1]]]], [[[[0], [0]], [[0], [0]], [[0], [0]]], [[[1], [1]], [[1], [1]], [[1], [1]]]]]> : tensor<2x2x3x2x1xi32>}> : () -> tensor<2x2x3x2x1xi32>
    %2 = "tosa.const"() <{values = dense<[[[[[0], [1]], [[0], [1]], [[0], [1]]], [[[0], [1]], [[0], [1]], [[0], [1]]]], [[[[0], [1]], [[0], [1]], [[0], [1]]], [[[0], [1]], [[0], [1]], [[0], [1]]]]]> : tensor<2x2x3x2x1xi32>}> : () -> tensor<2x2x3x2x1xi32>
    %3 = tosa.const_shape  {values = dense<[1, 32, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %4 = tosa.const_shape  {values = dense<[24, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %5 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %6 = tosa.const_shape  {values = dense<[1, 24]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %7 = tosa.const_shape  {values = dense<[2, 2, 3, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %8 = "tosa.const"() <{values = dense<0> : tensor<2x2x3x2x1xi32>}> : () -> tensor<2x2x3x2x1xi32>
    %9 = "tosa.const"() <{values = dense<[[16, 8, 2, 1]]> : tensor<1x4xi32>}> : () -> tensor<1x4xi32>
    %10 = tosa.concat %0, %1, %8, %2 {axis = 4 : i32} : (tensor<2x2x3x2x1xi32>, tensor<2x2x3x2x1xi32>, tensor<2x2x3x2x1xi32>, tensor<2x2x3x2x1xi32>) -> tensor<2x2x3x2x4xi32>
    %11 = tosa.reshape %arg0, %3 : (tensor<2x8x2xf32>, !tosa.shape<3>) -> tensor<1x32x1xf32>
    %12 = tosa.reshape %10, %4 : (tensor<2x2x3x2x4xi32>, !tosa.shape<2>) -> tensor<24x4xi32>
    %13 = tosa.mul %12, %9, %5 : (tensor<24x4xi32>, tensor<1x4xi32>, tensor<1xi8>) -> tensor<24x4xi32>
    %14 = tosa.reduce_sum %13 {axis = 1 : i32} : (tensor<24x4xi32>) -> tensor<24x1xi32>
    %15 = tosa.reshape %14, %6 : (tensor<24x1xi32>, !tosa.shape<2>) -> tensor<1x24xi32>
    %16 = tosa.gather %11, %15 : (tensor<1x32x1xf32>, tensor<1x24xi32>) -> tensor<1x24x1xf32>
    %17 = tosa.reshape %16, %7 : (tensor<1x24x1xf32>, !tosa.shape<4>) -> tensor<2x2x3x2xf32>
    return %17 : tensor<2x2x3x2xf32>
  }

// -----
// split-linearised-index, negative case of the broadcast constant: the index is
// the program's tensor, gathered as it is from the view.
// CHECK-LABEL: func.func @block_view_index_tensor
// CHECK: %[[V:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 4, 2]
// CHECK: "gmx.gather_multiaxis"(%[[V]], %{{.*}}) {axes = array<i64: 2>} : (tensor<2x2x4x2xf32>, tensor<2x2x3x1xi64>) -> tensor<2x2x3x2xf32>
func.func @block_view_index_tensor(%arg0: tensor<2x8x2xf32>, %arg1: tensor<2x2x3xi64>) -> tensor<2x2x3x2xf32> {
    %0 = tosa.const_shape  {values = dense<[2, 2, 3, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %1 = tosa.const_shape  {values = dense<[1, 1, 1, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %2 = tosa.const_shape  {values = dense<[2, 2, 3, 2, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %3 = "tosa.const"() <{values = dense<[[[[[0], [0]], [[0], [0]], [[0], [0]]], [[[0], [0]], [[0], [0]], [[0], [0]]]], [[[[1], [1]], [[1], [1]], [[1], [1]]], [[[1], [1]], [[1], [1]], [[1], [1]]]]]> : tensor<2x2x3x2x1xi32>}> : () -> tensor<2x2x3x2x1xi32>
    %4 = "tosa.const"() <{values = dense<[[[[[0], [0]], [[0], [0]], [[0], [0]]], [[[1], [1]], [[1], [1]], [[1], [1]]]], [[[[0], [0]], [[0], [0]], [[0], [0]]], [[[1], [1]], [[1], [1]], [[1], [1]]]]]> : tensor<2x2x3x2x1xi32>}> : () -> tensor<2x2x3x2x1xi32>
    %5 = "tosa.const"() <{values = dense<[[[[[0], [1]], [[0], [1]], [[0], [1]]], [[[0], [1]], [[0], [1]], [[0], [1]]]], [[[[0], [1]], [[0], [1]], [[0], [1]]], [[[0], [1]], [[0], [1]], [[0], [1]]]]]> : tensor<2x2x3x2x1xi32>}> : () -> tensor<2x2x3x2x1xi32>
    %6 = tosa.const_shape  {values = dense<[1, 32, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %7 = tosa.const_shape  {values = dense<[24, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %9 = tosa.const_shape  {values = dense<[1, 24]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %10 = tosa.const_shape  {values = dense<[2, 2, 3, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %11 = "tosa.const"() <{values = dense<[[16, 8, 2, 1]]> : tensor<1x4xi32>}> : () -> tensor<1x4xi32>
    %12 = tosa.reshape %arg1, %0 : (tensor<2x2x3xi64>, !tosa.shape<4>) -> tensor<2x2x3x1xi64>
    %13 = tosa.tile %12, %1 : (tensor<2x2x3x1xi64>, !tosa.shape<4>) -> tensor<2x2x3x2xi64>
    %14 = tosa.cast %13 : (tensor<2x2x3x2xi64>) -> tensor<2x2x3x2xi32>
    %15 = tosa.reshape %14, %2 : (tensor<2x2x3x2xi32>, !tosa.shape<5>) -> tensor<2x2x3x2x1xi32>
    %16 = tosa.concat %3, %4, %15, %5 {axis = 4 : i32} : (tensor<2x2x3x2x1xi32>, tensor<2x2x3x2x1xi32>, tensor<2x2x3x2x1xi32>, tensor<2x2x3x2x1xi32>) -> tensor<2x2x3x2x4xi32>
    %17 = tosa.reshape %arg0, %6 : (tensor<2x8x2xf32>, !tosa.shape<3>) -> tensor<1x32x1xf32>
    %18 = tosa.reshape %16, %7 : (tensor<2x2x3x2x4xi32>, !tosa.shape<2>) -> tensor<24x4xi32>
    %19 = tosa.mul %18, %11, %8 : (tensor<24x4xi32>, tensor<1x4xi32>, tensor<1xi8>) -> tensor<24x4xi32>
    %20 = tosa.reduce_sum %19 {axis = 1 : i32} : (tensor<24x4xi32>) -> tensor<24x1xi32>
    %21 = tosa.reshape %20, %9 : (tensor<24x1xi32>, !tosa.shape<2>) -> tensor<1x24xi32>
    %22 = tosa.gather %17, %21 : (tensor<1x32x1xf32>, tensor<1x24xi32>) -> tensor<1x24x1xf32>
    %23 = tosa.reshape %22, %10 : (tensor<1x24x1xf32>, !tosa.shape<4>) -> tensor<2x2x3x2xf32>
    return %23 : tensor<2x2x3x2xf32>
  }

// -----
// raise-linalg-gather: torch.index_select(x, 2, arange(4)) in linalg-on-tensors
// (XLNet): every coordinate an iota, a copy: the input itself.
// CHECK-LABEL: func.func @index_select_arange_linalg
// CHECK-NEXT: return %arg0 : tensor<2x3x4xf32>
#index_select_arange_linalg_map = affine_map<(d0) -> (d0)>
#index_select_arange_linalg_map1 = affine_map<(d0, d1, d2) -> (d2)>
#index_select_arange_linalg_map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @index_select_arange_linalg(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %0 = tensor.empty() : tensor<4xi64>
    %1 = linalg.generic {indexing_maps = [#index_select_arange_linalg_map], iterator_types = ["parallel"]} outs(%0 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %4 = linalg.index 0 : index
      %5 = arith.index_cast %4 : index to i64
      linalg.yield %5 : i64
    } -> tensor<4xi64>
    %2 = tensor.empty() : tensor<2x3x4xf32>
    %3 = linalg.generic {indexing_maps = [#index_select_arange_linalg_map1, #index_select_arange_linalg_map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<4xi64>) outs(%2 : tensor<2x3x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %4 = arith.index_cast %in : i64 to index
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %extracted = tensor.extract %arg0[%5, %6, %4] : tensor<2x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x3x4xf32>
    return %3 : tensor<2x3x4xf32>
  }

// -----
// raise-linalg-gather, negative for the copy: a constant permutation is no
// iota; it stays a gather.
// CHECK-LABEL: func.func @index_select_permutation_linalg
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 2>} : (tensor<2x3x4xf32>, tensor<1x1x4xi64>) -> tensor<2x3x4xf32>
// CHECK-NOT: tensor.extract
#index_select_permutation_linalg_map = affine_map<(d0, d1, d2) -> (d2)>
#index_select_permutation_linalg_map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @index_select_permutation_linalg(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %cst = arith.constant dense<[0, 1, 3, 2]> : tensor<4xi64>
    %0 = tensor.empty() : tensor<2x3x4xf32>
    %1 = linalg.generic {indexing_maps = [#index_select_permutation_linalg_map, #index_select_permutation_linalg_map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst : tensor<4xi64>) outs(%0 : tensor<2x3x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %2 = arith.index_cast %in : i64 to index
      %3 = linalg.index 0 : index
      %4 = linalg.index 1 : index
      %extracted = tensor.extract %arg0[%3, %4, %2] : tensor<2x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x3x4xf32>
    return %1 : tensor<2x3x4xf32>
  }

// -----
// raise-linalg-gather: (m != 0)[arange(2)[:, None], arange(3)[None, :]] (CANINE):
// iotas normalised against negatives, a copy of the mask.
// CHECK-LABEL: func.func @mask_at_aranges_linalg
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: arith.cmpi ne
// CHECK-NOT: tensor.extract
// CHECK: return %[[M]] : tensor<2x3xi1>
#mask_at_aranges_linalg_map = affine_map<(d0, d1) -> (d0, d1)>
#mask_at_aranges_linalg_map1 = affine_map<(d0) -> (d0)>
#mask_at_aranges_linalg_map2 = affine_map<(d0, d1) -> (d0, 0)>
#mask_at_aranges_linalg_map3 = affine_map<(d0, d1) -> (0, d1)>
func.func @mask_at_aranges_linalg(%arg0: tensor<2x3xi64>) -> tensor<2x3xi1> {
    %c3_i64 = arith.constant 3 : i64
    %c2_i64 = arith.constant 2 : i64
    %c0_i64 = arith.constant 0 : i64
    %0 = tensor.empty() : tensor<2x3xi1>
    %1 = linalg.generic {indexing_maps = [#mask_at_aranges_linalg_map, #mask_at_aranges_linalg_map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x3xi64>) outs(%0 : tensor<2x3xi1>) {
    ^bb0(%in: i64, %out: i1):
      %7 = arith.cmpi ne, %in, %c0_i64 : i64
      linalg.yield %7 : i1
    } -> tensor<2x3xi1>
    %2 = tensor.empty() : tensor<2xi64>
    %3 = linalg.generic {indexing_maps = [#mask_at_aranges_linalg_map1], iterator_types = ["parallel"]} outs(%2 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %7 = linalg.index 0 : index
      %8 = arith.index_cast %7 : index to i64
      linalg.yield %8 : i64
    } -> tensor<2xi64>
    %expanded = tensor.expand_shape %3 [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
    %4 = tensor.empty() : tensor<3xi64>
    %5 = linalg.generic {indexing_maps = [#mask_at_aranges_linalg_map1], iterator_types = ["parallel"]} outs(%4 : tensor<3xi64>) {
    ^bb0(%out: i64):
      %7 = linalg.index 0 : index
      %8 = arith.index_cast %7 : index to i64
      linalg.yield %8 : i64
    } -> tensor<3xi64>
    %expanded_0 = tensor.expand_shape %5 [[0, 1]] output_shape [1, 3] : tensor<3xi64> into tensor<1x3xi64>
    %6 = linalg.generic {indexing_maps = [#mask_at_aranges_linalg_map2, #mask_at_aranges_linalg_map3, #mask_at_aranges_linalg_map], iterator_types = ["parallel", "parallel"]} ins(%expanded, %expanded_0 : tensor<2x1xi64>, tensor<1x3xi64>) outs(%0 : tensor<2x3xi1>) {
    ^bb0(%in: i64, %in_1: i64, %out: i1):
      %7 = arith.cmpi slt, %in, %c0_i64 : i64
      %8 = arith.addi %in, %c2_i64 : i64
      %9 = arith.select %7, %8, %in : i64
      %10 = arith.index_cast %9 : i64 to index
      %11 = arith.cmpi slt, %in_1, %c0_i64 : i64
      %12 = arith.addi %in_1, %c3_i64 : i64
      %13 = arith.select %11, %12, %in_1 : i64
      %14 = arith.index_cast %13 : i64 to index
      %extracted = tensor.extract %1[%10, %14] : tensor<2x3xi1>
      linalg.yield %extracted : i1
    } -> tensor<2x3xi1>
    return %6 : tensor<2x3xi1>
  }

// -----
// view-shared-result: b = x.gather(1, i[:, None]) read by b[:, 0] and by
// x.gather(1, b) (CRF Viterbi's back-pointers): one gmx op for b, each user a
// view of it (fold-result-reshape would raise b once per user).
// CHECK-LABEL: func.func @gather_with_two_users
// CHECK: %[[B:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 1>} : (tensor<3x4xi64>, tensor<3x1xi64>) -> tensor<3x1xi64>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1]] : tensor<3x1xi64> into tensor<3xi64>
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[B]]) {axes = array<i64: 1>}
// CHECK-NEXT: return %[[C]], %[[G]]
func.func @gather_with_two_users(%arg0: tensor<3x4xi64>, %arg1: tensor<3xi64>) -> (tensor<3xi64>, tensor<3x1xi64>) {
    %0 = "tosa.const"() <{values = dense<[[4, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
    %1 = tosa.const_shape  {values = dense<[3, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %2 = tosa.const_shape  {values = dense<[3, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %3 = "tosa.const"() <{values = dense<[[[0]], [[1]], [[2]]]> : tensor<3x1x1xi32>}> : () -> tensor<3x1x1xi32>
    %4 = tosa.const_shape  {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %5 = tosa.const_shape  {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %6 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %7 = tosa.const_shape  {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = tosa.const_shape  {values = dense<3> : tensor<1xindex>} : () -> !tosa.shape<1>
    %9 = tosa.reshape %arg1, %1 : (tensor<3xi64>, !tosa.shape<2>) -> tensor<3x1xi64>
    %10 = tosa.cast %9 : (tensor<3x1xi64>) -> tensor<3x1xi32>
    %11 = tosa.reshape %10, %2 : (tensor<3x1xi32>, !tosa.shape<3>) -> tensor<3x1x1xi32>
    %12 = tosa.concat %3, %11 {axis = 2 : i32} : (tensor<3x1x1xi32>, tensor<3x1x1xi32>) -> tensor<3x1x2xi32>
    %13 = tosa.reshape %arg0, %4 : (tensor<3x4xi64>, !tosa.shape<3>) -> tensor<1x12x1xi64>
    %14 = tosa.reshape %12, %5 : (tensor<3x1x2xi32>, !tosa.shape<2>) -> tensor<3x2xi32>
    %15 = tosa.mul %14, %0, %6 : (tensor<3x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<3x2xi32>
    %16 = tosa.reduce_sum %15 {axis = 1 : i32} : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %17 = tosa.reshape %16, %7 : (tensor<3x1xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
    %18 = tosa.gather %13, %17 : (tensor<1x12x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
    %19 = tosa.reshape %18, %1 : (tensor<1x3x1xi64>, !tosa.shape<2>) -> tensor<3x1xi64>
    %20 = tosa.reshape %18, %8 : (tensor<1x3x1xi64>, !tosa.shape<1>) -> tensor<3xi64>
    %21 = tosa.cast %19 : (tensor<3x1xi64>) -> tensor<3x1xi32>
    %22 = tosa.reshape %21, %2 : (tensor<3x1xi32>, !tosa.shape<3>) -> tensor<3x1x1xi32>
    %23 = tosa.concat %3, %22 {axis = 2 : i32} : (tensor<3x1x1xi32>, tensor<3x1x1xi32>) -> tensor<3x1x2xi32>
    %24 = tosa.reshape %23, %5 : (tensor<3x1x2xi32>, !tosa.shape<2>) -> tensor<3x2xi32>
    %25 = tosa.mul %24, %0, %6 : (tensor<3x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<3x2xi32>
    %26 = tosa.reduce_sum %25 {axis = 1 : i32} : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %27 = tosa.reshape %26, %7 : (tensor<3x1xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
    %28 = tosa.gather %13, %27 : (tensor<1x12x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
    %29 = tosa.reshape %28, %1 : (tensor<1x3x1xi64>, !tosa.shape<2>) -> tensor<3x1xi64>
    return %20, %29 : tensor<3xi64>, tensor<3x1xi64>
  }

// -----
// view-shared-result, negative: a gather read by one op only is
// fold-result-reshape's; two gmx ops, no view between them.
// CHECK-LABEL: func.func @gather_with_one_user
// CHECK: %[[B:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 1>} : (tensor<3x4xi64>, tensor<3x1xi64>) -> tensor<3x1xi64>
// CHECK-NEXT: "gmx.gather_multiaxis"(%arg0, %[[B]])
func.func @gather_with_one_user(%arg0: tensor<3x4xi64>, %arg1: tensor<3xi64>) -> tensor<3x1xi64> {
    %0 = "tosa.const"() <{values = dense<[[4, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
    %1 = tosa.const_shape  {values = dense<[3, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %2 = tosa.const_shape  {values = dense<[3, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %3 = "tosa.const"() <{values = dense<[[[0]], [[1]], [[2]]]> : tensor<3x1x1xi32>}> : () -> tensor<3x1x1xi32>
    %4 = tosa.const_shape  {values = dense<[1, 12, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %5 = tosa.const_shape  {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %6 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %7 = tosa.const_shape  {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = tosa.reshape %arg1, %1 : (tensor<3xi64>, !tosa.shape<2>) -> tensor<3x1xi64>
    %9 = tosa.cast %8 : (tensor<3x1xi64>) -> tensor<3x1xi32>
    %10 = tosa.reshape %9, %2 : (tensor<3x1xi32>, !tosa.shape<3>) -> tensor<3x1x1xi32>
    %11 = tosa.concat %3, %10 {axis = 2 : i32} : (tensor<3x1x1xi32>, tensor<3x1x1xi32>) -> tensor<3x1x2xi32>
    %12 = tosa.reshape %arg0, %4 : (tensor<3x4xi64>, !tosa.shape<3>) -> tensor<1x12x1xi64>
    %13 = tosa.reshape %11, %5 : (tensor<3x1x2xi32>, !tosa.shape<2>) -> tensor<3x2xi32>
    %14 = tosa.mul %13, %0, %6 : (tensor<3x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<3x2xi32>
    %15 = tosa.reduce_sum %14 {axis = 1 : i32} : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %16 = tosa.reshape %15, %7 : (tensor<3x1xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
    %17 = tosa.gather %12, %16 : (tensor<1x12x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
    %18 = tosa.reshape %17, %1 : (tensor<1x3x1xi64>, !tosa.shape<2>) -> tensor<3x1xi64>
    %19 = tosa.cast %18 : (tensor<3x1xi64>) -> tensor<3x1xi32>
    %20 = tosa.reshape %19, %2 : (tensor<3x1xi32>, !tosa.shape<3>) -> tensor<3x1x1xi32>
    %21 = tosa.concat %3, %20 {axis = 2 : i32} : (tensor<3x1x1xi32>, tensor<3x1x1xi32>) -> tensor<3x1x2xi32>
    %22 = tosa.reshape %21, %5 : (tensor<3x1x2xi32>, !tosa.shape<2>) -> tensor<3x2xi32>
    %23 = tosa.mul %22, %0, %6 : (tensor<3x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<3x2xi32>
    %24 = tosa.reduce_sum %23 {axis = 1 : i32} : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %25 = tosa.reshape %24, %7 : (tensor<3x1xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
    %26 = tosa.gather %12, %25 : (tensor<1x12x1xi64>, tensor<1x3xi32>) -> tensor<1x3x1xi64>
    %27 = tosa.reshape %26, %1 : (tensor<1x3x1xi64>, !tosa.shape<2>) -> tensor<3x1xi64>
    return %27 : tensor<3x1xi64>
  }

// -----
// absorb-floor-modulo: jnp.take(x, i, axis=1, mode="wrap"), JAX's remainder
// helper (divisor guarded against 0, sign fix-up) in front of a clamping
// gather, is mode "wrap" on i.
// CHECK-LABEL: func.func @jax_wrap
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0
// CHECK-NEXT: %[[I:.*]] = tensor.expand_shape %arg1
// CHECK-NEXT: "gmx.gather_multiaxis"(%[[X]], %[[I]]) {axes = array<i64: 1>, mode = "wrap"} : (tensor<4x5x1xf32>, tensor<1x1x3xi64>) -> tensor<4x1x3xf32>
// CHECK-NOT: stablehlo.
func.func @jax_wrap(%arg0: tensor<4x5xf32>, %arg1: tensor<1x3xi64>) -> (tensor<4x1x3xf32>) {
  %0 = call @jax_wrap_take(%arg0, %arg1) : (tensor<4x5xf32>, tensor<1x3xi64>) -> tensor<4x1x3xf32>
  return %0 : tensor<4x1x3xf32>
}
func.func private @jax_wrap_take(%arg0: tensor<4x5xf32>, %arg1: tensor<1x3xi64>) -> tensor<4x1x3xf32> {
  %c = stablehlo.constant dense<5> : tensor<i64>
  %0 = call @jax_wrap_remainder(%arg1, %c) : (tensor<1x3xi64>, tensor<i64>) -> tensor<1x3xi64>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x3xi64>) -> tensor<1x3x1xi64>
  %2 = "stablehlo.gather"(%arg0, %1) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x5xf32>, tensor<1x3x1xi64>) -> tensor<4x1x3xf32>
  return %2 : tensor<4x1x3xf32>
}
func.func private @jax_wrap_remainder(%arg0: tensor<1x3xi64>, %arg1: tensor<i64>) -> tensor<1x3xi64> {
  %c = stablehlo.constant dense<0> : tensor<i64>
  %0 = stablehlo.compare EQ, %arg1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %c_0 = stablehlo.constant dense<1> : tensor<i64>
  %1 = call @jax_wrap_where(%0, %c_0, %arg1) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
  %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %3 = stablehlo.remainder %arg0, %2 : tensor<1x3xi64>
  %c_1 = stablehlo.constant dense<0> : tensor<i64>
  %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %5 = stablehlo.compare NE, %3, %4, SIGNED : (tensor<1x3xi64>, tensor<1x3xi64>) -> tensor<1x3xi1>
  %c_2 = stablehlo.constant dense<0> : tensor<i64>
  %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %7 = stablehlo.compare LT, %3, %6, SIGNED : (tensor<1x3xi64>, tensor<1x3xi64>) -> tensor<1x3xi1>
  %c_3 = stablehlo.constant dense<0> : tensor<i64>
  %8 = stablehlo.compare LT, %1, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<i1>) -> tensor<1x3xi1>
  %10 = stablehlo.compare NE, %7, %9, UNSIGNED : (tensor<1x3xi1>, tensor<1x3xi1>) -> tensor<1x3xi1>
  %11 = stablehlo.and %10, %5 : tensor<1x3xi1>
  %12 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %13 = stablehlo.add %3, %12 : tensor<1x3xi64>
  %14 = stablehlo.select %11, %13, %3 : tensor<1x3xi1>, tensor<1x3xi64>
  return %14 : tensor<1x3xi64>
}
func.func private @jax_wrap_where(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
  return %0 : tensor<i64>
}

// -----
// absorb-floor-modulo, negative: jnp.take(x, i % 4, axis=1, mode="clip") on an
// axis of 5 keeps its remainder and clamp.
// fold-stablehlo-constant-arithmetic: the divisor guard (compare EQ 4, 0 and
// its select) and the divisor's sign test are constants.
// CHECK-LABEL: func.func @jax_remainder_other_size
// CHECK-DAG: stablehlo.constant dense<false> : tensor<i1>
// CHECK-DAG: %[[D:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK-NOT: stablehlo.compare EQ
// CHECK: stablehlo.remainder
// CHECK: "gmx.gather_multiaxis"({{.*}}) {axes = array<i64: 1>, mode = "clip"}
func.func @jax_remainder_other_size(%arg0: tensor<4x5xf32>, %arg1: tensor<1x3xi64>) -> (tensor<4x1x3xf32>) {
  %c = stablehlo.constant dense<4> : tensor<i64>
  %0 = call @jax_remainder_other_size_remainder(%arg1, %c) : (tensor<1x3xi64>, tensor<i64>) -> tensor<1x3xi64>
  %1 = call @jax_remainder_other_size_take(%arg0, %0) : (tensor<4x5xf32>, tensor<1x3xi64>) -> tensor<4x1x3xf32>
  return %1 : tensor<4x1x3xf32>
}
func.func private @jax_remainder_other_size_remainder(%arg0: tensor<1x3xi64>, %arg1: tensor<i64>) -> tensor<1x3xi64> {
  %0 = stablehlo.convert %arg1 : tensor<i64>
  %c = stablehlo.constant dense<0> : tensor<i64>
  %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %c_0 = stablehlo.constant dense<1> : tensor<i64>
  %2 = call @jax_remainder_other_size_where(%1, %c_0, %0) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
  %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %4 = stablehlo.remainder %arg0, %3 : tensor<1x3xi64>
  %c_1 = stablehlo.constant dense<0> : tensor<i64>
  %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<1x3xi64>, tensor<1x3xi64>) -> tensor<1x3xi1>
  %c_2 = stablehlo.constant dense<0> : tensor<i64>
  %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<1x3xi64>, tensor<1x3xi64>) -> tensor<1x3xi1>
  %c_3 = stablehlo.constant dense<0> : tensor<i64>
  %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<1x3xi1>
  %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<1x3xi1>, tensor<1x3xi1>) -> tensor<1x3xi1>
  %12 = stablehlo.and %11, %6 : tensor<1x3xi1>
  %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<1x3xi64>
  %14 = stablehlo.add %4, %13 : tensor<1x3xi64>
  %15 = stablehlo.select %12, %14, %4 : tensor<1x3xi1>, tensor<1x3xi64>
  return %15 : tensor<1x3xi64>
}
func.func private @jax_remainder_other_size_where(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
  return %0 : tensor<i64>
}
func.func private @jax_remainder_other_size_take(%arg0: tensor<4x5xf32>, %arg1: tensor<1x3xi64>) -> tensor<4x1x3xf32> {
  %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x3xi64>) -> tensor<1x3x1xi64>
  %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x5xf32>, tensor<1x3x1xi64>) -> tensor<4x1x3xf32>
  return %1 : tensor<4x1x3xf32>
}

// -----
// fold-stablehlo-constant-arithmetic, negative: a compare of an argument, float
// arithmetic on constants, a broadcast (no arithmetic) stay.
// CHECK-LABEL: func.func @stablehlo_not_constant_arithmetic
// CHECK: stablehlo.compare LT, %arg0
// CHECK: stablehlo.add
// CHECK: stablehlo.broadcast_in_dim
func.func @stablehlo_not_constant_arithmetic(%arg0: tensor<3xi64>) -> (tensor<3xi1>, tensor<f32>, tensor<3xi64>) {
  %c = stablehlo.constant dense<0> : tensor<3xi64>
  %0 = stablehlo.compare LT, %arg0, %c, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %f = stablehlo.constant dense<1.5> : tensor<f32>
  %1 = stablehlo.add %f, %f : tensor<f32>
  %s = stablehlo.constant dense<7> : tensor<i64>
  %2 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<i64>) -> tensor<3xi64>
  return %0, %1, %2 : tensor<3xi1>, tensor<f32>, tensor<3xi64>
}

// -----
// drop-inert-mode: constant indices inside their axis read the same in every
// mode; the clamp goes.
// CHECK-LABEL: func.func @clip_constant_in_range
// CHECK: %[[C:.*]] = arith.constant
// CHECK-NEXT: "gmx.gather_multiaxis"(%arg0, %[[C]]) {axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
func.func @clip_constant_in_range(%x: tensor<8x4xf32>) -> tensor<3x4xf32> {
  %c = arith.constant dense<[[2], [0], [7]]> : tensor<3x1xi64>
  %g = "gmx.gather_multiaxis"(%x, %c) {axes = array<i64: 0>, mode = "clip"} : (tensor<8x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return %g : tensor<3x4xf32>
}

// -----
// drop-inert-mode, negative: a constant outside the axis (9) or negative (-1)
// is clamped, which mode raise would not do.
// CHECK-LABEL: func.func @clip_constant_out_of_range
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>, mode = "clip"}
func.func @clip_constant_out_of_range(%x: tensor<8x4xf32>) -> tensor<3x4xf32> {
  %c = arith.constant dense<[[2], [-1], [9]]> : tensor<3x1xi64>
  %g = "gmx.gather_multiaxis"(%x, %c) {axes = array<i64: 0>, mode = "clip"} : (tensor<8x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return %g : tensor<3x4xf32>
}

// -----
// drop-inert-mode: torch.index_select(x, 2, arange(4)) in torch-mlir's StableHLO
// (XLNet, CANINE): the clamped gather at the arange is the identity, its input.
// CHECK-LABEL: func.func @index_select_arange_stablehlo
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: %[[R:.*]] = stablehlo.convert %arg0
// CHECK-NEXT: return %[[R]]
func.func @index_select_arange_stablehlo(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %c = stablehlo.constant dense<0> : tensor<4xi64>
    %c_0 = stablehlo.constant dense<1> : tensor<4xi64>
    %c_1 = stablehlo.constant dense<1> : tensor<i64>
    %c_2 = stablehlo.constant dense<4> : tensor<i64>
    %0 = stablehlo.convert %c_1 : (tensor<i64>) -> tensor<f64>
    %1 = stablehlo.convert %c_2 : (tensor<i64>) -> tensor<f64>
    %2 = stablehlo.divide %1, %0 : tensor<f64>
    %3 = stablehlo.ceil %2 : tensor<f64>
    %4 = stablehlo.convert %3 : (tensor<f64>) -> tensor<i64>
    %5 = stablehlo.reshape %4 : (tensor<i64>) -> tensor<1xi64>
    %6 = stablehlo.dynamic_iota %5, dim = 0 : (tensor<1xi64>) -> tensor<4xi64>
    %7 = stablehlo.multiply %6, %c_0 : tensor<4xi64>
    %8 = stablehlo.add %7, %c : tensor<4xi64>
    %9 = "stablehlo.gather"(%arg0, %8) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 3, 1>}> : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x4xf32>
    %10 = stablehlo.convert %9 : tensor<2x3x4xf32>
    return %10 : tensor<2x3x4xf32>
  }

