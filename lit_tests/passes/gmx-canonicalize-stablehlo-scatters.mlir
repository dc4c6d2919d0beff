// The StableHLO scatter patterns of --gmx-canonicalize (passes/raising/stablehlo_scatters.py):
// raise-stablehlo-scatter and raise-jax-clip-scatter, positive and negative
// cases (the pattern is named in the comment above each function).
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --debug-only=gmx-canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=WHY

// raise-stablehlo-scatter: torch-mlir's index_put(accumulate=True) / index_add, a window of whole rows and an
// add region; a negative index, which StableHLO skips, is skipped by gmx's mode "skip" (read as it is).
// CHECK-LABEL: func.func @index_put_accumulate
// CHECK-NOT: stablehlo.select
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[E]], %arg2) {axes = array<i64: 0>, mode = "skip", reduction = "add"} : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
// CHECK-NOT: stablehlo.scatter
// CHECK: return %[[S]]
func.func @index_put_accumulate(%x: tensor<5x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = stablehlo.reshape %i : (tensor<3xi64>) -> tensor<3x1xi64>
  %1 = "stablehlo.scatter"(%x, %0, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}

// -----

// raise-stablehlo-scatter: torch-mlir's scatter_add(0, i, u) on an index as large as x: the iota coordinate
// is a batching dim (no coordinate, never negative), the user's index the one axis.
// CHECK-LABEL: func.func @scatter_add_elementwise
// CHECK-NEXT: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 1>, mode = "skip", reduction = "add"} : (tensor<3x4xf32>, tensor<3x4xi64>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: stablehlo.iota
// CHECK: return %[[S]]
func.func @scatter_add_elementwise(%x: tensor<3x4xf32>, %i: tensor<3x4xi64>, %u: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<3x4x1xi64>
  %1 = stablehlo.reshape %i : (tensor<3x4xi64>) -> tensor<3x4x1xi64>
  %2 = stablehlo.concatenate %0, %1, dim = 2 : (tensor<3x4x1xi64>, tensor<3x4x1xi64>) -> tensor<3x4x2xi64>
  %3 = "stablehlo.scatter"(%x, %2, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %4 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %4 : tensor<f32>
  }) : (tensor<3x4xf32>, tensor<3x4x2xi64>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %3 : tensor<3x4xf32>
}

// -----

// raise-stablehlo-scatter: JAX's x.at[i].set(u, unique_indices=True): JAX's negative wrap is gmx's own
// (drop reads the index before it); the promise is kept.
// CHECK-LABEL: func.func @jax_at_set
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[E]], %arg2) {axes = array<i64: 0>, mode = "drop", unique_indices} : (tensor<6x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK-NOT: stablehlo.select
// CHECK: return %[[S]]
func.func @jax_at_set(%x: tensor<6x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xf32>) -> tensor<6x4xf32> {
  %c = stablehlo.constant dense<0> : tensor<i64>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3xi64>
  %1 = stablehlo.compare LT, %i, %0, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %c_0 = stablehlo.constant dense<6> : tensor<i64>
  %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<3xi64>
  %3 = stablehlo.add %i, %2 : tensor<3xi64>
  %4 = stablehlo.select %1, %3, %i : tensor<3xi1>, tensor<3xi64>
  %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xi64>) -> tensor<3x1xi64>
  %6 = "stablehlo.scatter"(%x, %5, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<6x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return %6 : tensor<6x4xf32>
}

// -----

// raise-stablehlo-scatter: one component JAX wrapped (read before its wrap, in mode "drop", which wraps it as
// JAX did) beside one that may be negative (StableHLO skips it; "drop" would wrap it: it is sent out of range).
// CHECK-LABEL: func.func @jax_beside_plain
// CHECK: %[[NEG:.*]] = stablehlo.compare LT, %{{.*}}, %{{.*}}, SIGNED
// CHECK: stablehlo.select %[[NEG]]
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %{{.*}}, %{{.*}}) {axes = array<i64: 0, 1>, mode = "drop"}
// CHECK: return %[[S]]
func.func @jax_beside_plain(%x: tensor<6x5xf32>, %i: tensor<3xi64>, %j: tensor<3xi64>, %u: tensor<3xf32>) -> tensor<6x5xf32> {
  %c = stablehlo.constant dense<0> : tensor<3xi64>
  %1 = stablehlo.compare LT, %i, %c, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %c_0 = stablehlo.constant dense<6> : tensor<3xi64>
  %3 = stablehlo.add %i, %c_0 : tensor<3xi64>
  %4 = stablehlo.select %1, %3, %i : tensor<3xi1>, tensor<3xi64>
  %5 = stablehlo.reshape %4 : (tensor<3xi64>) -> tensor<3x1xi64>
  %6 = stablehlo.reshape %j : (tensor<3xi64>) -> tensor<3x1xi64>
  %7 = stablehlo.concatenate %5, %6, dim = 1 : (tensor<3x1xi64>, tensor<3x1xi64>) -> tensor<3x2xi64>
  %8 = "stablehlo.scatter"(%x, %7, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<6x5xf32>, tensor<3x2xi64>, tensor<3xf32>) -> tensor<6x5xf32>
  return %8 : tensor<6x5xf32>
}

