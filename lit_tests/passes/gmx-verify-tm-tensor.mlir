// torch-mlir's tm_tensor ops whose attributes do not fit their operands
// are located errors before anything lowers them (tm-tensor-to-loops
// crashed on them, or a scatter wrote past its rows); well-formed ones
// pass unchanged.
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --gmx-verify-tm-tensor | FileCheck %s
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --gmx-lower-to-llvm

func.func @scan_dimension_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %acc = tensor.empty() : tensor<2xf32>
  // expected-error@+1 {{'tm_tensor.scan' op dimension 7 is out of range for an operand of rank 2 (expected 0 <= dimension < 2)}}
  %r:2 = tm_tensor.scan dimension(7) inclusive(true) ins(%x : tensor<2x3xf32>) outs(%e, %acc : tensor<2x3xf32>, tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x3xf32>, tensor<2xf32>
  return %r#0 : tensor<2x3xf32>
}

// -----

func.func @scan_negative_dimension(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %acc = tensor.empty() : tensor<2xf32>
  // expected-error@+1 {{'tm_tensor.scan' op dimension -1 is out of range for an operand of rank 2}}
  %r:2 = tm_tensor.scan dimension(-1) inclusive(true) ins(%x : tensor<2x3xf32>) outs(%e, %acc : tensor<2x3xf32>, tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x3xf32>, tensor<2xf32>
  return %r#0 : tensor<2x3xf32>
}

// -----

// Both dims of a 3x5 tensor indexed, yet 3-element update rows: they
// would be written into the next row, or past the end of the buffer.
func.func @scatter_rows_longer_than_the_non_indexed_dims(%x: tensor<3x5xf32>, %u: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'tm_tensor.scatter' op expected update dim 1 (written along indexed dim 1 of the original) to have size 1, got 3}}
  %r = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%u, %i : tensor<2x3xf32>, tensor<2x2xi64>) outs(%x : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// The index on dim 1, which the updates' rows are written along: dim 0
// would have no position.
func.func @scatter_indexing_a_written_dim(%x: tensor<3x5xf32>, %u: tensor<2x3xf32>, %i: tensor<2x1xi64>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'tm_tensor.scatter' op dimension_map [1] must name the original's first 1 dims}}
  %r = tm_tensor.scatter {dimension_map = array<i64: 1>} unique_indices(false) ins(%u, %i : tensor<2x3xf32>, tensor<2x1xi64>) outs(%x : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// Well-formed ops pass as they are: torch-mlir's index_put (rows into a
// 6x5 tensor), a scan along the last dim.
// CHECK-LABEL: func.func @well_formed
func.func @well_formed(%x: tensor<6x5xf32>, %u: tensor<2x5xf32>, %i: tensor<2x1xi64>) -> (tensor<6x5xf32>, tensor<6x5xf32>) {
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%u, %i : tensor<2x5xf32>, tensor<2x1xi64>) outs(%x : tensor<6x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<6x5xf32>
  %e = tensor.empty() : tensor<6x5xf32>
  %acc = tensor.empty() : tensor<6xf32>
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<6x5xf32>) outs(%e, %acc : tensor<6x5xf32>, tensor<6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tm_tensor.yield %t : f32
  } -> tensor<6x5xf32>, tensor<6xf32>
  return %r, %s#0 : tensor<6x5xf32>, tensor<6x5xf32>
}

// -----

// torch-mlir's index_add / index_put in linalg-on-tensors: the slice as long
// as the original's rank, a unit dim over the indexed dim.
// CHECK-LABEL: func.func @torch_mlir_index_add
// CHECK: tm_tensor.scatter
func.func @torch_mlir_index_add(%x: tensor<7x3xf32>, %u: tensor<10x1x3xf32>, %i: tensor<10x1xi64>) -> tensor<7x3xf32> {
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%u, %i : tensor<10x1x3xf32>, tensor<10x1xi64>) outs(%x : tensor<7x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %b, %a : f32
    tm_tensor.yield %t : f32
  } -> tensor<7x3xf32>
  return %r : tensor<7x3xf32>
}
