// RUN: gmx-opt %s --split-input-file --convert-gmx-to-linalg | FileCheck %s
// RUN: gmx-opt %s --split-input-file --convert-gmx-to-linalg=checked=false | FileCheck %s --check-prefix=UNCHECKED
// RUN: gmx-opt %s --split-input-file --convert-gmx-to-linalg | FileCheck %s --check-prefix=FOLDED

// Each constant once per function, no arith op on constants alone.
// FOLDED-NOT: %{{c-?[0-9]+(_i[0-9]+)?|true|false}}_{{[0-9]+}} = arith.constant
// FOLDED-NOT: = arith.{{[a-z_]+}} {{([a-z]+, )?}}%{{(c-?[0-9]+(_i[0-9]+)?|true|false)(_[0-9]+)?}}{{(, %(c-?[0-9]+(_i[0-9]+)?|true|false)(_[0-9]+)?)*}} :

// torch.scatter along dim 1, checked: every index scanned (a flag per row)
// before any write; a bad one reported by the gather's cold path, and then
// the loops run no iteration (the result is the input, unwritten). The
// scatter: the rows split among the threads (each writes its own row:
// owner-computes), loops on the input itself, each index read once and
// skipped when outside its axis (not written).
// CHECK: module attributes {gmx.error_sites = ["{{.*}}convert-gmx-to-linalg-scatter.mlir:[[# @LINE + 33]]:8"]}
// CHECK-LABEL: func.func @scatter_rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x3xi64>, %[[U:.*]]: tensor<4x3xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[FLAGS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[I]] : tensor<4x3xi64>)
// CHECK: %[[ALL:.*]] = linalg.generic {{.*}} ins(%[[FLAGS]] : tensor<4xi1>)
// CHECK: %[[OK:.*]] = tensor.extract %[[ALL]][] : tensor<i1>
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %{{.*}} : i1
// CHECK: scf.if %[[BAD]] {
// CHECK: func.call @gmx_index_error
// CHECK: %[[ROWS:.*]] = arith.select %[[OK]], %[[C4]], %[[C0]] : index
// CHECK: %[[R:.*]] = scf.for %[[ROW:.*]] = %[[C0]] to %[[ROWS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[X]]) -> (tensor<4x8xf32>) {
// CHECK: scf.for %[[K:.*]] = %{{.*}} iter_args(%[[ACC2:.*]] = %[[ACC]])
// CHECK: %[[V:.*]] = tensor.extract %[[I]][%[[ROW]], %[[K]]] : tensor<4x3xi64>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[IN]] -> (tensor<4x8xf32>) {
// CHECK: %[[UPDATE:.*]] = tensor.extract %[[U]][%[[ROW]], %[[K]]] : tensor<4x3xf32>
// CHECK: tensor.insert %[[UPDATE]] into %[[ACC2]][%[[ROW]], %{{.*}}] : tensor<4x8xf32>
// CHECK: } else {
// CHECK: scf.yield %[[ACC2]] : tensor<4x8xf32>
// CHECK: } {gmx.parallel}
// CHECK: return %[[R]] : tensor<4x8xf32>

