// RUN: gmx-opt %s --split-input-file --convert-gmx-to-linalg | FileCheck %s
// RUN: gmx-opt %s --split-input-file --convert-gmx-to-linalg=checked=false | FileCheck %s --check-prefix=UNCHECKED
// RUN: gmx-opt %s --split-input-file --convert-gmx-to-linalg | FileCheck %s --check-prefix=FOLDED
// RUN: gmx-opt %s --split-input-file --convert-gmx-to-linalg=checked=false | FileCheck %s --check-prefix=FOLDED

// The pass alone emits folded IR, in every case below: each constant once
// per function (a second one would print as %c4_1), and no arith op whose
// operands are all constants (%c.., %true, %false).
// FOLDED-NOT: %{{c-?[0-9]+(_i[0-9]+)?|true|false}}_{{[0-9]+}} = arith.constant
// FOLDED-NOT: = arith.{{[a-z_]+}} {{([a-z]+, )?}}%{{(c-?[0-9]+(_i[0-9]+)?|true|false)(_[0-9]+)?}}{{(, %(c-?[0-9]+(_i[0-9]+)?|true|false)(_[0-9]+)?)*}} :

// Checked, elementwise (an index per output): one generic gathers, reading
// an index outside [-4, 4) as 0, and and-reduces whether all were in range
// (its loops are reductions for that flag); only if one was not, a scan
// reports each bad index, in index order.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK: module attributes {gmx.error_sites = ["{{.*}}convert-gmx-to-linalg.mlir:52:8"
// CHECK: func.func private @gmx_index_error(i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @test_gather_elements
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2x3xi64>)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C4_I64:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8_I64:.*]] = arith.constant 8 : i64
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$SCALAR]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME: ins(%[[I]] : tensor<2x3xi64>) outs(%[[EMPTY]], %[[INIT]] : tensor<2x3xf32>, tensor<i1>)
// CHECK: ^bb0(%{{.*}}: i64, %{{.*}}: f32, %[[ACC:.*]]: i1):
// CHECK: %[[WRAPPED:.*]] = arith.select
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[WRAPPED]], %[[C4]] : index
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[WRAPPED]], %[[C0]] : index
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[SAFE]], %{{.*}}] : tensor<4x3xf32>
// CHECK: %[[ALL:.*]] = arith.andi %[[ACC]], %[[IN]] : i1
// CHECK: linalg.yield %[[V]], %[[ALL]] : f32, i1
// CHECK: %[[OK:.*]] = tensor.extract %[[R]]#1[] : tensor<i1>
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK: scf.if %[[BAD]] {
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %[[C4_I64]] : i64
// CHECK: arith.cmpi uge, %[[SUM]], %[[C8_I64]] : i64
// CHECK: func.call @gmx_index_error
// CHECK: return %[[R]]#0
// UNCHECKED-LABEL: func.func @test_gather_elements
// UNCHECKED-NOT: scf.if
// UNCHECKED-NOT: func.call
// UNCHECKED-NOT: reduction
// UNCHECKED: tensor.extract
func.func @test_gather_elements(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Block gather (ONNX Gather): the unit indices dim is read at position 0,
// no broadcast of the indices is materialised. Checked, a row reads one
// index for many outputs: a branch-free scan of the indices (v + 4 <u 8)
// into a flag per row (parallel over the rows), their and; the cold path
// reports each bad index; then the gather, which reads each index once and
// makes the position it reads safe (a bad one, or one rewritten since the
// scan, is read as 0).
// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @test_block_gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2x1xi32>)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4_I64:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8_I64:.*]] = arith.constant 8 : i64
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<2xi1>)
// CHECK: %[[FLAGS:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[I]] : tensor<2x1xi32>) outs(%[[INIT]] : tensor<2xi1>)
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %[[C4_I64]] : i64
// CHECK: arith.cmpi ult, %[[SUM]], %[[C8_I64]] : i64
// CHECK-NOT: scf.if
// CHECK: iterator_types = ["reduction"]} ins(%[[FLAGS]] : tensor<2xi1>)
// CHECK: %[[OK:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK: scf.if %[[BAD]] {
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: scf.if
// CHECK: func.call @gmx_index_error
// CHECK: linalg.generic {indexing_maps = [#[[$BCAST]], #[[$ID]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[I]] : tensor<2x1xi32>) outs(%[[EMPTY]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[V:.*]]: i32, %{{.*}}: f32):
// CHECK-NOT: func.call
// CHECK: arith.index_cast %[[V]] : i32 to index
// CHECK: %[[CLAMPED:.*]] = arith.select %{{.*}}, %{{.*}}, %[[C0]] : index
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %[[X]][%[[CLAMPED]], %[[COL]]] : tensor<4x3xf32>
func.func @test_block_gather(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Non-contiguous, permuted axes [2, 0]: coordinate j of each tuple is read at
// d2 * 2 + j; the first coordinate indexes input dim 2, the second dim 0.
// CHECK-DAG: #[[$C0:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2 * 2)>
// CHECK-DAG: #[[$C1:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2 * 2 + 1)>
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @test_non_contiguous_axes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf16>, %[[I:.*]]: tensor<5x1x2xi8>)
// CHECK: linalg.generic {indexing_maps = [#[[$C0]], #[[$C1]], #[[$ID]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[I]], %[[I]] : tensor<5x1x2xi8>, tensor<5x1x2xi8>)
// CHECK: ^bb0(%[[A2:.*]]: i8, %[[A0:.*]]: i8, %{{.*}}: f16):
// CHECK: %[[MID:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %[[X]][%{{.*}}, %[[MID]], %{{.*}}] : tensor<2x3x4xf16>
func.func @test_non_contiguous_axes(%x: tensor<2x3x4xf16>, %i: tensor<5x1x2xi8>) -> tensor<5x3x1xf16> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 2, 0>} : (tensor<2x3x4xf16>, tensor<5x1x2xi8>) -> tensor<5x3x1xf16>
  return %0 : tensor<5x3x1xf16>
}

