// The TOSA scatters torch-mlir emits, raised by --gmx-canonicalize into
// gmx.scatter_multiaxis: raise-tosa-scatter, then the gather's folds of the
// input's views (rooted at scatters too), one positive and one negative case each.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// fuse=false: scatters are not raised (the lowering's first stage raises gathers alone).
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize=fuse=false | FileCheck %s --check-prefix=RAISE

// raise-tosa-scatter: a bare tosa.scatter becomes a gmx scatter with axes = [1].
// CHECK-LABEL: func.func @bare_scatter
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [2, 4, 1]
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[E]], %arg2) {axes = array<i64: 1>} : (tensor<2x5x3xf32>, tensor<2x4x1xi32>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NOT: tosa.scatter
// CHECK: return %[[S]]
// RAISE-LABEL: func.func @bare_scatter
// RAISE: tosa.scatter
func.func @bare_scatter(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>, %u: tensor<2x4x3xf32>) -> tensor<2x5x3xf32> {
  %0 = tosa.scatter %v, %i, %u : (tensor<2x5x3xf32>, tensor<2x4xi32>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----
// raise-tosa-scatter, negative: a `?` dim (torch-mlir emits none) stays a tosa.scatter.
// CHECK-LABEL: func.func @dynamic_scatter
// CHECK: tosa.scatter
// CHECK-NOT: gmx.scatter_multiaxis
func.func @dynamic_scatter(%v: tensor<2x?x3xf32>, %i: tensor<2x4xi32>, %u: tensor<2x4x3xf32>) -> tensor<2x?x3xf32> {
  %0 = tosa.scatter %v, %i, %u : (tensor<2x?x3xf32>, tensor<2x4xi32>, tensor<2x4x3xf32>) -> tensor<2x?x3xf32>
  return %0 : tensor<2x?x3xf32>
}

// -----
// raise-linearised-indices: torch-mlir's `x.scatter(1, i, src)`: a
// tosa.scatter on the flattened input with the row meshgrid concatenated with
// `i` and linearised by the strides [5, 1] becomes one scatter along the true
// axis (a column past its row is an IndexError, no longer the next row's element).
// CHECK-LABEL: func.func @scatter_src
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 1>} : (tensor<3x5xf32>, tensor<3x2xi32>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NOT: tosa.reduce_sum
// CHECK-NOT: tosa.concat
// CHECK: return %[[S]]
func.func @scatter_src(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi32>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = tosa.const_shape  {values = dense<[3, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]], [[2], [2]]]> : tensor<3x2x1xi32>}> : () -> tensor<3x2x1xi32>
  %2 = tosa.const_shape  {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.const_shape  {values = dense<[1, 15, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %4 = tosa.const_shape  {values = dense<[6, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %5 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %6 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %7 = tosa.const_shape  {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %8 = "tosa.const"() <{values = dense<[[5, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %10 = tosa.reshape %arg1, %0 : (tensor<3x2xi32>, !tosa.shape<3>) -> tensor<3x2x1xi32>
  %11 = tosa.concat %1, %10 {axis = 2 : i32} : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x2xi32>
  %12 = tosa.reshape %arg2, %2 : (tensor<3x2xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
  %13 = tosa.reshape %arg0, %3 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x15x1xf32>
  %14 = tosa.reshape %11, %4 : (tensor<3x2x2xi32>, !tosa.shape<2>) -> tensor<6x2xi32>
  %15 = tosa.mul %14, %8, %5 : (tensor<6x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<6x2xi32>
  %16 = tosa.reduce_sum %15 {axis = 1 : i32} : (tensor<6x2xi32>) -> tensor<6x1xi32>
  %17 = tosa.reshape %16, %6 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
  %18 = tosa.scatter %13, %17, %12 : (tensor<1x15x1xf32>, tensor<1x6xi32>, tensor<1x6x1xf32>) -> tensor<1x15x1xf32>
  %19 = tosa.reshape %18, %7 : (tensor<1x15x1xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
  return %19 : tensor<3x5xf32>
}

// -----
// raise-linearised-indices, negative: a scatter into the flattened input at
// the user's own `i * 5 + j` is no coordinate pair (j = 6 is a valid flat
// index, no column): it stays a scatter along the flat dim.
// CHECK-LABEL: func.func @user_flat_index
// CHECK: %[[F:.*]] = tosa.add
// CHECK: "gmx.scatter_multiaxis"({{.*}}) {axes = array<i64: 1>} : (tensor<1x15x1xf32>, tensor<1x1x6xi32>, tensor<1x1x6xf32>) -> tensor<1x15x1xf32>
func.func @user_flat_index(%arg0: tensor<3x5xf32>, %i: tensor<1x6xi32>, %j: tensor<1x6xi32>, %arg2: tensor<1x6x1xf32>) -> tensor<3x5xf32> {
  %3 = tosa.const_shape  {values = dense<[1, 15, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %7 = tosa.const_shape  {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %5 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c5 = "tosa.const"() <{values = dense<5> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %m = tosa.mul %i, %c5, %5 : (tensor<1x6xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x6xi32>
  %f = tosa.add %m, %j : (tensor<1x6xi32>, tensor<1x6xi32>) -> tensor<1x6xi32>
  %13 = tosa.reshape %arg0, %3 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x15x1xf32>
  %18 = tosa.scatter %13, %f, %arg2 : (tensor<1x15x1xf32>, tensor<1x6xi32>, tensor<1x6x1xf32>) -> tensor<1x15x1xf32>
  %19 = tosa.reshape %18, %7 : (tensor<1x15x1xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
  return %19 : tensor<3x5xf32>
}

// -----
// fold-input-reshape: torch-mlir's `x.index_put_((r,), rows)` is a scatter on
// `x` viewed as 1x3x5; the view folds into the scatter and the result's
// reshape back (view-shared-result) is the scatter itself.
// CHECK-LABEL: func.func @index_put_rows
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [2, 1]
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[E]], %arg2) {axes = array<i64: 0>} : (tensor<3x5xf32>, tensor<2x1xi32>, tensor<2x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %[[S]]
func.func @index_put_rows(%arg0: tensor<3x5xf32>, %arg1: tensor<2xi32>, %arg2: tensor<2x5xf32>) -> tensor<3x5xf32> {
  %0 = tosa.const_shape  {values = dense<[1, 2, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = tosa.const_shape  {values = dense<[1, 3, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = tosa.const_shape  {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %3 = tosa.const_shape  {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %5 = tosa.reshape %arg2, %0 : (tensor<2x5xf32>, !tosa.shape<3>) -> tensor<1x2x5xf32>
  %6 = tosa.reshape %arg0, %1 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x3x5xf32>
  %7 = tosa.reshape %arg1, %2 : (tensor<2xi32>, !tosa.shape<2>) -> tensor<1x2xi32>
  %8 = tosa.scatter %6, %7, %5 : (tensor<1x3x5xf32>, tensor<1x2xi32>, tensor<1x2x5xf32>) -> tensor<1x3x5xf32>
  %9 = tosa.reshape %8, %3 : (tensor<1x3x5xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
  return %9 : tensor<3x5xf32>
}

// -----
// raise-tosa-scatter: torch-mlir tiles a scalar (`x.scatter(1, i, -inf)`,
// top-k masks) into a splat constant of updates: one broadcast element.
// CHECK-LABEL: func.func @masked_fill_scatter
// CHECK: %[[C:.*]] = arith.constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %[[C]]) {axes = array<i64: 1>} : (tensor<3x5xf32>, tensor<3x2xi32>, tensor<1x1xf32>) -> tensor<3x5xf32>
// CHECK: return %[[S]]
func.func @masked_fill_scatter(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi32>) -> tensor<3x5xf32> {
  %0 = tosa.const_shape  {values = dense<[3, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]], [[2], [2]]]> : tensor<3x2x1xi32>}> : () -> tensor<3x2x1xi32>
  %3 = tosa.const_shape  {values = dense<[1, 15, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %4 = tosa.const_shape  {values = dense<[6, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %5 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %6 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %7 = tosa.const_shape  {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %inf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x6x1xf32>}> : () -> tensor<1x6x1xf32>
  %8 = "tosa.const"() <{values = dense<[[5, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %10 = tosa.reshape %arg1, %0 : (tensor<3x2xi32>, !tosa.shape<3>) -> tensor<3x2x1xi32>
  %11 = tosa.concat %1, %10 {axis = 2 : i32} : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x2xi32>
  %13 = tosa.reshape %arg0, %3 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x15x1xf32>
  %14 = tosa.reshape %11, %4 : (tensor<3x2x2xi32>, !tosa.shape<2>) -> tensor<6x2xi32>
  %15 = tosa.mul %14, %8, %5 : (tensor<6x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<6x2xi32>
  %16 = tosa.reduce_sum %15 {axis = 1 : i32} : (tensor<6x2xi32>) -> tensor<6x1xi32>
  %17 = tosa.reshape %16, %6 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
  %18 = tosa.scatter %13, %17, %inf : (tensor<1x15x1xf32>, tensor<1x6xi32>, tensor<1x6x1xf32>) -> tensor<1x15x1xf32>
  %19 = tosa.reshape %18, %7 : (tensor<1x15x1xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
  return %19 : tensor<3x5xf32>
}

// -----
// split-linearised-index: torch-mlir's one-hot (`zeros(6, 7).scatter_(1, labels[:, None], 1.0)`)
// scatters into a constant of the flat shape 1x42x1; the strides [7, 1] say
// which dims the coordinates address: one scatter on a 6x7 constant, the
// row meshgrid a non-axis dim, the splat 1.0 one broadcast element.
// CHECK-LABEL: func.func @one_hot
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK-DAG: %[[Z:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<6x7xf32>}>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%[[Z]], %{{.*}}, %[[ONE]]) {axes = array<i64: 1>} : (tensor<6x7xf32>, tensor<6x1xi64>, tensor<1x1xf32>) -> tensor<6x7xf32>
// CHECK-NOT: tosa.reduce_sum
// CHECK: return %[[S]]
func.func @one_hot(%arg0: tensor<6xi64>) -> tensor<6x7xf32> {
  %0 = tosa.const_shape  {values = dense<[6, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %1 = tosa.const_shape  {values = dense<[6, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = "tosa.const"() <{values = dense<[[[0]], [[1]], [[2]], [[3]], [[4]], [[5]]]> : tensor<6x1x1xi32>}> : () -> tensor<6x1x1xi32>
  %3 = tosa.const_shape  {values = dense<[6, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %5 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %6 = tosa.const_shape  {values = dense<[6, 7]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %7 = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x6x1xf32>}> : () -> tensor<1x6x1xf32>
  %8 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x42x1xf32>}> : () -> tensor<1x42x1xf32>
  %9 = "tosa.const"() <{values = dense<[[7, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %10 = tosa.reshape %arg0, %0 : (tensor<6xi64>, !tosa.shape<2>) -> tensor<6x1xi64>
  %11 = tosa.cast %10 : (tensor<6x1xi64>) -> tensor<6x1xi32>
  %12 = tosa.reshape %11, %1 : (tensor<6x1xi32>, !tosa.shape<3>) -> tensor<6x1x1xi32>
  %13 = tosa.concat %2, %12 {axis = 2 : i32} : (tensor<6x1x1xi32>, tensor<6x1x1xi32>) -> tensor<6x1x2xi32>
  %14 = tosa.reshape %13, %3 : (tensor<6x1x2xi32>, !tosa.shape<2>) -> tensor<6x2xi32>
  %15 = tosa.mul %14, %9, %4 : (tensor<6x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<6x2xi32>
  %16 = tosa.reduce_sum %15 {axis = 1 : i32} : (tensor<6x2xi32>) -> tensor<6x1xi32>
  %17 = tosa.reshape %16, %5 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
  %18 = tosa.scatter %8, %17, %7 : (tensor<1x42x1xf32>, tensor<1x6xi32>, tensor<1x6x1xf32>) -> tensor<1x42x1xf32>
  %19 = tosa.reshape %18, %6 : (tensor<1x42x1xf32>, !tosa.shape<2>) -> tensor<6x7xf32>
  return %19 : tensor<6x7xf32>
}

// -----
// raise-linearised-indices: torch-mlir's `x.slice_scatter(src, dim=1, start=1, end=3)`
// is a tosa.scatter at constant linearised positions; read back over x's own
// dims they are a slice written whole: a tensor.insert_slice, no index left.
// CHECK-LABEL: func.func @slice_scatter
// CHECK: %[[S:.*]] = tensor.insert_slice %arg1 into %arg0[0, 1] [3, 2] [1, 1] : tensor<3x2xf32> into tensor<3x5xf32>
// CHECK-NOT: tosa.scatter
// CHECK-NOT: gmx.scatter_multiaxis
// CHECK-NOT: tosa.reduce_sum
func.func @slice_scatter(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]], [[2], [2]]]> : tensor<3x2x1xi32>}> : () -> tensor<3x2x1xi32>
  %1 = tosa.const_shape  {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = tosa.const_shape  {values = dense<[1, 15, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.const_shape  {values = dense<[6, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %5 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %6 = tosa.const_shape  {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %7 = "tosa.const"() <{values = dense<[[[1], [2]], [[1], [2]], [[1], [2]]]> : tensor<3x2x1xi32>}> : () -> tensor<3x2x1xi32>
  %8 = "tosa.const"() <{values = dense<[[5, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %9 = tosa.concat %0, %7 {axis = 2 : i32} : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x2xi32>
  %10 = tosa.reshape %arg1, %1 : (tensor<3x2xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
  %11 = tosa.reshape %arg0, %2 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x15x1xf32>
  %12 = tosa.reshape %9, %3 : (tensor<3x2x2xi32>, !tosa.shape<2>) -> tensor<6x2xi32>
  %13 = tosa.mul %12, %8, %4 : (tensor<6x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<6x2xi32>
  %14 = tosa.reduce_sum %13 {axis = 1 : i32} : (tensor<6x2xi32>) -> tensor<6x1xi32>
  %15 = tosa.reshape %14, %5 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
  %16 = tosa.scatter %11, %15, %10 : (tensor<1x15x1xf32>, tensor<1x6xi32>, tensor<1x6x1xf32>) -> tensor<1x15x1xf32>
  %17 = tosa.reshape %16, %6 : (tensor<1x15x1xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
  return %17 : tensor<3x5xf32>
}