// Unchecked: no scan, no report; an index outside its axis is still skipped.
// UNCHECKED-LABEL: func.func @scatter_rows
// UNCHECKED-NOT: linalg.generic
// UNCHECKED-NOT: gmx_index_error
// UNCHECKED: scf.for {{.*}} iter_args(%{{.*}} = %arg0)
// UNCHECKED: arith.cmpi ult
// UNCHECKED: scf.if
// UNCHECKED: } {gmx.parallel}
func.func @scatter_rows(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>, %u: tensor<4x3xf32>) -> tensor<4x8xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 1>} : (tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// index_add of rows (the only extent outside the axis is the row payload,
// 64 entries): Targets, the input's rows cut into 2 ranges of 32 (one per
// 32 entries of payload), in parallel; each range reads every index and
// writes only the rows of its own, whole, in order.
// UNCHECKED-LABEL: func.func @index_add_rows
// UNCHECKED-SAME: (%[[X:.*]]: tensor<64x64xf32>, %[[I:.*]]: tensor<5x1xi32>, %[[U:.*]]: tensor<5x64xf32>)
// UNCHECKED-DAG: %[[C32:.*]] = arith.constant 32 : index
// UNCHECKED-DAG: %[[C64:.*]] = arith.constant 64 : index
// UNCHECKED: scf.for %[[START:.*]] = %{{.*}} to %[[C64]] step %[[C32]] iter_args(%{{.*}} = %[[X]])
// UNCHECKED: %[[END:.*]] = arith.addi %[[START]], %[[C32]] : index
// UNCHECKED: scf.for %[[N:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// UNCHECKED: %[[V:.*]] = tensor.extract %[[I]][%[[N]], %{{.*}}] : tensor<5x1xi32>
// UNCHECKED: arith.index_cast %[[V]] : i32 to index
// UNCHECKED: %[[FROM:.*]] = arith.cmpi uge, %[[P:.*]], %[[START]] : index
// UNCHECKED: %[[TO:.*]] = arith.cmpi ult, %[[P]], %[[END]] : index
// UNCHECKED: scf.if
// UNCHECKED: scf.for %[[COL:.*]] = %{{.*}} to %[[C64]] step %{{.*}} iter_args(%[[A:.*]] = %[[ACC]])
// UNCHECKED: %[[UPDATE:.*]] = tensor.extract %[[U]][%[[N]], %[[COL]]]
// UNCHECKED: %[[OLD:.*]] = tensor.extract %[[A]][%[[P]], %[[COL]]]
// UNCHECKED: %[[SUM:.*]] = arith.addf %[[OLD]], %[[UPDATE]] : f32
// UNCHECKED: tensor.insert %[[SUM]] into %[[A]][%[[P]], %[[COL]]]
// UNCHECKED: } {gmx.parallel}
func.func @index_add_rows(%x: tensor<64x64xf32>, %i: tensor<5x1xi32>, %u: tensor<5x64xf32>) -> tensor<64x64xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<64x64xf32>, tensor<5x1xi32>, tensor<5x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// index_add of rows with a 256-entry payload (256 x 256 updates, worth the
// threads): Targets, the input's rows cut into 8 ranges of 8 (one per 32
// entries of payload), sorted. The range
// of each index (position // 8, a bad one 0) into keys, in one parallel
// generic; a stable counting sort of the updates by range (count, prefix,
// place); then the ranges in parallel, each walking only its own updates,
// in row-major order, each index read again and written only if in the
// range, whole rows.
// UNCHECKED-LABEL: func.func @index_add_wide_rows
// UNCHECKED-SAME: (%[[X:.*]]: tensor<64x256xf32>, %[[I:.*]]: tensor<256x1xi32>, %[[U:.*]]: tensor<256x256xf32>)
// UNCHECKED-DAG: %[[C8:.*]] = arith.constant 8 : index
// UNCHECKED-DAG: %[[C256:.*]] = arith.constant 256 : index
// UNCHECKED: %[[KEYS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<256x1xi32>) outs(%{{.*}} : tensor<256x1xindex>)
// UNCHECKED: arith.divui %{{.*}}, %[[C8]] : index
// UNCHECKED: %[[KEY:.*]] = tensor.collapse_shape %[[KEYS]] {{\[\[}}0, 1]] : tensor<256x1xindex> into tensor<256xindex>
// UNCHECKED: %[[COUNTS:.*]] = scf.for %{{.*}} to %[[C256]] {{.*}} -> (tensor<8xindex>)
// UNCHECKED: %[[STARTS:.*]]:2 = scf.for %{{.*}} to %[[C8]] {{.*}} iter_args(%{{.*}} = %[[COUNTS]], {{.*}}) -> (tensor<8xindex>, index)
// UNCHECKED: %[[SORTED:.*]]:2 = scf.for %{{.*}} to %[[C256]] {{.*}} iter_args(%{{.*}} = %[[STARTS]]#0, {{.*}}) -> (tensor<8xindex>, tensor<256xindex>)
// UNCHECKED: scf.for %[[RANGE:.*]] = %{{.*}} to %[[C8]] step %{{.*}} iter_args(%{{.*}} = %[[X]])
// UNCHECKED: %[[START:.*]] = arith.muli %[[RANGE]], %[[C8]] : index
// UNCHECKED: %[[END:.*]] = arith.addi %[[START]], %[[C8]] : index
// UNCHECKED: %[[LAST:.*]] = tensor.extract %[[SORTED]]#0[%[[RANGE]]] : tensor<8xindex>
// UNCHECKED: scf.for %[[Q:.*]] = %{{.*}} to %[[LAST]] {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// UNCHECKED: %[[N:.*]] = tensor.extract %[[SORTED]]#1[%[[Q]]] : tensor<256xindex>
// UNCHECKED: %[[V:.*]] = tensor.extract %[[I]][%[[N]], %{{.*}}] : tensor<256x1xi32>
// UNCHECKED: arith.index_cast %[[V]] : i32 to index
// UNCHECKED: %[[FROM:.*]] = arith.cmpi uge, %[[P:.*]], %[[START]] : index
// UNCHECKED: %[[TO:.*]] = arith.cmpi ult, %[[P]], %[[END]] : index
// UNCHECKED: scf.if
// UNCHECKED: scf.for %[[COL:.*]] = %{{.*}} to %[[C256]] step %{{.*}} iter_args(%[[A:.*]] = %[[ACC]])
// UNCHECKED: %[[UPDATE:.*]] = tensor.extract %[[U]][%[[N]], %[[COL]]]
// UNCHECKED: %[[OLD:.*]] = tensor.extract %[[A]][%[[P]], %[[COL]]]
// UNCHECKED: %[[SUM:.*]] = arith.addf %[[OLD]], %[[UPDATE]] : f32
// UNCHECKED: tensor.insert %[[SUM]] into %[[A]][%[[P]], %[[COL]]]
// UNCHECKED: } {gmx.parallel}
func.func @index_add_wide_rows(%x: tensor<64x256xf32>, %i: tensor<256x1xi32>, %u: tensor<256x256xf32>) -> tensor<64x256xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<64x256xf32>, tensor<256x1xi32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// Checked, the same rows: every index scanned (and reported) before the
// sort; where one is bad, no range walks an update (the ranges loop keeps
// its static trip count: gmx-parallel-loops keeps it parallel).
// CHECK-LABEL: func.func @index_add_wide_rows_checked
// CHECK: %[[OK:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: scf.if
// CHECK: func.call @gmx_index_error
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<256x1xindex>)
// CHECK: scf.for %[[RANGE:.*]] = %{{.*}} to %c8 step
// CHECK: %[[FIRST:.*]] = arith.select %{{.*}}, %c0, %{{.*}} : index
// CHECK: %[[LAST:.*]] = tensor.extract %{{.*}}[%[[RANGE]]] : tensor<8xindex>
// CHECK: %[[END:.*]] = arith.select %[[OK]], %[[LAST]], %[[FIRST]] : index
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %[[END]] step
// CHECK: } {gmx.parallel}
func.func @index_add_wide_rows_checked(%x: tensor<64x256xf32>, %i: tensor<256x1xi32>, %u: tensor<256x256xf32>) -> tensor<64x256xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<64x256xf32>, tensor<256x1xi32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// The same wide rows with 16 updates (16 x 256 entries: too little work to
// wake threads for, and the ranges of a sort would run in parallel whatever
// their work): ranges that each read every index, no sort.
// UNCHECKED-LABEL: func.func @index_add_few_wide_rows
// UNCHECKED-NOT: xindex>
// UNCHECKED: scf.for %{{.*}} = %{{.*}} to %c64 step %c8
// UNCHECKED-NOT: xindex>
// UNCHECKED: } {gmx.parallel}
func.func @index_add_few_wide_rows(%x: tensor<64x256xf32>, %i: tensor<16x1xi32>, %u: tensor<16x256xf32>) -> tensor<64x256xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<64x256xf32>, tensor<16x1xi32>, tensor<16x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// Rows of a short payload (8 entries): reading the indices again would
// cost more than the threads give; one nest, in row-major order. i32
// products.
// UNCHECKED-LABEL: func.func @short_rows
// UNCHECKED: scf.for %[[N:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %arg0) -> (tensor<10x8xi32>) {
// UNCHECKED: tensor.extract %arg1[%[[N]], %{{.*}}] : tensor<5x1xi64>
// UNCHECKED: scf.if
// UNCHECKED: scf.for %[[COL:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[ACC]])
// UNCHECKED: %[[UPDATE:.*]] = tensor.extract %arg2[%[[N]], %[[COL]]]
// UNCHECKED: %[[OLD:.*]] = tensor.extract %[[A]][%[[P:.*]], %[[COL]]]
// UNCHECKED: arith.muli %[[OLD]], %[[UPDATE]] : i32
// UNCHECKED-NOT: gmx.parallel
// UNCHECKED: return
func.func @short_rows(%x: tensor<10x8xi32>, %i: tensor<5x1xi64>, %u: tensor<5x8xi32>) -> tensor<10x8xi32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "mul"} : (tensor<10x8xi32>, tensor<5x1xi64>, tensor<5x8xi32>) -> tensor<10x8xi32>
  return %r : tensor<10x8xi32>
}