// -----

// A broadcast input dim (size 1) is read at position 0.
// CHECK-LABEL: func.func @test_broadcast_input
// CHECK-SAME: (%[[X:.*]]: tensor<1x5xi1>, %[[I:.*]]: tensor<3x2xi64>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: linalg.generic
// CHECK: tensor.extract %[[X]][%[[ZERO]], %{{.*}}] : tensor<1x5xi1>
func.func @test_broadcast_input(%x: tensor<1x5xi1>, %i: tensor<3x2xi64>) -> tensor<3x2xi1> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x5xi1>, tensor<3x2xi64>) -> tensor<3x2xi1>
  return %0 : tensor<3x2xi1>
}

// -----

// Dynamic dims that may broadcast at run time: sizes from tensor.dim, a
// run-time compatibility check guarding the generic, indices read with
// tensor.extract at position 0 when their run-time size is 1.
// CHECK-LABEL: func.func @test_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[I:.*]]: tensor<?x?xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[XD0:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x?xf32>
// CHECK-DAG: %[[ID0:.*]] = tensor.dim %[[I]], %[[C0]] : tensor<?x?xi64>
// CHECK-DAG: %[[X_IS_1:.*]] = arith.cmpi eq, %[[XD0]], %[[C1]] : index
// CHECK-DAG: %[[I_IS_1:.*]] = arith.cmpi eq, %[[ID0]], %[[C1]] : index
// CHECK-DAG: %[[SAME:.*]] = arith.cmpi eq, %[[XD0]], %[[ID0]] : index
// CHECK: func.call @gmx_shape_error
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<?x?xf32>) {
// CHECK: %[[FLAGS:.*]] = tensor.empty(%[[ID0]]) : tensor<?xi1>
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[I]] : tensor<?x?xi64>)
// CHECK: func.call @gmx_index_error
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<?x?xf32>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[IROW:.*]] = arith.select %[[I_IS_1]], %[[C0]], %[[ROW]] : index
// CHECK: tensor.extract %[[I]][%[[IROW]], %{{.*}}]
// CHECK: %[[XROW:.*]] = arith.select %[[X_IS_1]], %[[C0]], %[[ROW]] : index
// CHECK: tensor.extract %[[X]][%[[XROW]], %{{.*}}]
// CHECK: } else {
// CHECK: return %[[R]]
func.func @test_dynamic(%x: tensor<?x?xf32>, %i: tensor<?x?xi64>) -> tensor<?x?xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Rank 0: the gather is its input.
// CHECK-LABEL: func.func @test_rank0
// CHECK-SAME: (%[[X:.*]]: tensor<f32>, %{{.*}}: tensor<i64>)
// CHECK-NEXT: return %[[X]] : tensor<f32>
func.func @test_rank0(%x: tensor<f32>, %i: tensor<i64>) -> tensor<f32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64>} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Negative: no gather, nothing added.
// CHECK-LABEL: module {
// CHECK-NOT: gmx_index_error
// CHECK: func.func @test_no_gather
func.func @test_no_gather(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A static gather of many indices (64x1024 of them) is checked a tile of
// rows at a time (here 32 rows of 1024 indices, TILE_INDICES): the scan of a
// tile's indices and its gather read them while they are still in cache.
// The kept dim 0 of the input is read at the tile's first row plus the row
// in the tile. The tiles are independent (gmx.parallel: gmx-parallel-loops
// may run them on threads): each scans into its own flag, stored in its
// entry of the flags; the report scan runs after them, only if one is false.
// CHECK-LABEL: func.func @test_tiled
// CHECK-SAME: (%[[X:.*]]: tensor<64x50x8xf32>, %[[I:.*]]: tensor<64x1024x1xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[R:.*]]:2 = scf.for %[[ROW:.*]] = %[[C0]] to %[[C64]] step %[[C32]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[FLAGS:.*]] = %{{.*}}) -> (tensor<64x1024x8xf32>, tensor<2xi1>) {
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0, 0] [32, 1024, 8] [1, 1, 1]
// CHECK: %[[IDX:.*]] = tensor.extract_slice %[[I]][%[[ROW]], 0, 0] [32, 1024, 1] [1, 1, 1]
// CHECK: %[[SCAN:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction"]
// CHECK-SAME: ins(%[[IDX]] : tensor<32x1024x1xi64>)
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[OUT]] : tensor<32x1024x8xf32>)
// CHECK: %[[FIRST:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: tensor.extract %[[X]][%[[FIRST]], %{{.*}}, %{{.*}}] : tensor<64x50x8xf32>
// CHECK: %[[TILE:.*]] = arith.divui %[[ROW]], %[[C32]] : index
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][%[[ROW]], 0, 0] [32, 1024, 8] [1, 1, 1]
// CHECK: %[[OK:.*]] = tensor.extract %[[SCAN]][] : tensor<i1>
// CHECK: tensor.insert %[[OK]] into %[[FLAGS]][%[[TILE]]] : tensor<2xi1>
// CHECK: } {gmx.parallel}
// CHECK: iterator_types = ["reduction"]} ins(%[[R]]#1 : tensor<2xi1>)
// CHECK: scf.if
// CHECK: func.call @gmx_index_error
// CHECK: return %[[R]]#0
// UNCHECKED-LABEL: func.func @test_tiled
// UNCHECKED-NOT: scf.for
func.func @test_tiled(%x: tensor<64x50x8xf32>, %i: tensor<64x1024x1xi64>) -> tensor<64x1024x8xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<64x50x8xf32>, tensor<64x1024x1xi64>) -> tensor<64x1024x8xf32>
  return %0 : tensor<64x1024x8xf32>
}

