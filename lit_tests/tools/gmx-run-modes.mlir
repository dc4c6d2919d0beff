// RUN: gmx-run %s | FileCheck %s
// RUN: gmx-run %s --unchecked | FileCheck %s
// RUN: gmx-opt %s --gmx-lower-to-llvm | gmx-run - | FileCheck %s

// docs/semantics.md#out-of-range-modes: x = [10, 11, 12, 13, 14] at
// [-11, -6, -1, 5, 7, 12]; checked code reports none of these indices.
// CHECK: array([14., 14., 14., 10., 12., 12.], dtype=float32)
// CHECK-NEXT: array([10., 10., 10., 14., 14., 14.], dtype=float32)
// CHECK-NEXT: array([-1., -1., 14., -1., -1., -1.], dtype=float32)
func.func @main() -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %x = arith.constant dense<[10.0, 11.0, 12.0, 13.0, 14.0]> : tensor<5xf32>
  %i = arith.constant dense<[-11, -6, -1, 5, 7, 12]> : tensor<6xi64>
  %w = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "wrap"} : (tensor<5xf32>, tensor<6xi64>) -> tensor<6xf32>
  %c = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"} : (tensor<5xf32>, tensor<6xi64>) -> tensor<6xf32>
  %f = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = -1.0 : f32} : (tensor<5xf32>, tensor<6xi64>) -> tensor<6xf32>
  return %w, %c, %f : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
