// RUN: gmx-run %S/../../examples/scatter_elements.mlir | FileCheck %s --check-prefix=ELEMENTS
// RUN: gmx-run %S/../../examples/scatter_elements.mlir --threads 3 | FileCheck %s --check-prefix=ELEMENTS
// RUN: gmx-opt %S/../../examples/scatter_elements.mlir --convert-gmx-to-linalg | gmx-run - | FileCheck %s --check-prefix=ELEMENTS
// RUN: gmx-opt %S/../../examples/scatter_elements.mlir --gmx-lower-to-llvm | gmx-run - | FileCheck %s --check-prefix=ELEMENTS
// RUN: gmx-run %s -e add | FileCheck %s --check-prefix=ADD
// RUN: gmx-run %s -e add --threads 4 | FileCheck %s --check-prefix=ADD
// RUN: gmx-run %s -e skip | FileCheck %s --check-prefix=SKIP
// RUN: not gmx-run %s -e out_of_range 2>&1 | FileCheck %s --check-prefix=INDEX

// examples/scatter_elements.mlir: ONNX's ScatterElements example.
// ELEMENTS:      array([[2. , 1.1, 0. ],
// ELEMENTS-NEXT:        [1. , 0. , 2.2],
// ELEMENTS-NEXT:        [0. , 2.1, 1.2]], dtype=float32)

// index_add of rows, duplicates summed in row-major order of the updates
// (np.add.at): rows 1 and 3 take two updates each, row 2 none.
// ADD:      array([[ 1.,  1.],
// ADD-NEXT:        [12., 21.],
// ADD-NEXT:        [ 1.,  1.],
// ADD-NEXT:        [ 5.,  6.]], dtype=float32)
func.func @add() -> tensor<4x2xf32> {
  %x = arith.constant dense<1.0> : tensor<4x2xf32>
  %i = arith.constant dense<[[1], [-1], [1], [0]]> : tensor<4x1xi64>
  %u = arith.constant dense<[[1.0, 10.0], [4.0, 5.0], [10.0, 10.0], [0.0, 0.0]]> : tensor<4x2xf32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"}
      : (tensor<4x2xf32>, tensor<4x1xi64>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// "skip" (StableHLO's rule): the updates at -1 and at 4 are skipped, a
// negative index is not wrapped ("drop" would write -1 into row 3).
// SKIP:      array([[ 1.,  1.],
// SKIP-NEXT:        [12., 21.],
// SKIP-NEXT:        [ 1.,  1.],
// SKIP-NEXT:        [ 1.,  1.]], dtype=float32)
func.func @skip() -> tensor<4x2xf32> {
  %x = arith.constant dense<1.0> : tensor<4x2xf32>
  %i = arith.constant dense<[[1], [-1], [1], [4]]> : tensor<4x1xi64>
  %u = arith.constant dense<[[1.0, 10.0], [4.0, 5.0], [10.0, 10.0], [7.0, 7.0]]> : tensor<4x2xf32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add", mode = "skip"}
      : (tensor<4x2xf32>, tensor<4x1xi64>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// An index outside its axis: the gather's located IndexError, exit 1, no
// traceback, nothing written.
// INDEX: gmx-run: error: {{.*}}gmx-run-scatter.mlir:[[# @LINE + 6]]:8: index 4 is out of bounds for axis 0 with size 4
// INDEX-NOT: Traceback
func.func @out_of_range() -> tensor<4x2xf32> {
  %x = arith.constant dense<1.0> : tensor<4x2xf32>
  %i = arith.constant dense<[[1], [4]]> : tensor<2x1xi64>
  %u = arith.constant dense<2.0> : tensor<2x2xf32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>}
      : (tensor<4x2xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