// -----

// No row tiles for indices of one tile (32x1024 = TILE_INDICES), nor for a
// block gather of few indices and many outputs (index_select's 16384 rows of
// 256): the indices are scanned whole, the gather runs in one piece.
// CHECK-LABEL: func.func @test_one_tile
// CHECK-NOT: scf.for
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME: tensor<32x1024x1xi64>
// CHECK-NOT: scf.for
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: tensor<16384x1xi64>
// CHECK-NOT: scf.for
// CHECK: return
// UNCHECKED-LABEL: func.func @test_one_tile
// UNCHECKED-NOT: scf.for
func.func @test_one_tile(%x: tensor<32x50x8xf32>, %i: tensor<32x1024x1xi64>, %y: tensor<50000x256xf32>, %k: tensor<16384x1xi64>)
    -> (tensor<32x1024x8xf32>, tensor<16384x256xf32>) {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<32x50x8xf32>, tensor<32x1024x1xi64>) -> tensor<32x1024x8xf32>
  %1 = "gmx.gather_multiaxis"(%y, %k) {axes = array<i64: 0>} : (tensor<50000x256xf32>, tensor<16384x1xi64>) -> tensor<16384x256xf32>
  return %0, %1 : tensor<32x1024x8xf32>, tensor<16384x256xf32>
}

