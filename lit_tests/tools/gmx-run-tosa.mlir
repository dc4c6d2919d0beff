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

// tosa.scatter(values[N,K,C], indices[N,W], input[N,W,C]): row W of input
// written at row indices[n, w] of values (through upstream tosa-to-scf).
// RUN: gmx-run %s -e scatter | FileCheck %s --check-prefix=SCATTER
// SCATTER: array({{\[\[\[}}0, 0],
// SCATTER-NEXT: [7, 8],
// SCATTER-NEXT: [0, 0],
// SCATTER-NEXT: [5, 6]]])
func.func @scatter() -> tensor<1x4x2xi64> {
  %v = arith.constant dense<0> : tensor<1x4x2xi64>
  %i = arith.constant dense<[[3, 1]]> : tensor<1x2xi32>
  %x = arith.constant dense<[[[5, 6], [7, 8]]]> : tensor<1x2x2xi64>
  %0 = tosa.scatter %v, %i, %x : (tensor<1x4x2xi64>, tensor<1x2xi32>, tensor<1x2x2xi64>) -> tensor<1x4x2xi64>
  return %0 : tensor<1x4x2xi64>
}

// tosa.erf (exact GELU) calls libm's erff.
// RUN: gmx-run %s -e erf | FileCheck %s --check-prefix=ERF
// ERF: array([-0.8427008,  0.       ,  0.5204999,  0.9953223], dtype=float32)
func.func @erf() -> tensor<4xf32> {
  %x = arith.constant dense<[-1.0, 0.0, 0.5, 2.0]> : tensor<4xf32>
  %0 = tosa.erf %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
