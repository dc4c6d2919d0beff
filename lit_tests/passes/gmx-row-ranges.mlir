// RUN: gmx-opt %s --split-input-file --gmx-destination-passing --gmx-row-ranges | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-destination-passing --gmx-row-ranges=checked=false | FileCheck %s --check-prefix=UNCHECKED
// Idempotent: a function with row ranges is left alone.
// RUN: gmx-opt %s --split-input-file --gmx-destination-passing --gmx-row-ranges --gmx-row-ranges | FileCheck %s

// torch.gather (512 KiB of f32): rows [first, last) in tiles of 64 rows
// (32K outputs). Each tile slices the input and the wide indices, and
// narrows its slice only (the whole cast is left unused).
// CHECK-LABEL: func.func @gather_elements(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<256x512xf32>, %[[I:[a-z0-9]+]]: tensor<256x512xi64>, %[[OUT:[a-z0-9]+]]: tensor<256x512xf32> {bufferization.writable = true}, %[[FIRST:[a-z0-9]+]]: index, %[[LAST:[a-z0-9]+]]: index) -> tensor<256x512xf32>
// CHECK-SAME: gmx.row_ranges = array<i64: 256, 64>
// CHECK: %[[T:.*]] = arith.constant 64 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[R:.*]] = %[[FIRST]] to %[[LAST]] step %[[T]] iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[X]][%[[R]], 0] [64, 512] [1, 1]
// CHECK: %[[IS:.*]] = tensor.extract_slice %[[I]][%[[R]], 0] [64, 512] [1, 1]
// CHECK: %[[CS:.*]] = tosa.cast %[[IS]] : (tensor<64x512xi64>) -> tensor<64x512xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[XS]], %[[CS]]) {axes = array<i64: 1>} : (tensor<64x512xf32>, tensor<64x512xi32>) -> tensor<64x512xf32>
// CHECK: %[[U:.*]] = tensor.insert_slice %[[G]] into %[[ACC]][%[[R]], 0] [64, 512] [1, 1]
// CHECK: scf.yield %[[U]]
// CHECK: return %[[LOOP]]
func.func @gather_elements(%x: tensor<256x512xf32>, %i: tensor<256x512xi64>) -> tensor<256x512xf32> {
  %c = tosa.cast %i : (tensor<256x512xi64>) -> tensor<256x512xi32>
  %0 = "gmx.gather_multiaxis"(%x, %c) {axes = array<i64: 1>} : (tensor<256x512xf32>, tensor<256x512xi32>) -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// -----

// Index arithmetic (torch-mlir's for take_along_dim: elementwise TOSA ops,
// constants broadcast along the rows, tosa.mul's rank-1 shift) is replayed
// on each tile's rows, each value once, instead of computed whole per range.
// CHECK-LABEL: func.func @index_arithmetic(
// CHECK-SAME: gmx.row_ranges = array<i64: 256, 64>
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[IS:.*]] = tensor.extract_slice %arg1[%[[R]], 0] [64, 512] [1, 1] : tensor<256x512xi64> to tensor<64x512xi64>
// CHECK: %[[M:.*]] = tosa.mul %[[IS]], %{{.*}}, %{{.*}} : (tensor<64x512xi64>, tensor<1x1xi64>, tensor<1xi8>) -> tensor<64x512xi64>
// CHECK: %[[A:.*]] = tosa.add %[[M]], %[[IS]] : (tensor<64x512xi64>, tensor<64x512xi64>) -> tensor<64x512xi64>
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %[[A]])
// CHECK: scf.yield
func.func @index_arithmetic(%x: tensor<256x512xf32>, %i: tensor<256x512xi64>) -> tensor<256x512xf32> {
  %two = "tosa.const"() <{values = dense<2> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %i, %two, %shift : (tensor<256x512xi64>, tensor<1x1xi64>, tensor<1xi8>) -> tensor<256x512xi64>
  %a = tosa.add %m, %i : (tensor<256x512xi64>, tensor<256x512xi64>) -> tensor<256x512xi64>
  %0 = "gmx.gather_multiaxis"(%x, %a) {axes = array<i64: 1>} : (tensor<256x512xf32>, tensor<256x512xi64>) -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// -----

// x[i, :, j] with the result's unit dim collapsed away: the table is read
// whole (dim 0 is gathered), the index pairs are sliced (2 coordinates a
// row), the collapse is replayed on each tile; the mode is kept.
// CHECK-LABEL: func.func @advanced(
// CHECK-SAME: gmx.row_ranges = array<i64: 1024, 8>
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[IS:.*]] = tensor.extract_slice %{{.*}}[%[[R]], 0, 0] [8, 1, 2] [1, 1, 1]
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[IS]]) {axes = array<i64: 0, 2>, mode = "wrap"} : (tensor<64x4096x8xf32>, tensor<8x1x2xi32>) -> tensor<8x4096x1xf32>
// CHECK: %[[V:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<8x4096x1xf32> into tensor<8x4096xf32>
// CHECK: tensor.insert_slice %[[V]] into %[[ACC]][%[[R]], 0] [8, 4096] [1, 1]
func.func @advanced(%x: tensor<64x4096x8xf32>, %ij: tensor<1024x1x2xi32>) -> tensor<1024x4096xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %ij) {axes = array<i64: 0, 2>, mode = "wrap"} : (tensor<64x4096x8xf32>, tensor<1024x1x2xi32>) -> tensor<1024x4096x1xf32>
  %1 = tensor.collapse_shape %0 [[0], [1, 2]] : tensor<1024x4096x1xf32> into tensor<1024x4096xf32>
  return %1 : tensor<1024x4096xf32>
}