// -----

// Tuples of c = 2 coordinates: the scan views the indices as [.., L, 2] and
// picks each coordinate's axis and size by its position in the tuple
// (axis 2 of size 4 first, then axis 0 of size 2).
// CHECK-LABEL: func.func @test_scan_tuples
// CHECK-SAME: (%{{.*}}: tensor<2x3x4xf16>, %[[I:.*]]: tensor<2x1x4xi8>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[I]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 1, 2, 2] : tensor<2x1x4xi8> into tensor<2x1x2x2xi8>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[VIEW]] : tensor<2x1x2x2xi8>)
// CHECK: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[SECOND:.*]] = arith.cmpi eq, %[[J]], %[[C1]] : index
// CHECK: arith.select %[[SECOND]], %[[C2]], %[[C4]] : index
func.func @test_scan_tuples(%x: tensor<2x3x4xf16>, %i: tensor<2x1x4xi8>) -> tensor<2x3x2xf16> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 2, 0>} : (tensor<2x3x4xf16>, tensor<2x1x4xi8>) -> tensor<2x3x2xf16>
  return %0 : tensor<2x3x2xf16>
}

// -----

// x[i, :, j]: the kept dim 1 is read 32 elements apart, so the rows are
// sorted by the slab of x they read (a counting sort over 8 counters: count,
// starts, place), then each slab is read once, in tiles of 16 entries of
// dim 1 (a cache line of f32), copied to every row of its bucket in scalar
// loops LLVM must not turn into gathers and scatters. The slabs are
// independent (gmx.parallel): each starts its bucket where the previous one
// ends. Checked mode scans the indices first (a flag per row); checked or
// not, a bad index is read as 0 where the rows are sorted (each index is read
// once, there, so one rewritten since the scan never reads outside x).
// CHECK: #[[$NOUNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[$NOVECTOR:.*]] = #llvm.loop_vectorize<disable = true>
// CHECK: #[[$SCALAR_LOOP:.*]] = #llvm.loop_annotation<vectorize = #[[$NOVECTOR]], unroll = #[[$NOUNROLL]]>
// CHECK-LABEL: func.func @test_column_tiles
// CHECK-SAME: (%[[X:.*]]: tensor<8x64x32xf32>, %[[I:.*]]: tensor<4x1x2xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: iterator_types = ["parallel", "reduction", "reduction", "reduction"]
// CHECK: scf.if
// CHECK: %[[READS:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%[[I]], %[[I]] : tensor<4x1x2xi64>, tensor<4x1x2xi64>) outs(%{{.*}}, %{{.*}} : tensor<4x1x1xindex>, tensor<4x1x1xindex>)
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[WRAPPED:.*]], %[[C8]] : index
// CHECK: arith.select %[[IN]], %[[WRAPPED]], %[[C0]] : index
// CHECK: linalg.yield
// CHECK: %[[SLAB:.*]] = tensor.collapse_shape %[[READS]]#0 {{\[\[}}0, 1, 2]] : tensor<4x1x1xindex> into tensor<4xindex>
// CHECK: %[[COLUMN:.*]] = tensor.collapse_shape %[[READS]]#1 {{\[\[}}0, 1, 2]]
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%[[C0]] : index) outs(%{{.*}} : tensor<8xindex>)
// CHECK: %[[COUNTS:.*]] = scf.for %{{.*}} = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%{{.*}} = %[[ZEROS]]) -> (tensor<8xindex>)
// CHECK: %[[STARTS:.*]]:2 = scf.for %{{.*}} = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%{{.*}} = %[[COUNTS]], %{{.*}} = %[[C0]])
// CHECK: %[[SORTED:.*]]:2 = scf.for %{{.*}} = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%{{.*}} = %[[STARTS]]#0, %{{.*}} = %{{.*}}) -> (tensor<8xindex>, tensor<4xindex>)
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x64x1xf32> into tensor<4x64xf32>
// CHECK: %[[R:.*]] = scf.for %[[S:.*]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%{{.*}} = %[[ROWS]])
// CHECK: %[[END:.*]] = tensor.extract %[[SORTED]]#0[%[[S]]] : tensor<8xindex>
// CHECK: %[[ATLEAST1:.*]] = arith.maxsi %[[S]], %[[C1]] : index
// CHECK: %[[BEFORE:.*]] = arith.addi %[[ATLEAST1]], %{{.*}} : index
// CHECK: %[[PREVIOUS:.*]] = tensor.extract %[[SORTED]]#0[%[[BEFORE]]] : tensor<8xindex>
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[S]], %[[C0]] : index
// CHECK: %[[START:.*]] = arith.select %[[FIRST]], %[[C0]], %[[PREVIOUS]] : index
// CHECK: scf.for %[[TILE:.*]] = %[[C0]] to %[[C64]] step %[[C16]]
// CHECK: scf.for %[[Q:.*]] = %[[START]] to %[[END]] step %[[C1]]
// CHECK: %[[ROW:.*]] = tensor.extract %[[SORTED]]#1[%[[Q]]] : tensor<4xindex>
// CHECK: %[[COL:.*]] = tensor.extract %[[COLUMN]][%[[ROW]]] : tensor<4xindex>
// CHECK: scf.for %[[K:.*]] = %[[C0]] to %[[C16]] step %[[C1]]
// CHECK: %[[AT:.*]] = arith.addi %[[TILE]], %[[K]] : index
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[S]], %[[AT]], %[[COL]]] : tensor<8x64x32xf32>
// CHECK: tensor.insert %[[V]] into %{{.*}}[%[[ROW]], %[[AT]]] : tensor<4x64xf32>
// CHECK: } {loop_annotation = #[[$SCALAR_LOOP]]}
// CHECK: } {loop_annotation = #[[$SCALAR_LOOP]]}
// CHECK: } {gmx.parallel}
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0], [1, 2]] output_shape [4, 64, 1] : tensor<4x64xf32> into tensor<4x64x1xf32>
// UNCHECKED-LABEL: func.func @test_column_tiles
// UNCHECKED-NOT: scf.if
// UNCHECKED: linalg.generic
// UNCHECKED: arith.cmpi ult
// UNCHECKED: arith.select
// UNCHECKED: linalg.yield
// UNCHECKED: scf.for
func.func @test_column_tiles(%x: tensor<8x64x32xf32>, %i: tensor<4x1x2xi64>) -> tensor<4x64x1xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0, 2>} : (tensor<8x64x32xf32>, tensor<4x1x2xi64>) -> tensor<4x64x1xf32>
  return %0 : tensor<4x64x1xf32>
}

