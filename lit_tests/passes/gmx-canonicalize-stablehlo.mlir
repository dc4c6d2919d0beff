// The StableHLO patterns of --gmx-canonicalize (passes/raising/stablehlo_gathers.py):
// raise-stablehlo-gather and raise-jax-fill-gather, positive and negative
// cases (the pattern is named in the comment above each function), JAX's
// private helpers inlined first.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// Every case compiles: the remaining StableHLO lowers with the gmx ops
// (stablehlo-legalize-to-linalg inside --gmx-lower-to-llvm).
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-lower-to-llvm | FileCheck %s --check-prefix=LLVM
// LLVM-NOT: {{= "?stablehlo\.}}
// LLVM-NOT: gmx.gather_multiaxis

// raise-stablehlo-gather: w[i] (torch-mlir's embedding), the index vector last.
// CHECK-LABEL: func.func @embedding
// CHECK-DAG: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xi64> into tensor<2x3x1xi64>
// CHECK-DAG: %[[W:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [10, 1, 4] : tensor<10x4xf32> into tensor<10x1x4xf32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %[[I]]) {axes = array<i64: 0>, mode = "clip"} : (tensor<10x1x4xf32>, tensor<2x3x1xi64>) -> tensor<2x3x4xf32>
// CHECK-NOT: stablehlo
// CHECK: return %[[G]]
func.func @embedding(%w: tensor<10x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = stablehlo.reshape %i : (tensor<2x3xi64>) -> tensor<2x3x1xi64>
  %1 = "stablehlo.gather"(%w, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<2x3x1xi64>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// raise-stablehlo-gather: torch.index_select(x, 1, i), offset dims around the batch dim.
// CHECK-LABEL: func.func @index_select
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1, 2]] output_shape [1, 7, 1] : tensor<7xi64> into tensor<1x7x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 1>, mode = "clip"} : (tensor<4x5x6xf32>, tensor<1x7x1xi64>) -> tensor<4x7x6xf32>
// CHECK: return %[[G]]
func.func @index_select(%x: tensor<4x5x6xf32>, %i: tensor<7xi64>) -> tensor<4x7x6xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 4, 1, 6>}> : (tensor<4x5x6xf32>, tensor<7xi64>) -> tensor<4x7x6xf32>
  return %0 : tensor<4x7x6xf32>
}

// -----

// raise-stablehlo-gather: x[i, :, j], two collapsed dims around an offset dim, a permuted start_index_map.
// CHECK-LABEL: func.func @advanced_permuted
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [2, 1, 2] : tensor<2x2xi32> into tensor<2x1x2xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 2, 0>, mode = "clip"} : (tensor<3x4x5xf32>, tensor<2x1x2xi32>) -> tensor<2x4x1xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<2x4x1xf32> into tensor<2x4xf32>
// CHECK: return %[[R]]
func.func @advanced_permuted(%x: tensor<3x4x5xf32>, %ji: tensor<2x2xi32>) -> tensor<2x4xf32> {
  %0 = "stablehlo.gather"(%x, %ji) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 2], start_index_map = [2, 0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4, 1>}> : (tensor<3x4x5xf32>, tensor<2x2xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// raise-stablehlo-gather: take_along_axis, a batching dim.
// CHECK-LABEL: func.func @batching
// CHECK: %[[I:.*]] = tensor.collapse_shape %arg1 {{\[}}[0], [1, 2]] : tensor<4x3x1xi32> into tensor<4x3xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 1>, mode = "clip"} : (tensor<4x6xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
// CHECK: return %[[G]]
func.func @batching(%x: tensor<4x6xf32>, %i: tensor<4x3x1xi32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>}> : (tensor<4x6xf32>, tensor<4x3x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// raise-stablehlo-gather: torch.gather(x, 1, i): the iota components become batching dims.
// CHECK-LABEL: func.func @iota_components
// CHECK-NOT: stablehlo
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>, mode = "clip"} : (tensor<4x5x6xf32>, tensor<4x3x6xi64>) -> tensor<4x3x6xf32>
// CHECK: return %[[G]]
func.func @iota_components(%x: tensor<4x5x6xf32>, %i: tensor<4x3x6xi64>) -> tensor<4x3x6xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<4x3x6x1xi64>
  %1 = stablehlo.reshape %i : (tensor<4x3x6xi64>) -> tensor<4x3x6x1xi64>
  %2 = stablehlo.iota dim = 2 : tensor<4x3x6x1xi64>
  %3 = stablehlo.concatenate %0, %1, %2, dim = 3 : (tensor<4x3x6x1xi64>, tensor<4x3x6x1xi64>, tensor<4x3x6x1xi64>) -> tensor<4x3x6x3xi64>
  %4 = "stablehlo.gather"(%x, %3) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<4x5x6xf32>, tensor<4x3x6x3xi64>) -> tensor<4x3x6xf32>
  return %4 : tensor<4x3x6xf32>
}

// -----

