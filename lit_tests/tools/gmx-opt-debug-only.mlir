// --debug-only=gmx-canonicalize says, on stderr, why each pattern did not
// match an op (the reason its `require` gives); without it, nothing.
// RUN: gmx-opt %s --gmx-canonicalize --debug-only=gmx-canonicalize 2>&1 >/dev/null | FileCheck %s
// RUN: gmx-opt %s --gmx-canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty

// A dynamic tosa.gather is raised, but nothing around it is fused:
// CHECK: gmx-opt-debug-only.mlir:[[# @LINE + 3]]:8: gmx-canonicalize: fold-input-reshape: no match: dynamic or empty shape
// QUIET-NOT: no match
func.func @dynamic_gather(%v: tensor<?x5x3xf32>, %i: tensor<?x4xi32>) -> tensor<?x4x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<?x5x3xf32>, tensor<?x4xi32>) -> tensor<?x4x3xf32>
  return %0 : tensor<?x4x3xf32>
}