// -----

// raise-stablehlo-scatter: batching dims (vmap), a maximum region with its arguments swapped.
// CHECK-LABEL: func.func @batching_max
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %arg1 {{\[}}[0], [1, 2]] : tensor<6x2x1xi32> into tensor<6x2xi32>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[C]], %arg2) {axes = array<i64: 1>, mode = "skip", reduction = "max"} : (tensor<6x4xf32>, tensor<6x2xi32>, tensor<6x2xf32>) -> tensor<6x4xf32>
// CHECK: return %[[S]]
func.func @batching_max(%x: tensor<6x4xf32>, %i: tensor<6x2x1xi32>, %u: tensor<6x2xf32>) -> tensor<6x4xf32> {
  %2 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %3 = stablehlo.maximum %b, %a : tensor<f32>
    stablehlo.return %3 : tensor<f32>
  }) : (tensor<6x4xf32>, tensor<6x2x1xi32>, tensor<6x2xf32>) -> tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}

// -----

// raise-stablehlo-scatter: `or` on i1 is max; an iota index is never negative (mode "drop" reads it as "skip" would).
// CHECK-LABEL: func.func @bool_or
// CHECK-NOT: stablehlo.select
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %{{.*}}, %arg2) {axes = array<i64: 0>, mode = "drop", reduction = "max"} : (tensor<8xi1>, tensor<3xi32>, tensor<3xi1>) -> tensor<8xi1>
// CHECK: return %[[S]]
func.func @bool_or(%x: tensor<8xi1>, %i: tensor<3x1xi32>, %u: tensor<3xi1>) -> tensor<8xi1> {
  %0 = stablehlo.iota dim = 0 : tensor<3x1xi32>
  %1 = "stablehlo.scatter"(%x, %0, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<i1>, %b: tensor<i1>):
    %2 = stablehlo.or %a, %b : tensor<i1>
    stablehlo.return %2 : tensor<i1>
  }) : (tensor<8xi1>, tensor<3x1xi32>, tensor<3xi1>) -> tensor<8xi1>
  return %1 : tensor<8xi1>
}

// -----

// raise-stablehlo-scatter, negative: a window of the first 2 of 4 columns at each row (gmx has no windows).
// CHECK-LABEL: func.func @window
// CHECK: "stablehlo.scatter"
// CHECK-NOT: gmx.scatter_multiaxis
// WHY: raise-stablehlo-scatter: no match: operand dim 1: a slice of 2 of 4 (a window)
func.func @window(%x: tensor<6x4xf32>, %i: tensor<3x1xi32>, %u: tensor<3x2xf32>) -> tensor<6x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<6x4xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// raise-stablehlo-scatter, negative: a subtracting update computation (no gmx reduction).
// CHECK-LABEL: func.func @subtract
// CHECK: "stablehlo.scatter"
// CHECK-NOT: gmx.scatter_multiaxis
// WHY: raise-stablehlo-scatter: no match: an update computation by stablehlo.subtract (no gmx reduction)
func.func @subtract(%x: tensor<5x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %1 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}

// -----

// raise-stablehlo-scatter, negative: an update computation that keeps the current value.
// CHECK-LABEL: func.func @keeps_current
// CHECK: "stablehlo.scatter"
// CHECK-NOT: gmx.scatter_multiaxis
// WHY: raise-stablehlo-scatter: no match: an update computation that keeps the current value
func.func @keeps_current(%x: tensor<5x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %1 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}

// -----

// raise-stablehlo-scatter, negative: a variadic scatter (two inputs, two updates).
// CHECK-LABEL: func.func @variadic
// CHECK: "stablehlo.scatter"
// CHECK-NOT: gmx.scatter_multiaxis
// WHY: raise-stablehlo-scatter: no match: a variadic scatter (several inputs)
func.func @variadic(%x: tensor<5xf32>, %y: tensor<5xi32>, %i: tensor<3x1xi64>, %u: tensor<3xf32>, %v: tensor<3xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
  %1:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
    stablehlo.return %c, %d : tensor<f32>, tensor<i32>
  }) : (tensor<5xf32>, tensor<5xi32>, tensor<3x1xi64>, tensor<3xf32>, tensor<3xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  return %1#0, %1#1 : tensor<5xf32>, tensor<5xi32>
}

// -----

