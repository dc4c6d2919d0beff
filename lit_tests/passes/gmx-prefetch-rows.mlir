// RUN: gmx-opt %s --split-input-file --gmx-prefetch-rows | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-prefetch-rows --gmx-prefetch-rows | FileCheck %s --check-prefix=TWICE

// A row chosen by an index (index_select after gmx-stream-row-copies): rows
// of 1 KiB, so the row 4 on (4 KiB ahead, clamped to the last row) has its
// index read and its line at the same column prefetched before each copy.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: memref<1000x256xf32>, %[[I:.*]]: memref<8192xi64>)
// CHECK-DAG: %[[AHEAD:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 8191 : index
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[THIS:.*]] = memref.load %[[I]][%[[R]]] : memref<8192xi64>
// CHECK: %[[ROW0:.*]] = arith.index_cast %[[THIS]] : i64 to index
// CHECK: %[[NEXT:.*]] = arith.addi %[[R]], %[[AHEAD]] : index
// CHECK: %[[LATER:.*]] = arith.minui %[[NEXT]], %[[LAST]] : index
// CHECK: %[[RAW:.*]] = memref.load %[[I]][%[[LATER]]] : memref<8192xi64>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK: memref.prefetch %[[X]][%[[ROW]], %[[C]]], read, locality<3>, data : memref<1000x256xf32>
// CHECK: vector.load %[[X]][%[[ROW0]], %[[C]]]
// TWICE-LABEL: func.func @rows
// TWICE-COUNT-1: memref.prefetch
// TWICE-NOT: memref.prefetch
// TWICE: return
func.func @rows(%x: memref<1000x256xf32>, %i: memref<8192xi64>) -> memref<8192x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %c8192 = arith.constant 8192 : index
  %out = memref.alloc() {alignment = 64 : i64} : memref<8192x256xf32>
  scf.for %r = %c0 to %c8192 step %c1 {
    scf.for %c = %c0 to %c256 step %c16 {
      %raw = memref.load %i[%r] : memref<8192xi64>
      %row = arith.index_cast %raw : i64 to index
      %v = vector.load %x[%row, %c] : memref<1000x256xf32>, vector<16xf32>
      vector.store %v, %out[%r, %c] {alignment = 64 : i64, nontemporal = true} : memref<8192x256xf32>, vector<16xf32>
    }
  }
  return %out : memref<8192x256xf32>
}

// -----

// Rows of 256 bytes, their index read in the row loop: 16 rows ahead, the
// index's computation (in the row loop's body) repeated for that row.
// TWICE-LABEL: func.func @short_rows
// CHECK-LABEL: func.func @short_rows
// CHECK-DAG: %[[AHEAD:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[R:.*]] =
// CHECK: %[[ROW0:.*]] = arith.index_cast
// CHECK: scf.for %[[C:.*]] =
// CHECK: %[[LATER:.*]] = arith.minui
// CHECK: %[[RAW:.*]] = memref.load %{{.*}}[%[[LATER]]] : memref<1024xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: memref.prefetch %{{.*}}[%[[ROW]], %[[C]]]
// CHECK: vector.load %{{.*}}[%[[ROW0]], %[[C]]]
func.func @short_rows(%x: memref<4096x64xf32>, %i: memref<1024xi32>, %out: memref<1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.for %r = %c0 to %c1024 step %c1 {
    %raw = memref.load %i[%r] : memref<1024xi32>
    %row = arith.index_cast %raw : i32 to index
    scf.for %c = %c0 to %c64 step %c16 {
      %v = vector.load %x[%row, %c] : memref<4096x64xf32>, vector<16xf32>
      vector.store %v, %out[%r, %c] : memref<1024x64xf32>, vector<16xf32>
    }
  }
  return
}

// -----

// Left alone: rows the hardware finds (the row is the loop's induction
// variable, read from no index), a row loop of dynamic bounds, a row loop of
// one row, and a load not at the inner loop's induction variable.
// CHECK-LABEL: func.func @negatives
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @negatives(%x: memref<1000x256xf32>, %i: memref<8192xindex>, %n: index, %out: memref<8192x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %c1000 = arith.constant 1000 : index
  scf.for %r = %c0 to %c1000 step %c1 {
    scf.for %c = %c0 to %c256 step %c16 {
      %v = vector.load %x[%r, %c] : memref<1000x256xf32>, vector<16xf32>
      vector.store %v, %out[%r, %c] : memref<8192x256xf32>, vector<16xf32>
    }
  }
  scf.for %r = %c0 to %n step %c1 {
    scf.for %c = %c0 to %c256 step %c16 {
      %row = memref.load %i[%r] : memref<8192xindex>
      %v = vector.load %x[%row, %c] : memref<1000x256xf32>, vector<16xf32>
      vector.store %v, %out[%r, %c] : memref<8192x256xf32>, vector<16xf32>
    }
  }
  scf.for %r = %c0 to %c1 step %c1 {
    scf.for %c = %c0 to %c256 step %c16 {
      %row = memref.load %i[%r] : memref<8192xindex>
      %v = vector.load %x[%row, %c] : memref<1000x256xf32>, vector<16xf32>
      vector.store %v, %out[%r, %c] : memref<8192x256xf32>, vector<16xf32>
    }
  }
  scf.for %r = %c0 to %c1000 step %c1 {
    scf.for %c = %c0 to %c256 step %c16 {
      %row = memref.load %i[%r] : memref<8192xindex>
      %v = vector.load %x[%row, %c0] : memref<1000x256xf32>, vector<16xf32>
      vector.store %v, %out[%r, %c] : memref<8192x256xf32>, vector<16xf32>
    }
  }
  return
}
