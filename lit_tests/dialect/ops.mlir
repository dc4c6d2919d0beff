// RUN: gmx-opt %s | gmx-opt | FileCheck %s
// RUN: gmx-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// GENERIC: "builtin.module"() ({
// GENERIC: "func.func"() <{function_type = (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>, sym_name = "gather_elements"}>
// GENERIC: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>

// Valid gathers round-trip unchanged (IRDL ops print in generic form).

// CHECK-LABEL: func.func @gather_elements
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
func.func @gather_elements(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// docs/semantics.md#output-shape: [4,2,1,2] with [1,3,2,2], axes [1] -> [4,3,2,2].
// CHECK-LABEL: func.func @broadcast_both_ways
// CHECK: {axes = array<i64: 1>} : (tensor<4x2x1x2xbf16>, tensor<1x3x2x2xi8>) -> tensor<4x3x2x2xbf16>
func.func @broadcast_both_ways(%x: tensor<4x2x1x2xbf16>, %i: tensor<1x3x2x2xi8>) -> tensor<4x3x2x2xbf16> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<4x2x1x2xbf16>, tensor<1x3x2x2xi8>) -> tensor<4x3x2x2xbf16>
  return %0 : tensor<4x3x2x2xbf16>
}

// docs/semantics.md#folded-coordinates: [10,9,8] with [1,5,6*2], axes [1,2] -> [10,5,6].
// CHECK-LABEL: func.func @two_axes
// CHECK: {axes = array<i64: 1, 2>} : (tensor<10x9x8xi1>, tensor<1x5x12xi32>) -> tensor<10x5x6xi1>
func.func @two_axes(%x: tensor<10x9x8xi1>, %i: tensor<1x5x12xi32>) -> tensor<10x5x6xi1> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1, 2>} : (tensor<10x9x8xi1>, tensor<1x5x12xi32>) -> tensor<10x5x6xi1>
  return %0 : tensor<10x5x6xi1>
}

// CHECK-LABEL: func.func @permuted_axes
// CHECK: {axes = array<i64: 2, 0>} : (tensor<4x5x6xcomplex<f32>>, tensor<3x1x2xi16>) -> tensor<3x5x1xcomplex<f32>>
func.func @permuted_axes(%x: tensor<4x5x6xcomplex<f32>>, %i: tensor<3x1x2xi16>) -> tensor<3x5x1xcomplex<f32>> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 2, 0>} : (tensor<4x5x6xcomplex<f32>>, tensor<3x1x2xi16>) -> tensor<3x5x1xcomplex<f32>>
  return %0 : tensor<3x5x1xcomplex<f32>>
}

// A dynamic dim facing a static size > 1 takes the static size.
// CHECK-LABEL: func.func @dynamic
// CHECK: {axes = array<i64: 1>} : (tensor<?x?xf64>, tensor<3x?xi64>) -> tensor<3x?xf64>
func.func @dynamic(%x: tensor<?x?xf64>, %i: tensor<3x?xi64>) -> tensor<3x?xf64> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<?x?xf64>, tensor<3x?xi64>) -> tensor<3x?xf64>
  return %0 : tensor<3x?xf64>
}

// The dynamic embedding --gmx-canonicalize raises: a unit input dim takes
// the ids' static size, a dynamic table and dynamic ids stay `?`.
// CHECK-LABEL: func.func @dynamic_embedding
// CHECK: {axes = array<i64: 2>} : (tensor<1x1x?x?xf32>, tensor<2x3x?x1xi32>) -> tensor<2x3x?x?xf32>
func.func @dynamic_embedding(%x: tensor<1x1x?x?xf32>, %i: tensor<2x3x?x1xi32>) -> tensor<2x3x?x?xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 2>} : (tensor<1x1x?x?xf32>, tensor<2x3x?x1xi32>) -> tensor<2x3x?x?xf32>
  return %0 : tensor<2x3x?x?xf32>
}

// Empty axes: a broadcast of the input to the indices' shape.
// CHECK-LABEL: func.func @no_axes
// CHECK: {axes = array<i64>} : (tensor<1x3xf16>, tensor<2x1xi64>) -> tensor<2x3xf16>
func.func @no_axes(%x: tensor<1x3xf16>, %i: tensor<2x1xi64>) -> tensor<2x3xf16> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64>} : (tensor<1x3xf16>, tensor<2x1xi64>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @rank0
// CHECK: {axes = array<i64>} : (tensor<f32>, tensor<i64>) -> tensor<f32>
func.func @rank0(%x: tensor<f32>, %i: tensor<i64>) -> tensor<f32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64>} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// docs/semantics.md#out-of-range-modes: every mode round-trips; "raise" may be spelled.
// CHECK-LABEL: func.func @modes
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 0>, mode = "raise"}
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 0>, mode = "wrap"}
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 0>, mode = "clip"}
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 0>, fill_value = -7.500000e+00 : f32, mode = "fill"}
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 1>, fill_value = -1 : i8, mode = "fill"}
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %{{.*}}) {axes = array<i64: 1>, fill_value = true, mode = "fill"}
func.func @modes(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %b: tensor<4x3xi8>, %c: tensor<4x3xi1>) -> (tensor<2x3xf32>, tensor<4x2xi8>, tensor<4x2xi1>) {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "raise"} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  %1 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "wrap"} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  %2 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  %3 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = -7.5 : f32} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  %j = tensor.empty() : tensor<1x2xi64>
  %4 = "gmx.gather_multiaxis"(%b, %j) {axes = array<i64: 1>, mode = "fill", fill_value = -1 : i8} : (tensor<4x3xi8>, tensor<1x2xi64>) -> tensor<4x2xi8>
  %5 = "gmx.gather_multiaxis"(%c, %j) {axes = array<i64: 1>, mode = "fill", fill_value = true} : (tensor<4x3xi1>, tensor<1x2xi64>) -> tensor<4x2xi1>
  return %3, %4, %5 : tensor<2x3xf32>, tensor<4x2xi8>, tensor<4x2xi1>
}