// raise-jax-clip-scatter: JAX's x.at[i].multiply(u, mode="clip"): the clamp into [0, 5] is mode "clip".
// CHECK-LABEL: func.func @jax_clip
// CHECK-NOT: stablehlo.clamp
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 0>, mode = "clip", reduction = "mul"} : (tensor<6x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK: return %[[S]]
func.func @jax_clip(%x: tensor<6x4xf32>, %i: tensor<3x1xi32>, %u: tensor<3x4xf32>) -> tensor<6x4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<3x1xi32>
  %c5 = stablehlo.constant dense<5> : tensor<1xi32>
  %hi = stablehlo.broadcast_in_dim %c5, dims = [1] : (tensor<1xi32>) -> tensor<3x1xi32>
  %k = stablehlo.clamp %c0, %i, %hi : tensor<3x1xi32>
  %0 = "stablehlo.scatter"(%x, %k, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<6x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// raise-jax-clip-scatter, negative: torch-mlir's embedding backward clamps into [-6, 5], not into the dim:
// the clamp stays, and raise-stablehlo-scatter skips what is still negative (mode "skip").
// CHECK-LABEL: func.func @torch_clamp
// CHECK: %[[K:.*]] = stablehlo.clamp
// CHECK-NOT: stablehlo.select
// CHECK: "gmx.scatter_multiaxis"(%arg0, %{{.*}}, %arg2) {axes = array<i64: 0>, mode = "skip", reduction = "add"}
func.func @torch_clamp(%x: tensor<6x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xf32>) -> tensor<6x4xf32> {
  %lo = stablehlo.constant dense<-6> : tensor<i64>
  %hi = stablehlo.constant dense<5> : tensor<i64>
  %k = stablehlo.clamp %lo, %i, %hi : (tensor<i64>, tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %r = stablehlo.reshape %k : (tensor<3xi64>) -> tensor<3x1xi64>
  %0 = "stablehlo.scatter"(%x, %r, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<6x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// raise-stablehlo-scatter: torch-mlir's x[i[:, None], arange(4), j[:, None]] = v: the arange is no coordinate
// (a batching dim, axes = [0, 2]) and the indices are read before their broadcast along it.
// CHECK-LABEL: func.func @broadcast_spelling
// CHECK-NOT: stablehlo.broadcast_in_dim
// CHECK-NOT: stablehlo.select
// CHECK-DAG: %[[I:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xi64> into tensor<4x1x1xi64>
// CHECK-DAG: %[[J:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xi64> into tensor<4x1x1xi64>
// CHECK: %[[IJ:.*]] = tensor.concat dim(2) %[[I]], %[[J]] : (tensor<4x1x1xi64>, tensor<4x1x1xi64>) -> tensor<4x1x2xi64>
// CHECK: %[[V:.*]] = tensor.expand_shape %arg3 {{\[}}[0], [1, 2]] output_shape [4, 4, 1] : tensor<4x4xf32> into tensor<4x4x1xf32>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[IJ]], %[[V]]) {axes = array<i64: 0, 2>, mode = "skip"} : (tensor<3x4x5xf32>, tensor<4x1x2xi64>, tensor<4x4x1xf32>) -> tensor<3x4x5xf32>
// CHECK: return %[[S]]
func.func @broadcast_spelling(%x: tensor<3x4x5xf32>, %i: tensor<4xi64>, %j: tensor<4xi64>, %v: tensor<4x4xf32>) -> tensor<3x4x5xf32> {
  %0 = stablehlo.reshape %i : (tensor<4xi64>) -> tensor<4x1xi64>
  %1 = stablehlo.iota dim = 0 : tensor<4xi64>
  %2 = stablehlo.reshape %j : (tensor<4xi64>) -> tensor<4x1xi64>
  %3 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<4x1xi64>) -> tensor<4x4xi64>
  %4 = stablehlo.reshape %3 : (tensor<4x4xi64>) -> tensor<4x4x1xi64>
  %5 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<4xi64>) -> tensor<4x4xi64>
  %6 = stablehlo.reshape %5 : (tensor<4x4xi64>) -> tensor<4x4x1xi64>
  %7 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<4x1xi64>) -> tensor<4x4xi64>
  %8 = stablehlo.reshape %7 : (tensor<4x4xi64>) -> tensor<4x4x1xi64>
  %9 = stablehlo.concatenate %4, %6, %8, dim = 2 : (tensor<4x4x1xi64>, tensor<4x4x1xi64>, tensor<4x4x1xi64>) -> tensor<4x4x3xi64>
  %10 = "stablehlo.scatter"(%x, %9, %v) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<3x4x5xf32>, tensor<4x4x3xi64>, tensor<4x4xf32>) -> tensor<3x4x5xf32>
  return %10 : tensor<3x4x5xf32>
}
