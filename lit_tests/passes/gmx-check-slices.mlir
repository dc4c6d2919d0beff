// RUN: gmx-opt %s --split-input-file --gmx-check-slices | FileCheck %s

// A KV-cache update at a position read from the data: the insert (and the
// rest of its block) runs only when the position is inside dim 1 (16);
// else the runtime is told the site, the dim, the position and the size.
// CHECK-LABEL: module attributes {gmx.error_sites = ["{{.*}}gmx-check-slices.mlir:[[# @LINE + 17]]:8"]}
// CHECK-LABEL: func.func @test_insert_slice
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[SITE:.*]] = arith.constant 0 : i64
// CHECK: %[[POS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[P64:.*]] = arith.index_cast %[[POS]] : index to i64
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[P64]], %[[C16]] : i64
// CHECK: %[[R:.*]] = scf.if %[[OK]] -> (tensor<2x16x4xf32>) {
// CHECK: %[[S:.*]] = tensor.insert_slice %arg1 into %arg0[0, %[[POS]], 0] [2, 1, 4] [1, 1, 1]
// CHECK: scf.yield %[[S]] : tensor<2x16x4xf32>
// CHECK: } else {
// CHECK: func.call @gmx_index_error(%[[SITE]], %[[C1]], %[[P64]], %[[C16]])
// CHECK: return %[[R]]
func.func @test_insert_slice(%cache: tensor<2x16x4xf32>, %tok: tensor<2x1x4xf32>, %p: tensor<i64>) -> tensor<2x16x4xf32> {
  %pi = tensor.extract %p[] : tensor<i64>
  %pos = arith.index_cast %pi : i64 to index
  %r = tensor.insert_slice %tok into %cache[0, %pos, 0] [2, 1, 4] [1, 1, 1] : tensor<2x1x4xf32> into tensor<2x16x4xf32>
  return %r : tensor<2x16x4xf32>
}

// -----

// A slice of data-dependent offset and size out of a dim of run-time
// size: the offset is inside, the size positive and its span fits the
// room after the offset (divided by the stride: no overflow), or the slice
// is empty and starts at most at the end; the value reported is the
// offset when it is outside, else the last index the slice reaches.
// CHECK-LABEL: func.func @test_extract_slice
// CHECK: %[[DIM:.*]] = tensor.dim %arg0
// CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[O:.*]] = arith.index_cast %arg1 : index to i64
// CHECK: %[[S:.*]] = arith.index_cast %arg2 : index to i64
// CHECK: %[[START:.*]] = arith.cmpi ult, %[[O]], %[[N]] : i64
// CHECK: %[[STEPS:.*]] = arith.addi %[[S]], %{{.*}} : i64
// CHECK: %[[LAST:.*]] = arith.addi %[[O]], %[[STEPS]] : i64
// CHECK: arith.cmpi sge, %[[S]], %{{.*}} : i64
// CHECK: arith.muli %[[O]], %{{.*}} : i64
// CHECK-NEXT: %[[ROOM:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: arith.cmpi ule, %[[STEPS]], %[[ROOM]] : i64
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[S]], %{{.*}} : i64
// CHECK: arith.cmpi ule, %[[O]], %[[N]] : i64
// CHECK: %[[OK:.*]] = arith.select %[[EMPTY]]
// CHECK: %[[VALUE:.*]] = arith.select %[[START]], %[[LAST]], %[[O]] : i64
// CHECK: scf.if %[[OK]] -> (tensor<?xf32>) {
// CHECK: tensor.extract_slice %arg0[%arg1] [%arg2] [1]
// CHECK: } else {
// CHECK: func.call @gmx_index_error(%{{.*}}, %{{.*}}, %[[VALUE]], %[[N]])
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
func.func @test_extract_slice(%x: tensor<?xf32>, %o: index, %s: index) -> tensor<?xf32> {
  %0 = tensor.extract_slice %x[%o] [%s] [1] : tensor<?xf32> to tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// An element at a data index: checked as a gather's index is; constant
// indices into static dims are not.
// CHECK-LABEL: func.func @test_extract
// CHECK: %[[I:.*]] = arith.index_cast %arg1 : index to i64
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : i64
// CHECK: scf.if %[[OK]] -> (f32) {
// CHECK: tensor.extract %arg0[%{{.*}}, %arg1]
// CHECK: } else {
// CHECK: func.call @gmx_index_error(%{{.*}}, %{{.*}}, %[[I]], %{{.*}})
func.func @test_extract(%x: tensor<3x5xf32>, %i: index) -> f32 {
  %c1 = arith.constant 1 : index
  %0 = tensor.extract %x[%c1, %i] : tensor<3x5xf32>
  return %0 : f32
}

// -----

// Negative: static slices and constant indices are the verifier's; a
// tensor.extract in a linalg body (per element) is not checked here.
// CHECK-LABEL: func.func @test_static
// CHECK-NOT: scf.if
// CHECK-NOT: gmx_index_error
// CHECK: return
func.func @test_static(%x: tensor<3x5xf32>, %i: tensor<2xindex>) -> (tensor<2x5xf32>, f32, tensor<2xf32>) {
  %c1 = arith.constant 1 : index
  %0 = tensor.extract_slice %x[1, 0] [2, 5] [1, 1] : tensor<3x5xf32> to tensor<2x5xf32>
  %1 = tensor.extract %x[%c1, %c1] : tensor<3x5xf32>
  %e = tensor.empty() : tensor<2xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<2xindex>) outs(%e : tensor<2xf32>) {
  ^bb0(%j: index, %o: f32):
    %v = tensor.extract %x[%c1, %j] : tensor<3x5xf32>
    linalg.yield %v : f32
  } -> tensor<2xf32>
  return %0, %1, %2 : tensor<2x5xf32>, f32, tensor<2xf32>
}