// raise-stablehlo-gather: a dynamic batch (torch-mlir's dynamic_iota and dynamic_reshape of the index).
// The iota over the `?` dim stays a coordinate (its size is not provably
// the operand's); the dynamic_reshape of the index is read as a view.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK: %[[IOTA:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 0 : (tensor<4xindex>) -> tensor<?x3x6x1xi64>
// CHECK: %[[D:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x3x6xi64>
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1], [2, 3]] output_shape [%[[D]], 3, 6, 1] : tensor<?x3x6xi64> into tensor<?x3x6x1xi64>
// CHECK: %[[C:.*]] = tensor.concat dim(3) %[[IOTA]], %[[E]] : (tensor<?x3x6x1xi64>, tensor<?x3x6x1xi64>) -> tensor<?x3x6x2xi64>
// CHECK: %[[I:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1], [2, 3]] : tensor<?x3x6x2xi64> into tensor<?x3x12xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0, 1>, mode = "clip"} : (tensor<?x5x6xf32>, tensor<?x3x12xi64>) -> tensor<?x3x6xf32>
// CHECK-NOT: stablehlo.dynamic_reshape
// CHECK: return %[[G]]
func.func @dynamic_batch(%x: tensor<?x5x6xf32>, %i: tensor<?x3x6xi64>) -> tensor<?x3x6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %dim = tensor.dim %i, %c0 : tensor<?x3x6xi64>
  %shape = tensor.from_elements %dim, %c3, %c6, %c1 : tensor<4xindex>
  %0 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<4xindex>) -> tensor<?x3x6x1xi64>
  %1 = stablehlo.dynamic_reshape %i, %shape : (tensor<?x3x6xi64>, tensor<4xindex>) -> tensor<?x3x6x1xi64>
  %2 = stablehlo.dynamic_iota %shape, dim = 2 : (tensor<4xindex>) -> tensor<?x3x6x1xi64>
  %3 = stablehlo.concatenate %0, %1, %2, dim = 3 : (tensor<?x3x6x1xi64>, tensor<?x3x6x1xi64>, tensor<?x3x6x1xi64>) -> tensor<?x3x6x3xi64>
  %4 = "stablehlo.gather"(%x, %3) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<?x5x6xf32>, tensor<?x3x6x3xi64>) -> tensor<?x3x6xf32>
  return %4 : tensor<?x3x6xf32>
}

// -----

// raise-stablehlo-gather, negative: a window of 2 columns stays.
// CHECK-LABEL: func.func @window
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: "stablehlo.gather"(%arg0, %arg1)
func.func @window(%x: tensor<4x6xf32>, %i: tensor<3x1xi32>) -> tensor<3x2xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<4x6xf32>, tensor<3x1xi32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// raise-stablehlo-gather, negative: the batching dims in the other order (a transpose) stay.
// CHECK-LABEL: func.func @transposed_batching
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: "stablehlo.gather"(%arg0, %arg1)
func.func @transposed_batching(%x: tensor<4x6xf32>, %i: tensor<6x1xi32>) -> tensor<6x1xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], operand_batching_dims = [1], start_indices_batching_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<4x6xf32>, tensor<6x1xi32>) -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// -----

// raise-jax-fill-gather: jnp.take(x, i, axis=1, mode="fill", fill_value=-7.5), inlined.
// CHECK-LABEL: func.func public @take_fill
// CHECK-NOT: call
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [1, 5] : tensor<5xi32> into tensor<1x5xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 1>, fill_value = -7.500000e+00 : f32, mode = "fill"} : (tensor<4x6xf32>, tensor<1x5xi32>) -> tensor<4x5xf32>
// CHECK-NOT: stablehlo
// CHECK: return %[[G]]
// CHECK-NOT: func.func private
func.func public @take_fill(%x: tensor<4x6xf32>, %i: tensor<5xi32>) -> tensor<4x5xf32> {
  %0 = call @_take(%x, %i) : (tensor<4x6xf32>, tensor<5xi32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
func.func private @_take(%x: tensor<4x6xf32>, %i: tensor<5xi32>) -> tensor<4x5xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %zeros = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<i32>) -> tensor<5xi32>
  %negative = stablehlo.compare LT, %i, %zeros, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
  %c6 = stablehlo.constant dense<6> : tensor<i32>
  %sixes = stablehlo.broadcast_in_dim %c6, dims = [] : (tensor<i32>) -> tensor<5xi32>
  %shifted = stablehlo.add %i, %sixes : tensor<5xi32>
  %wrapped = call @_where(%negative, %shifted, %i) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  %v = stablehlo.broadcast_in_dim %wrapped, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
  %c5 = stablehlo.constant dense<5> : tensor<1xi32>
  %z = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
  %ge = stablehlo.compare GE, %v, %z, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
  %u = stablehlo.broadcast_in_dim %c5, dims = [1] : (tensor<1xi32>) -> tensor<5x1xi32>
  %le = stablehlo.compare LE, %v, %u, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
  %both = stablehlo.and %ge, %le : tensor<5x1xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %ok = stablehlo.reduce(%both init: %true) applies stablehlo.and across dimensions = [1] : (tensor<5x1xi1>, tensor<i1>) -> tensor<5xi1>
  %g = "stablehlo.gather"(%x, %v) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 4, 1>}> : (tensor<4x6xf32>, tensor<5x1xi32>) -> tensor<4x5xf32>
  %mask = stablehlo.broadcast_in_dim %ok, dims = [1] : (tensor<5xi1>) -> tensor<4x5xi1>
  %cst = stablehlo.constant dense<-7.5> : tensor<f32>
  %fill = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
  %r = stablehlo.select %mask, %g, %fill : tensor<4x5xi1>, tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
