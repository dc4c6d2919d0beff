// RUN: gmx-opt %s --split-input-file --gmx-parallel-bodies | FileCheck %s

// The body of a 1-D scf.parallel becomes a private function after its
// function: the induction variable and the buffers it uses are arguments,
// constants are cloned in; the buffers' lowered pointers are listed as
// noalias (gmx.noalias_pointers: x at 1 and 2, y at 8 and 9).
// CHECK-LABEL: func.func @test_body
// CHECK-SAME: (%[[X:.*]]: memref<1024x256xf32>, %[[Y:.*]]: memref<1024x256xf32>)
// CHECK: scf.parallel (%[[R:.*]]) =
// CHECK-NEXT: func.call @test_body_parallel_0(%[[R]], %[[X]], %[[Y]]) : (index, memref<1024x256xf32>, memref<1024x256xf32>) -> ()
// CHECK-NEXT: scf.reduce
// CHECK: func.func private @test_body_parallel_0(%[[R2:.*]]: index, %[[X2:.*]]: memref<1024x256xf32>, %[[Y2:.*]]: memref<1024x256xf32>)
// CHECK-SAME: gmx.noalias_pointers = array<i64: 1, 2, 8, 9>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %[[C:.*]] = %[[C0]] to %[[C256]]
// CHECK: memref.load %[[X2]][%[[R2]], %[[C]]]
// CHECK: memref.store %{{.*}}, %[[Y2]][%[[R2]], %[[C]]]
// CHECK: return
func.func @test_body(%x: memref<1024x256xf32>, %y: memref<1024x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%r) = (%c0) to (%c1024) step (%c1) {
    scf.for %c = %c0 to %c256 step %c1 {
      %v = memref.load %x[%r, %c] : memref<1024x256xf32>
      memref.store %v, %y[%r, %c] : memref<1024x256xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Two views of one buffer are not noalias (only the other buffer is); a
// multi-dim scf.parallel (not yet through gmx-parallel-loops) is left alone.
// CHECK-LABEL: func.func @test_views_of_one_buffer
// CHECK: func.call @test_views_of_one_buffer_parallel_0
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-NOT: func.call
// CHECK: func.func private @test_views_of_one_buffer_parallel_0
// CHECK-SAME: gmx.noalias_pointers = array<i64: 15, 16>
func.func @test_views_of_one_buffer(%x: memref<1024x256xf32>, %y: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %a = memref.subview %x[0, 0] [512, 256] [1, 1] : memref<1024x256xf32> to memref<512x256xf32, strided<[256, 1]>>
  %b = memref.subview %x[512, 0] [512, 256] [1, 1] : memref<1024x256xf32> to memref<512x256xf32, strided<[256, 1], offset: 131072>>
  scf.parallel (%r) = (%c0) to (%c512) step (%c1) {
    %v = memref.load %a[%r, %c0] : memref<512x256xf32, strided<[256, 1]>>
    memref.store %v, %b[%r, %c0] : memref<512x256xf32, strided<[256, 1], offset: 131072>>
    memref.store %v, %y[%r] : memref<1024xf32>
    scf.reduce
  }
  scf.parallel (%r, %c) = (%c0, %c0) to (%c512, %c256) step (%c1, %c1) {
    %v = memref.load %a[%r, %c] : memref<512x256xf32, strided<[256, 1]>>
    scf.reduce
  }
  return
}