// -----

// A loop carrying a donated argument (gmx.donations) around a checked
// insert starts from a copy of it: a later iteration's failure finds the
// argument as the caller gave it.
// CHECK-LABEL: func.func @test_donated_loop
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<16x4xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[COPY]])
// CHECK: scf.if
// CHECK: tensor.insert_slice %arg1 into %[[ACC]]
// CHECK: } else {
// CHECK: func.call @gmx_index_error
// CHECK: scf.yield %[[ACC]] : tensor<16x4xf32>
func.func @test_donated_loop(%cache: tensor<16x4xf32>, %tok: tensor<1x4xf32>, %start: index) -> tensor<16x4xf32>
    attributes {gmx.donations = array<i64: 0>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %cache) -> tensor<16x4xf32> {
    %pos = arith.addi %start, %k : index
    %u = tensor.insert_slice %tok into %acc[%pos, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<16x4xf32>
    scf.yield %u : tensor<16x4xf32>
  }
  return %r : tensor<16x4xf32>
}

// -----

// Negative: not donated, the loop carries the argument itself.
// CHECK-LABEL: func.func @test_loop
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %arg0)
func.func @test_loop(%cache: tensor<16x4xf32>, %tok: tensor<1x4xf32>, %start: index) -> tensor<16x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %cache) -> tensor<16x4xf32> {
    %pos = arith.addi %start, %k : index
    %u = tensor.insert_slice %tok into %acc[%pos, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<16x4xf32>
    scf.yield %u : tensor<16x4xf32>
  }
  return %r : tensor<16x4xf32>
}

// -----

