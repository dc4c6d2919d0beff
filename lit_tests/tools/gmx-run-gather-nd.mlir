// RUN: gmx-opt %s --convert-gmx-to-linalg | gmx-run - | FileCheck %s
// RUN: gmx-run %s | FileCheck %s
// RUN: gmx-run %s --threads 1 | FileCheck %s
// RUN: gmx-run %s --threads 4 | FileCheck %s
// RUN: gmx-opt %s --gmx-lower-to-llvm | gmx-run - | FileCheck %s

// Worked example nd_triples of docs/semantics.md, GatherND with 3-D
// coordinates: input [2,2,2], indices
// [[0,0,1],[0,1,0],[1,0,0],[1,1,0],[1,1,1]] -> [1,2,4,6,7];
// intermediate: indices [5,1,1*3], output [5,1,1], axes [0,1,2].
// CHECK: array([1, 2, 4, 6, 7], dtype=int32)
func.func @main() -> tensor<5xi32> {
  %input = arith.constant dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi32>
  %indices = arith.constant dense<[[[0, 0, 1]], [[0, 1, 0]], [[1, 0, 0]], [[1, 1, 0]], [[1, 1, 1]]]> : tensor<5x1x3xi64>
  %g = "gmx.gather_multiaxis"(%input, %indices) {axes = array<i64: 0, 1, 2>}
      : (tensor<2x2x2xi32>, tensor<5x1x3xi64>) -> tensor<5x1x1xi32>
  %out = tensor.collapse_shape %g [[0, 1, 2]] : tensor<5x1x1xi32> into tensor<5xi32>
  return %out : tensor<5xi32>
}