func.func private @_where(%c: tensor<5xi1>, %a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi32> {
  %0 = stablehlo.select %c, %a, %b : tensor<5xi1>, tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// raise-jax-fill-gather, negative: the mask's bound is 4, not the last index 5: not gmx's fill.
// The gather alone is raised (clip), the select and its mask stay.
// CHECK-LABEL: func.func @fill_wrong_bound
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 1>, mode = "clip"}
// CHECK: stablehlo.select %{{.*}}, %[[G]], %{{.*}} : tensor<4x5xi1>, tensor<4x5xf32>
func.func @fill_wrong_bound(%x: tensor<4x6xf32>, %i: tensor<5xi32>) -> tensor<4x5xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %zeros = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<i32>) -> tensor<5xi32>
  %negative = stablehlo.compare LT, %i, %zeros, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
  %c6 = stablehlo.constant dense<6> : tensor<i32>
  %sixes = stablehlo.broadcast_in_dim %c6, dims = [] : (tensor<i32>) -> tensor<5xi32>
  %shifted = stablehlo.add %i, %sixes : tensor<5xi32>
  %wrapped = stablehlo.select %negative, %shifted, %i : tensor<5xi1>, tensor<5xi32>
  %v = stablehlo.broadcast_in_dim %wrapped, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %z = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
  %ge = stablehlo.compare GE, %v, %z, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
  %u = stablehlo.broadcast_in_dim %c4, dims = [1] : (tensor<1xi32>) -> tensor<5x1xi32>
  %le = stablehlo.compare LE, %v, %u, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
  %both = stablehlo.and %ge, %le : tensor<5x1xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %ok = stablehlo.reduce(%both init: %true) applies stablehlo.and across dimensions = [1] : (tensor<5x1xi1>, tensor<i1>) -> tensor<5xi1>
  %g = "stablehlo.gather"(%x, %v) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 4, 1>}> : (tensor<4x6xf32>, tensor<5x1xi32>) -> tensor<4x5xf32>
  %mask = stablehlo.broadcast_in_dim %ok, dims = [1] : (tensor<5xi1>) -> tensor<4x5xi1>
  %cst = stablehlo.constant dense<-7.5> : tensor<f32>
  %fill = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
  %r = stablehlo.select %mask, %g, %fill : tensor<4x5xi1>, tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// raise-jax-fill-gather, negative: no negative wrap before the gather (gmx's fill would wrap).
// CHECK-LABEL: func.func @fill_no_wrap
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 1>, mode = "clip"}
// CHECK: stablehlo.select %{{.*}}, %[[G]], %{{.*}} : tensor<4x5xi1>, tensor<4x5xf32>
func.func @fill_no_wrap(%x: tensor<4x6xf32>, %i: tensor<5xi32>) -> tensor<4x5xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %v = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
  %c5 = stablehlo.constant dense<5> : tensor<1xi32>
  %z = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
  %ge = stablehlo.compare GE, %v, %z, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
  %u = stablehlo.broadcast_in_dim %c5, dims = [1] : (tensor<1xi32>) -> tensor<5x1xi32>
  %le = stablehlo.compare LE, %v, %u, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
  %both = stablehlo.and %ge, %le : tensor<5x1xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %ok = stablehlo.reduce(%both init: %true) applies stablehlo.and across dimensions = [1] : (tensor<5x1xi1>, tensor<i1>) -> tensor<5xi1>
  %g = "stablehlo.gather"(%x, %v) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 4, 1>}> : (tensor<4x6xf32>, tensor<5x1xi32>) -> tensor<4x5xf32>
  %mask = stablehlo.broadcast_in_dim %ok, dims = [1] : (tensor<5xi1>) -> tensor<4x5xi1>
  %cst = stablehlo.constant dense<-7.5> : tensor<f32>
  %fill = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
  %r = stablehlo.select %mask, %g, %fill : tensor<4x5xi1>, tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// The folds of gmx ops leave a gather in mode clip alone: the reshape of its result stays.
// CHECK-LABEL: func.func @clip_not_folded
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0>, mode = "clip"} : (tensor<10x4xf32>, tensor<6x1xi64>) -> tensor<6x4xf32>
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
func.func @clip_not_folded(%x: tensor<10x4xf32>, %i: tensor<6x1xi64>) -> tensor<24xf32> {
  %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"} : (tensor<10x4xf32>, tensor<6x1xi64>) -> tensor<6x4xf32>
  %r = tensor.collapse_shape %g [[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
  return %r : tensor<24xf32>
}