// A program written at the memref level: a store at a position read from
// the data is checked as a tensor.insert is (it and the rest of its block
// run only inside the memref, nothing written outside); the loads of the
// loop's induction variable, proven inside dim 0 (4), are not.
// CHECK-LABEL: module attributes {gmx.error_sites = ["{{.*}}gmx-check-slices.mlir:[[# @LINE + 21]]:5"]}
// CHECK-LABEL: func.func @test_memref_store
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[V:.*]] = tensor.extract %arg0[%[[K]]] : tensor<4xf32>
// CHECK-NEXT: %[[Q:.*]] = tensor.extract %arg1[%[[K]]] : tensor<4xi64>
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[Q]] : i64 to index
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[I64]], %[[C16:.*]] : i64
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[I]]] : memref<16xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: func.call @gmx_index_error(%{{.*}}, %{{.*}}, %[[I64]], %[[C16]])
func.func @test_memref_store(%x: tensor<4xf32>, %p: tensor<4xi64>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.alloc() : memref<16xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %v = tensor.extract %x[%k] : tensor<4xf32>
    %q = tensor.extract %p[%k] : tensor<4xi64>
    %i = arith.index_cast %q : i64 to index
    memref.store %v, %m[%i] : memref<16xf32>
  }
  %r = bufferization.to_tensor %m restrict : memref<16xf32> to tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A load from an argument's buffer at the data's indices: each dim
// checked, a dynamic one against its memref.dim; the load and the rest of
// its block run only when both hold, each failing dim reported.
// CHECK-LABEL: func.func @test_memref_load
// CHECK: %[[M:.*]] = bufferization.to_buffer %arg0
// CHECK: %[[DIM:.*]] = memref.dim %[[M]], %{{.*}} : memref<?x8xf32>
// CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[I:.*]] = arith.index_cast %arg1 : index to i64
// CHECK: arith.cmpi ult, %[[I]], %[[N]] : i64
// CHECK: %[[J:.*]] = arith.index_cast %arg2 : index to i64
// CHECK: arith.cmpi ult, %[[J]], %[[C8:.*]] : i64
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[M]][%arg1, %arg2] : memref<?x8xf32>
// CHECK-NEXT: %[[W:.*]] = arith.addf %[[V]], %[[V]] : f32
// CHECK-NEXT: scf.yield %[[W]] : f32
// CHECK-NEXT: } else {
// CHECK: func.call @gmx_index_error(%{{.*}}, %{{.*}}, %[[I]], %[[N]])
// CHECK: func.call @gmx_index_error(%{{.*}}, %{{.*}}, %[[J]], %[[C8]])
// CHECK: return %[[R]] : f32
func.func @test_memref_load(%x: tensor<?x8xf32>, %i: index, %j: index) -> f32 {
  %m = bufferization.to_buffer %x read_only : tensor<?x8xf32> to memref<?x8xf32>
  %v = memref.load %m[%i, %j] : memref<?x8xf32>
  %w = arith.addf %v, %v : f32
  return %w : f32
}

// -----

// Negative: loads proven inside (ranges): an scf.for induction variable
// within the dim, a constant in range.
// CHECK-LABEL: func.func @test_memref_proven
// CHECK-NOT: scf.if
// CHECK-NOT: gmx_index_error
// CHECK: memref.load %{{.*}}[%arg1] : memref<16xf32>
// CHECK-NOT: scf.if
// CHECK: memref.load %{{.*}}[%c15] : memref<16xf32>
// CHECK-NOT: scf.if
// CHECK: return
func.func @test_memref_proven(%x: tensor<16xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0.0 : f32
  %m = bufferization.to_buffer %x read_only : tensor<16xf32> to memref<16xf32>
  %s = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %z) -> f32 {
    %v = memref.load %m[%k] : memref<16xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  %last = memref.load %m[%c15] : memref<16xf32>
  return %s, %last : f32, f32
}

// -----

// A constant position outside a static dim (no verifier rejects it): the
// access never runs, each run reports it.
// CHECK-LABEL: func.func @test_constant_outside
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: scf.if %[[FALSE]] -> (f32) {
// CHECK-NEXT: memref.load %arg0[%{{.*}}] : memref<3xf32>
// CHECK: } else {
// CHECK-NEXT: func.call @gmx_index_error(%{{.*}}, %{{.*}}, %[[C5:.*]], %[[C3:.*]]) : (i64, i64, i64, i64) -> ()
func.func @test_constant_outside(%m: memref<3xf32>) -> f32 {
  %c5 = arith.constant 5 : index
  %v = memref.load %m[%c5] : memref<3xf32>
  return %v : f32
}
