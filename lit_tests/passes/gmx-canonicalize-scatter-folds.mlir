// Folds of a gmx scatter into the gmx scatter it writes into
// (passes/raising/scatter_folds.py), positive and negative cases.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s

// fold-identity-reset: torch's `x.scatter_reduce(0, i, u, "amax", include_self=False)`:
// -inf scattered first, then the maximum; one scatter on x's shape stacked with a
// marker channel (0, then 1 where an update lands), and a select of x where it stayed 0.
// CHECK-LABEL: func.func @include_self_false
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-DAG: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<5x3x1xf32>
// CHECK-DAG: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<4x3x1xf32>
// CHECK-DAG: %[[START:.*]] = arith.constant dense<0.000000e+00> : tensor<4x3x1xf32>
// CHECK: %[[IN:.*]] = tensor.concat dim(2) %[[NINF]], %[[START]] : (tensor<4x3x1xf32>, tensor<4x3x1xf32>) -> tensor<4x3x2xf32>
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [5, 3, 1]
// CHECK: %[[U:.*]] = tensor.expand_shape %arg2 {{\[}}[0], [1, 2]] output_shape [5, 3, 1]
// CHECK: %[[UP:.*]] = tensor.concat dim(2) %[[U]], %[[ONES]] : (tensor<5x3x1xf32>, tensor<5x3x1xf32>) -> tensor<5x3x2xf32>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%[[IN]], %[[I]], %[[UP]]) {axes = array<i64: 0>, reduction = "max"} : (tensor<4x3x2xf32>, tensor<5x3x1xi64>, tensor<5x3x2xf32>) -> tensor<4x3x2xf32>
// CHECK: %[[M:.*]] = tensor.extract_slice %[[S]][0, 0, 1] [4, 3, 1] [1, 1, 1]
// CHECK: %[[MC:.*]] = tensor.collapse_shape %[[M]]
// CHECK: %[[T:.*]] = arith.cmpf une, %[[MC]], %[[ZERO]] : tensor<4x3xf32>
// CHECK: %[[V:.*]] = tensor.extract_slice %[[S]][0, 0, 0] [4, 3, 1] [1, 1, 1]
// CHECK: %[[VC:.*]] = tensor.collapse_shape %[[V]]
// CHECK: %[[R:.*]] = arith.select %[[T]], %[[VC]], %arg0 : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-NOT: gmx.scatter_multiaxis
// CHECK: return %[[R]]
func.func @include_self_false(%x: tensor<4x3xf32>, %i: tensor<5x3xi64>, %u: tensor<5x3xf32>) -> tensor<4x3xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<1x1xf32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %ninf) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<1x1xf32>) -> tensor<4x3xf32>
  %y = "gmx.scatter_multiaxis"(%r, %i, %u) {axes = array<i64: 0>, reduction = "max"} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----
// fold-identity-reset: an integer sum on two axes (the tuples folded in the last
// dim: 2x(3*2) indices viewed as 2x3x2 for the stacked rank); the marker counts.
// CHECK-LABEL: func.func @two_axes_integer_sum
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%{{.*}}, %{{.*}}, %{{.*}}) {axes = array<i64: 0, 1>, reduction = "add"} : (tensor<4x5x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2xi32>) -> tensor<4x5x2xi32>
// CHECK: arith.cmpi ne
// CHECK: arith.select
func.func @two_axes_integer_sum(%x: tensor<4x5xi32>, %i: tensor<2x6xi64>, %u: tensor<2x3xi32>) -> tensor<4x5xi32> {
  %zero = arith.constant dense<0> : tensor<1x1xi32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %zero) {axes = array<i64: 0, 1>} : (tensor<4x5xi32>, tensor<2x6xi64>, tensor<1x1xi32>) -> tensor<4x5xi32>
  %y = "gmx.scatter_multiaxis"(%r, %i, %u) {axes = array<i64: 0, 1>, reduction = "add"} : (tensor<4x5xi32>, tensor<2x6xi64>, tensor<2x3xi32>) -> tensor<4x5xi32>
  return %y : tensor<4x5xi32>
}

// -----
// fold-identity-reset, negative: the scatters read other indices; both stay.
// CHECK-LABEL: func.func @other_indices
// CHECK: %[[R:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1,
// CHECK: "gmx.scatter_multiaxis"(%[[R]], %arg2, %arg3) {axes = array<i64: 0>, reduction = "max"}
func.func @other_indices(%x: tensor<4x3xf32>, %i: tensor<5x3xi64>, %j: tensor<5x3xi64>, %u: tensor<5x3xf32>) -> tensor<4x3xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<1x1xf32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %ninf) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<1x1xf32>) -> tensor<4x3xf32>
  %y = "gmx.scatter_multiaxis"(%r, %j, %u) {axes = array<i64: 0>, reduction = "max"} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----
// fold-identity-reset, negative: the first scatter writes a tensor, not one constant.
// CHECK-LABEL: func.func @not_a_constant
// CHECK: %[[R:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg3)
// CHECK: "gmx.scatter_multiaxis"(%[[R]], %arg1, %arg2) {axes = array<i64: 0>, reduction = "max"}
func.func @not_a_constant(%x: tensor<4x3xf32>, %i: tensor<5x3xi64>, %u: tensor<5x3xf32>, %v: tensor<5x3xf32>) -> tensor<4x3xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %v) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
  %y = "gmx.scatter_multiaxis"(%r, %i, %u) {axes = array<i64: 0>, reduction = "max"} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----
// fold-identity-reset, negative: the reset is returned too (read elsewhere).
// CHECK-LABEL: func.func @reset_read_elsewhere
// CHECK-COUNT-2: "gmx.scatter_multiaxis"
func.func @reset_read_elsewhere(%x: tensor<4x3xf32>, %i: tensor<5x3xi64>, %u: tensor<5x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %ninf = arith.constant dense<0xFF800000> : tensor<1x1xf32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %ninf) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<1x1xf32>) -> tensor<4x3xf32>
  %y = "gmx.scatter_multiaxis"(%r, %i, %u) {axes = array<i64: 0>, reduction = "max"} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
  return %r, %y : tensor<4x3xf32>, tensor<4x3xf32>
}
