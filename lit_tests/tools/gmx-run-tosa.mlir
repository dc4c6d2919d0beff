// RUN: gmx-run %s | FileCheck %s

// --gmx-lower-to-llvm also lowers TOSA (through upstream tosa-to-linalg):
// tosa.gather(values[N,K,C], indices[N,W]) -> [N,W,C].
// CHECK: array({{\[\[\[}}20, 21],
// CHECK-NEXT: [ 0,  1]],
// CHECK-EMPTY:
// CHECK-NEXT: {{\[\[}}32, 33],
// CHECK-NEXT: [32, 33]]], dtype=int32)
func.func @main() -> tensor<2x2x2xi32> {
  %v = arith.constant dense<[[[0, 1], [10, 11], [20, 21]], [[30, 31], [32, 33], [34, 35]]]> : tensor<2x3x2xi32>
  %i = arith.constant dense<[[2, 0], [1, 1]]> : tensor<2x2xi32>
  %0 = tosa.gather %v, %i : (tensor<2x3x2xi32>, tensor<2x2xi32>) -> tensor<2x2x2xi32>
  return %0 : tensor<2x2x2xi32>
}