// -----

// index_select: indices viewed as [N, 1] under a narrowing cast; the slice
// is taken of the wide 1-D indices and both are replayed.
// CHECK-LABEL: func.func @index_select(
// CHECK-SAME: gmx.row_ranges = array<i64: 4096, 128>
// CHECK: %[[IS:.*]] = tensor.extract_slice %arg1[%{{.*}}] [128] [1] : tensor<4096xi64> to tensor<128xi64>
// CHECK: %[[CS:.*]] = tosa.cast %[[IS]] : (tensor<128xi64>) -> tensor<128xi32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[CS]] {{\[}}[0, 1]] output_shape [128, 1] : tensor<128xi32> into tensor<128x1xi32>
// CHECK: "gmx.gather_multiaxis"(%arg0, %[[E]]) {axes = array<i64: 0>} : (tensor<1000x256xf32>, tensor<128x1xi32>) -> tensor<128x256xf32>
func.func @index_select(%x: tensor<1000x256xf32>, %i: tensor<4096xi64>) -> tensor<4096x256xf32> {
  %c = tosa.cast %i : (tensor<4096xi64>) -> tensor<4096xi32>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [4096, 1] : tensor<4096xi32> into tensor<4096x1xi32>
  %0 = "gmx.gather_multiaxis"(%x, %e) {axes = array<i64: 0>} : (tensor<1000x256xf32>, tensor<4096x1xi32>) -> tensor<4096x256xf32>
  return %0 : tensor<4096x256xf32>
}

// -----

// Indices broadcast along the rows (ONNX Gather on axis 1): checked, every
// tile would check and report the same indices, so it is left alone;
// unchecked, the rows are split and each tile reads the indices whole.
// CHECK-LABEL: func.func @broadcast_indices(
// CHECK-NOT: gmx.row_ranges
// CHECK-NOT: scf.for
// CHECK: return
// UNCHECKED-LABEL: func.func @broadcast_indices(
// UNCHECKED-SAME: gmx.row_ranges = array<i64: 64, 1>
// UNCHECKED: scf.for
// UNCHECKED: "gmx.gather_multiaxis"(%{{.*}}, %arg1) {axes = array<i64: 1>} : (tensor<1x4096x64xf32>, tensor<1x1024x1xi64>) -> tensor<1x1024x64xf32>
func.func @broadcast_indices(%x: tensor<64x4096x64xf32>, %i: tensor<1x1024x1xi64>) -> tensor<64x1024x64xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<64x4096x64xf32>, tensor<1x1024x1xi64>) -> tensor<64x1024x64xf32>
  return %0 : tensor<64x1024x64xf32>
}

// -----

// Shared indices in a mode that reports nothing (clip): split, checked too.
// CHECK-LABEL: func.func @broadcast_indices_clipped(
// CHECK-SAME: gmx.row_ranges = array<i64: 64, 1>
// CHECK: "gmx.gather_multiaxis"(%{{.*}}, %arg1) {axes = array<i64: 1>, mode = "clip"}
func.func @broadcast_indices_clipped(%x: tensor<64x4096x64xf32>, %i: tensor<1x1024x1xi64>) -> tensor<64x1024x64xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>, mode = "clip"} : (tensor<64x4096x64xf32>, tensor<1x1024x1xi64>) -> tensor<64x1024x64xf32>
  return %0 : tensor<64x1024x64xf32>
}

// -----

// Left alone: a gather in column tiles (x[i, :, j] reading 64 floats
// apart: every column tile reads the lines all 1024 pairs share, which
// tiles of rows would read once per tile), a small output (under 512 KiB),
// a result that is no gather, two results, and a function without
// destinations (dynamic).
// CHECK-LABEL: func.func @column_tiles(
// CHECK-NOT: gmx.row_ranges
// CHECK-LABEL: func.func @small(
// CHECK-NOT: gmx.row_ranges
// CHECK-LABEL: func.func @no_gather(
// CHECK-NOT: gmx.row_ranges
// CHECK-LABEL: func.func @two_results(
// CHECK-NOT: gmx.row_ranges
// CHECK-LABEL: func.func @dynamic(
// CHECK-NOT: gmx.row_ranges
// CHECK: return
func.func @column_tiles(%x: tensor<64x4096x64xf32>, %ij: tensor<1024x1x2xi32>) -> tensor<1024x4096x1xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %ij) {axes = array<i64: 0, 2>} : (tensor<64x4096x64xf32>, tensor<1024x1x2xi32>) -> tensor<1024x4096x1xf32>
  return %0 : tensor<1024x4096x1xf32>
}
func.func @small(%x: tensor<256x64xf32>, %i: tensor<256x64xi64>) -> tensor<256x64xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<256x64xf32>, tensor<256x64xi64>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
func.func @no_gather(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  return %x : tensor<256x512xf32>
}
func.func @two_results(%x: tensor<256x512xf32>, %i: tensor<256x512xi64>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<256x512xf32>, tensor<256x512xi64>) -> tensor<256x512xf32>
  return %0, %0 : tensor<256x512xf32>, tensor<256x512xf32>
}
func.func @dynamic(%x: tensor<?x512xf32>, %i: tensor<?x512xi64>) -> tensor<?x512xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<?x512xf32>, tensor<?x512xi64>) -> tensor<?x512xf32>
  return %0 : tensor<?x512xf32>
}
