// RUN: gmx-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Attribute and type aliases at the top of a file stay outside the implicit
// module, as with mlir-opt: one op, several ops, an alias spanning lines.
// CHECK: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK: module {
// CHECK: func.func @one
// CHECK-SAME: tensor<4xf32>
// CHECK: indexing_maps = [#[[ID]], #[[ID]]]
#id = affine_map<(d0) -> (d0)>
!v = tensor<4xf32>
func.func @one(%x: !v) -> !v {
  %e = tensor.empty() : !v
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : !v) outs(%e : !v) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> !v
  return %0 : !v
}

// -----

// CHECK: module {
// CHECK: func.func @first
// CHECK: func.func @second
// CHECK-SAME: index
#strided = affine_map<(d0)
    -> (d0 * 2)>
!i = index
func.func @first() { return }
func.func @second(%a: !i) -> !i { return %a : !i }

// -----

// Diagnostics keep their lines below aliases, in a chunk of several ops.
#unused = affine_map<(d0) -> (d0)>
func.func @ok() { return }
func.func @bad(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'gmx.gather_multiaxis' op}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 5>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