// -----

// Rank 1: nothing owns its writes, one loop in row-major order (not
// parallel). "wrap" maps every index into the axis (a power of two: an
// and): no scan, no skip; the broadcast update read at 0; i8 max signed.
// CHECK-LABEL: func.func @serial_max
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[N:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %arg0) -> (tensor<8xi8>) {
// CHECK: %[[P:.*]] = arith.andi %{{.*}}, %{{.*}} : index
// CHECK-NOT: scf.if
// CHECK: %[[UPDATE:.*]] = tensor.extract %arg2[%{{.*}}] : tensor<1xi8>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[P]]] : tensor<8xi8>
// CHECK: %[[MAX:.*]] = arith.maxsi %[[OLD]], %[[UPDATE]] : i8
// CHECK: tensor.insert %[[MAX]] into %[[ACC]][%[[P]]] : tensor<8xi8>
// CHECK-NOT: gmx.parallel
// CHECK: return
func.func @serial_max(%x: tensor<8xi8>, %i: tensor<6xi64>, %u: tensor<1xi8>) -> tensor<8xi8> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "max", mode = "wrap"} : (tensor<8xi8>, tensor<6xi64>, tensor<1xi8>) -> tensor<8xi8>
  return %r : tensor<8xi8>
}

// -----

// "drop": no scan; an update outside the axis is skipped. Float min as
// np.minimum: the value there if less or NaN, else the update.
// CHECK-LABEL: func.func @drop_min
// CHECK-NOT: linalg.generic
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[IN]] -> (tensor<8xf32>) {
// CHECK: %[[UPDATE:.*]] = tensor.extract %arg2
// CHECK: %[[OLD:.*]] = tensor.extract
// CHECK: %[[LESS:.*]] = arith.cmpf olt, %[[OLD]], %[[UPDATE]] : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[OLD]], %[[OLD]] : f32
// CHECK: %[[KEEP:.*]] = arith.ori %[[LESS]], %[[NAN]] : i1
// CHECK: arith.select %[[KEEP]], %[[OLD]], %[[UPDATE]] : f32
func.func @drop_min(%x: tensor<8xf32>, %i: tensor<6xi64>, %u: tensor<6xf32>) -> tensor<8xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "min", mode = "drop"} : (tensor<8xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// "skip": as "drop", no scan, but a negative index is not wrapped: the value
// read is the position, and the unsigned test against the size skips a
// negative one as one past the end (StableHLO's rule).
// CHECK-LABEL: func.func @skip_add
// CHECK-NOT: linalg.generic
// CHECK: %[[V:.*]] = tensor.extract %arg1
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[P]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] -> (tensor<8xf32>) {
// CHECK: arith.addf
func.func @skip_add(%x: tensor<8xf32>, %i: tensor<6xi64>, %u: tensor<6xf32>) -> tensor<8xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add", mode = "skip"} : (tensor<8xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A read-only argument (an entry point's, not donated) is copied once into
// a tensor.empty that the loops then write: destination passing makes that
// empty the caller's result buffer. A writable one (donated) is the loops'
// own iter_arg (the cases above: no mark, in place where bufferization can).
// UNCHECKED-LABEL: func.func @read_only_input
// UNCHECKED: %[[E:.*]] = tensor.empty() : tensor<8x4xf32>
// UNCHECKED: %[[C:.*]] = linalg.copy ins(%arg0 : tensor<8x4xf32>) outs(%[[E]] : tensor<8x4xf32>)
// UNCHECKED: scf.for {{.*}} iter_args(%{{.*}} = %[[C]])
// UNCHECKED-LABEL: func.func @donated_input
// UNCHECKED-NOT: linalg.copy
// UNCHECKED: scf.for {{.*}} iter_args(%{{.*}} = %arg0)
func.func @read_only_input(%x: tensor<8x4xf32> {bufferization.writable = false}, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<8x4xf32> {
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
func.func @donated_input(%x: tensor<8x4xf32> {bufferization.writable = true}, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<8x4xf32> {
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Checked rows split on a read-only argument: the loops write the copy
// (the call's own buffer, dropped when a report makes it raise), so each
// tile is scattered as unchecked, the skip of a bad index also writing
// false into a flag of the tile's own (its branch is the only place a flag
// is written: nothing is computed for an index in range, and there is no
// pass of its own over the indices). The report scan runs only if a flag
// is false. A donated input whose indices are fewer bytes than it is
// (tiles_donated) is scanned first (nothing written on an error): the
// scan, then the loops. One whose indices are as many bytes or more
// (tiles_donated_saved) is checked tile by tile as the copy is, each tile
// first saving the row it writes into a buffer of the call's own
// (`saves_tiles`), from which a call with a bad index restores them all
// before it reports.
// CHECK-LABEL: func.func @tiles_read_only
// CHECK: %[[C:.*]] = linalg.copy ins(%arg0 : tensor<4x8xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[ALL:.*]] = linalg.fill ins(%true : i1) outs(%{{.*}} : tensor<4xi1>)
// CHECK-NEXT: %[[R:.*]]:2 = scf.for %[[ROW:.*]] = {{.*}} iter_args(%{{.*}} = %[[C]], %[[F:.*]] = %[[ALL]]) -> (tensor<4x8xf32>, tensor<4xi1>) {
// CHECK-NEXT: %[[W:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[G:.*]] = %[[F]]) -> (tensor<4x8xf32>, tensor<4xi1>) {
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] -> (tensor<4x8xf32>, tensor<4xi1>) {
// CHECK: tensor.insert {{.*}} : tensor<4x8xf32>
// CHECK-NEXT: scf.yield %{{.*}}, %[[G]] : tensor<4x8xf32>, tensor<4xi1>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[BAD:.*]] = tensor.insert %false into %[[G]][%[[ROW]]] : tensor<4xi1>
// CHECK-NEXT: scf.yield %{{.*}}, %[[BAD]] : tensor<4x8xf32>, tensor<4xi1>
// CHECK: scf.yield %[[W]]#0, %[[W]]#1 : tensor<4x8xf32>, tensor<4xi1>
// CHECK: } {gmx.parallel}
// CHECK: linalg.generic {{.*}} ins(%[[R]]#1 : tensor<4xi1>)
// CHECK: func.call @gmx_index_error
// CHECK: return %[[R]]#0 : tensor<4x8xf32>
// CHECK-LABEL: func.func @tiles_donated
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<4x3xi64>)
// CHECK: func.call @gmx_index_error
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg0) -> (tensor<4x8xf32>) {
// CHECK-NOT: tensor.extract_slice %arg1
// CHECK: } {gmx.parallel}
// CHECK-LABEL: func.func @tiles_donated_saved
// CHECK-NOT: linalg.generic
// CHECK: %[[ALL:.*]] = linalg.fill ins(%true : i1) outs(%{{.*}} : tensor<4xi1>)
// CHECK-NEXT: %[[EMPTY:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]]:3 = scf.for %[[ROW:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %arg0, %[[F:.*]] = %[[ALL]], %[[B:.*]] = %[[EMPTY]]) -> (tensor<4x8xf32>, tensor<4xi1>, tensor<4x8xf32>) {
// CHECK-NEXT: %[[OLD:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
// CHECK-NEXT: %[[SAVED:.*]] = tensor.insert_slice %[[OLD]] into %[[B]][%[[ROW]], 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<4x8xf32>
// CHECK-NEXT: %[[W:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[ACC]], %{{.*}} = %[[F]]) -> (tensor<4x8xf32>, tensor<4xi1>) {
// CHECK: tensor.insert %false into
// CHECK: scf.yield %[[W]]#0, %[[W]]#1, %[[SAVED]] : tensor<4x8xf32>, tensor<4xi1>, tensor<4x8xf32>
// CHECK-NEXT: } {gmx.parallel}
// CHECK: %[[OK:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK-NEXT: %[[OUT:.*]] = scf.if %[[OK]] -> (tensor<4x8xf32>) {
// CHECK-NEXT: scf.yield %[[R]]#0 : tensor<4x8xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[BACK:.*]] = linalg.copy ins(%[[R]]#2 : tensor<4x8xf32>) outs(%[[R]]#0 : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: scf.yield %[[BACK]] : tensor<4x8xf32>
// CHECK: func.call @gmx_index_error
// CHECK: return %[[OUT]] : tensor<4x8xf32>
func.func @tiles_read_only(%x: tensor<4x8xf32> {bufferization.writable = false}, %i: tensor<4x3xi64>, %u: tensor<4x3xf32>) -> tensor<4x8xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 1>, reduction = "max"} : (tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
func.func @tiles_donated(%x: tensor<4x8xf32> {bufferization.writable = true}, %i: tensor<4x3xi64>, %u: tensor<4x3xf32>) -> tensor<4x8xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 1>, reduction = "max"} : (tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
func.func @tiles_donated_saved(%x: tensor<4x8xf32> {bufferization.writable = true}, %i: tensor<4x8xi64>, %u: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 1>, reduction = "max"} : (tensor<4x8xf32>, tensor<4x8xi64>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