// -----

// No column tiles when the indices vary along the kept dim (rows share no
// input lines) or when it is read less than a cache line apart.
// CHECK-LABEL: func.func @test_no_column_tiles
// CHECK-NOT: scf.for
// CHECK: return
// UNCHECKED-LABEL: func.func @test_no_column_tiles
// UNCHECKED-NOT: scf.for
// UNCHECKED: return
func.func @test_no_column_tiles(%x: tensor<8x64x32xf32>, %i: tensor<4x64x2xi64>, %y: tensor<8x64x4xf32>, %k: tensor<4x1x2xi64>)
    -> (tensor<4x64x1xf32>, tensor<4x64x1xf32>) {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0, 2>} : (tensor<8x64x32xf32>, tensor<4x64x2xi64>) -> tensor<4x64x1xf32>
  %1 = "gmx.gather_multiaxis"(%y, %k) {axes = array<i64: 0, 2>} : (tensor<8x64x4xf32>, tensor<4x1x2xi64>) -> tensor<4x64x1xf32>
  return %0, %1 : tensor<4x64x1xf32>, tensor<4x64x1xf32>
}

// -----

// Indices narrowed by a cast (torch-mlir's i64 -> i32 before tosa.gather),
// here under an expand_shape, are read wide and truncated where they are
// read, in the scan and in the gather: no pass over them first. The view is
// rebuilt on the wide tensor (the cast and its view, now unused, stay for
// canonicalize to erase).
// CHECK-LABEL: func.func @test_narrowed_indices
// CHECK-SAME: (%{{.*}}: tensor<4x3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK: %[[WIDE:.*]] = tensor.expand_shape %[[I]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
// CHECK: ins(%[[WIDE]] : tensor<2x1xi64>)
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: scf.if
// CHECK: ins(%[[WIDE]] : tensor<2x1xi64>)
// CHECK: ^bb0(%[[V:.*]]: i64, %{{.*}}: f32):
// CHECK: arith.trunci %[[V]] : i64 to i32
// UNCHECKED-LABEL: func.func @test_narrowed_indices
// UNCHECKED: arith.trunci %{{.*}} : i64 to i32
func.func @test_narrowed_indices(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = tosa.cast %i : (tensor<2xi64>) -> tensor<2xi32>
  %1 = tensor.expand_shape %0 [[0, 1]] output_shape [2, 1] : tensor<2xi32> into tensor<2x1xi32>
  %2 = "gmx.gather_multiaxis"(%x, %1) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// A widening cast is not looked through: the gather reads what the cast made.
// CHECK-LABEL: func.func @test_widened_indices
// CHECK-NOT: arith.trunci
// CHECK: ins(%{{.*}} : tensor<2x1xi64>)
// CHECK: ^bb0(%{{.*}}: i64, %{{.*}}: f32):
// CHECK-NOT: arith.trunci
// CHECK: return
func.func @test_widened_indices(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %0 = tosa.cast %i : (tensor<2x1xi32>) -> tensor<2x1xi64>
  %1 = "gmx.gather_multiaxis"(%x, %0) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// mode = "wrap": floor modulo of the axis size (remsi, then + 5 where the
// remainder is negative). No index is an error: no scan, no report.
// CHECK-LABEL: func.func @test_mode_wrap
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x1xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NOT: reduction
// CHECK: ^bb0(%[[V:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[IDX:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[REM:.*]] = arith.remsi %[[IDX]], %[[C5]] : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[REM]], %[[C0]] : index
// CHECK: %[[UP:.*]] = arith.addi %[[REM]], %[[C5]] : index
// CHECK: %[[POS:.*]] = arith.select %[[NEG]], %[[UP]], %[[REM]] : index
// CHECK: tensor.extract %[[X]][%[[POS]], %{{.*}}] : tensor<5x3xf32>
// CHECK-NOT: func.call
// CHECK: return
// UNCHECKED-LABEL: func.func @test_mode_wrap
// UNCHECKED: arith.remsi
func.func @test_mode_wrap(%x: tensor<5x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "wrap"} : (tensor<5x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// mode = "wrap" on an axis of a power-of-two size: floor modulo is a mask.
// CHECK-LABEL: func.func @test_mode_wrap_power_of_two
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[IDX:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[POS:.*]] = arith.andi %[[IDX]], %[[C3]] : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[POS]]] : tensor<2x4xi8>
func.func @test_mode_wrap_power_of_two(%x: tensor<2x4xi8>, %i: tensor<2x3xi32>) -> tensor<2x3xi8> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>, mode = "wrap"} : (tensor<2x4xi8>, tensor<2x3xi32>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// mode = "clip": clamped to [0, 4], negatives to 0.
// CHECK-LABEL: func.func @test_mode_clip
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NOT: reduction
// CHECK: %[[IDX:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[LOW:.*]] = arith.maxsi %[[IDX]], %[[C0]] : index
// CHECK: %[[POS:.*]] = arith.minsi %[[LOW]], %[[C4]] : index
// CHECK: tensor.extract %{{.*}}[%[[POS]], %{{.*}}] : tensor<5x3xf32>
// CHECK-NOT: func.call
// CHECK: return
func.func @test_mode_clip(%x: tensor<5x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"} : (tensor<5x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// mode = "fill": a negative index wraps once; one still outside [0, 5) is
// read at 0 (never outside the input) and yields the fill value instead.
// CHECK-LABEL: func.func @test_mode_fill
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[FILL:.*]] = arith.constant -7.500000e+00 : f32
// CHECK-NOT: reduction
// CHECK: %[[IDX:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[IDX]], %[[C0]] : index
// CHECK: %[[UP:.*]] = arith.addi %[[IDX]], %[[C5]] : index
// CHECK: %[[WRAPPED:.*]] = arith.select %[[NEG]], %[[UP]], %[[IDX]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[WRAPPED]], %[[C5]] : index
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[WRAPPED]], %[[C0]] : index
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%[[SAFE]], %{{.*}}] : tensor<5x3xf32>
// CHECK: %[[R:.*]] = arith.select %[[IN]], %[[V]], %[[FILL]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK-NOT: func.call
// CHECK: return
// UNCHECKED-LABEL: func.func @test_mode_fill
// UNCHECKED: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @test_mode_fill(%x: tensor<5x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = -7.5 : f32} : (tensor<5x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// mode = "fill" on a tuple: the fill value unless every coordinate is in range.
// CHECK-LABEL: func.func @test_mode_fill_tuples
// CHECK-DAG: %[[FILL:.*]] = arith.constant -1 : i32
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: %[[V:.*]] = tensor.extract
// CHECK: %[[ALL:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK: arith.select %[[ALL]], %[[V]], %[[FILL]] : i32
func.func @test_mode_fill_tuples(%x: tensor<4x5x6xi32>, %i: tensor<3x1x2xi64>) -> tensor<3x5x1xi32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 2, 0>, mode = "fill", fill_value = -1 : i32} : (tensor<4x5x6xi32>, tensor<3x1x2xi64>) -> tensor<3x5x1xi32>
  return %0 : tensor<3x5x1xi32>
}

