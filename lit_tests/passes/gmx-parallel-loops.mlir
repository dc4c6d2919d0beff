// RUN: gmx-opt %s --split-input-file --gmx-parallel-loops | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-parallel-loops --gmx-parallel-loops | FileCheck %s

// A large 2-D parallel loop (convert-linalg-to-parallel-loops): its first dim
// stays parallel, the second becomes an scf.for inside it.
// CHECK-LABEL: func.func @test_outer_dim_parallel
// CHECK-SAME: (%[[X:.*]]: memref<1024x256xf32>, %[[Y:.*]]: memref<1024x256xf32>)
// CHECK: scf.parallel (%[[R:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%[[R]], %[[C]]]
// CHECK-NEXT: memref.store %[[V]], %[[Y]][%[[R]], %[[C]]]
// CHECK-NOT: scf.parallel
func.func @test_outer_dim_parallel(%x: memref<1024x256xf32>, %y: memref<1024x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%r, %c) = (%c0, %c0) to (%c1024, %c256) step (%c1, %c1) {
    %v = memref.load %x[%r, %c] : memref<1024x256xf32>
    memref.store %v, %y[%r, %c] : memref<1024x256xf32>
    scf.reduce
  }
  return
}

// -----

// A small loop is not worth the threads: it becomes scf.for loops.
// CHECK-LABEL: func.func @test_small_sequential
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load
func.func @test_small_sequential(%x: memref<4x3xf32>, %y: memref<4x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%r, %c) = (%c0, %c0) to (%c4, %c3) step (%c1, %c1) {
    %v = memref.load %x[%r, %c] : memref<4x3xf32>
    memref.store %v, %y[%r, %c] : memref<4x3xf32>
    scf.reduce
  }
  return
}

// -----

// An scf.for the gather builder marked gmx.parallel (row tiles) becomes an
// scf.parallel; a loop that reports (calls a function) stays sequential.
// CHECK-LABEL: func.func @test_marked_and_reporting
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: scf.for
// CHECK-NOT: gmx.parallel
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: func.call @report
// CHECK-NOT: scf.parallel
func.func private @report(i64)
func.func @test_marked_and_reporting(%x: memref<1024x256xf32>, %y: memref<1024x256xf32>, %i: memref<100000xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %c100000 = arith.constant 100000 : index
  scf.for %t = %c0 to %c1024 step %c32 {
    scf.for %j = %c0 to %c32 step %c1 {
      %r = arith.addi %t, %j : index
      scf.for %c = %c0 to %c256 step %c1 {
        %v = memref.load %x[%r, %c] : memref<1024x256xf32>
        memref.store %v, %y[%r, %c] : memref<1024x256xf32>
      }
    }
  } {gmx.parallel}
  scf.parallel (%k) = (%c0) to (%c100000) step (%c1) {
    %v = memref.load %i[%k] : memref<100000xi64>
    func.call @report(%v) : (i64) -> ()
    scf.reduce
  }
  return
}

// -----

// A loop of run-time size runs in parallel only when the run time finds it
// worth it: %n rows of 128 against 65536 / 128 = 512; else the same loop in
// sequence. A parallel loop nested in a kept one becomes scf.for.
// CHECK-LABEL: func.func @test_dynamic_and_nested
// CHECK-SAME: (%[[X:.*]]: memref<?x128xf32>, %[[N:.*]]: index)
// CHECK: %[[MIN:.*]] = arith.constant 512 : index
// CHECK-NEXT: %[[ENOUGH:.*]] = arith.cmpi sge, %[[N]], %[[MIN]] : index
// CHECK: scf.if %[[ENOUGH]] {
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[N]]) step (%{{.*}}) {
// CHECK-NEXT: scf.for
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT: scf.for
// CHECK: } {gmx.parallel_guard}
// CHECK-NOT: scf.parallel
func.func @test_dynamic_and_nested(%x: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%r) = (%c0) to (%n) step (%c1) {
    scf.parallel (%c) = (%c0) to (%c128) step (%c1) {
      memref.store %f, %x[%r, %c] : memref<?x128xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
