// --gmx-canonicalize's inline option: calls are inlined first and the private
// functions left unused dropped (JAX's helpers hold its gathers' operands);
// inline=false leaves functions and calls as they are.
// RUN: gmx-opt %s --gmx-canonicalize | FileCheck %s
// RUN: gmx-opt %s --gmx-canonicalize=inline=false | FileCheck %s --check-prefix=CALLS
// fuse=false inlines nothing (the first stage of --gmx-lower-to-llvm).
// RUN: gmx-opt %s --gmx-canonicalize=fuse=false | FileCheck %s --check-prefix=CALLS

// CHECK-LABEL: func.func @embedding
// CHECK-NOT: call
// CHECK: "gmx.gather_multiaxis"
// CHECK-NOT: func.func private
// CALLS-LABEL: func.func @embedding
// CALLS: call @_take
// CALLS: func.func private @_take
// CALLS: "gmx.gather_multiaxis"
// CALLS: func.func private @_unused
func.func @embedding(%w: tensor<1x10x4xf32>, %i: tensor<1x3xi32>) -> tensor<1x3x4xf32> {
  %0 = call @_take(%w, %i) : (tensor<1x10x4xf32>, tensor<1x3xi32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}
func.func private @_take(%w: tensor<1x10x4xf32>, %i: tensor<1x3xi32>) -> tensor<1x3x4xf32> {
  %0 = tosa.gather %w, %i : (tensor<1x10x4xf32>, tensor<1x3xi32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}
func.func private @_unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