// -----

// mode = "fill" on an axis whose size is only known at run time: where it
// is 0, every index is outside it and the output is all fill values
// (nothing is read).
// CHECK-LABEL: func.func @test_mode_fill_dynamic_axis
// CHECK-DAG: %[[FILL:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[SIZE:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3xf32>
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[SIZE]], %{{.*}} : index
// CHECK: scf.if %[[EMPTY]] -> (tensor<2x3xf32>) {
// CHECK: linalg.fill ins(%[[FILL]] : f32)
// CHECK: } else {
// CHECK: tensor.extract
// CHECK-NOT: func.call
func.func @test_mode_fill_dynamic_axis(%x: tensor<?x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = 0.25 : f32} : (tensor<?x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// mode = "fill" on an axis of static size 0: the fill value everywhere.
// CHECK-LABEL: func.func @test_mode_fill_empty_axis
// CHECK: %[[R:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<2x3xi8>)
// CHECK-NOT: tensor.extract
// CHECK: return %[[R]]
func.func @test_mode_fill_empty_axis(%x: tensor<0x3xi8>, %i: tensor<2x1xi64>) -> tensor<2x3xi8> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = 9 : i8} : (tensor<0x3xi8>, tensor<2x1xi64>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// mode = "wrap" / "clip" on an axis that may be empty: an error where
// there are index values (nothing to map them into), before the gather.
// CHECK-LABEL: func.func @test_mode_wrap_dynamic_axis
// CHECK-DAG: %[[CM2:.*]] = arith.constant -2 : i64
// CHECK: %[[SIZE:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3xf32>
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ne, %[[SIZE]], %{{.*}} : index
// CHECK: %[[BAD:.*]] = arith.cmpi eq, %[[SIZE]], %{{.*}} : index
// CHECK: scf.if %[[BAD]] {
// CHECK: func.call @gmx_shape_error(%{{.*}}, %[[CM2]], %{{.*}}, %{{.*}})
// CHECK: scf.if %[[NONEMPTY]] -> (tensor<2x3xf32>) {
// CHECK: arith.remsi
func.func @test_mode_wrap_dynamic_axis(%x: tensor<?x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "wrap"} : (tensor<?x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
