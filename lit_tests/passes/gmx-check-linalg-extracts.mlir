// RUN: gmx-opt %s --split-input-file --gmx-check-linalg-extracts | FileCheck %s

// An unraised gather (embedding_bag's sum: a reduction over every index,
// each bag keeping its own): row %i of the table is read at a position the
// data gives. A scan over the one loop the position depends on (d1), in
// parallel, nothing reported, and-reduced into one flag; only when it is
// false, the same scan with its loop a reduction (on the caller's thread)
// reports each bad row. The generic runs only when the flag holds. Dim 1
// of the position is loop d2, of the dim's size (8): not checked.
// CHECK-DAG: #[[ONE:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0) -> ()>
// CHECK: module attributes {gmx.error_sites = ["{{.*}}gmx-check-linalg-extracts.mlir:[[# @LINE + 39]]:10"]}
// CHECK-LABEL: func.func @test_bag
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : i64
// CHECK-DAG: %[[SITE:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[ROWS:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<6xi1>)
// CHECK: %[[FLAGS:.*]] = linalg.generic {indexing_maps = [#[[ONE]], #[[ONE]]], iterator_types = ["parallel"]} ins(%arg1 : tensor<6xi64>) outs(%[[ROWS]] : tensor<6xi1>)
// CHECK-NOT: gmx_index_error
// CHECK: %[[ALL:.*]] = linalg.generic {indexing_maps = [#[[ONE]], #[[NONE]]], iterator_types = ["reduction"]} ins(%[[FLAGS]] : tensor<6xi1>)
// CHECK: %[[GO:.*]] = tensor.extract %[[ALL]][] : tensor<i1>
// CHECK: %[[BAD:.*]] = arith.xori %[[GO]], %[[TRUE]] : i1
// CHECK: scf.if %[[BAD]] {
// CHECK: %[[ONE_FLAG:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<i1>)
// CHECK: linalg.generic {indexing_maps = [#[[ONE]], #[[NONE]]], iterator_types = ["reduction"]} ins(%arg1 : tensor<6xi64>) outs(%[[ONE_FLAG]] : tensor<i1>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i64, %[[ACC:.*]]: i1):
// CHECK: %[[P:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[P]], %[[C100]] : i64
// CHECK: scf.if
// CHECK-NEXT: func.call @gmx_index_error(%[[SITE]], %[[SITE]], %[[P]], %[[C100]])
// CHECK: %[[AND:.*]] = arith.andi %[[ACC]], %[[OK]] : i1
// CHECK: linalg.yield %[[AND]] : i1
// CHECK: %[[R:.*]] = scf.if %[[GO]] -> (tensor<3x8xf32>) {
// CHECK: linalg.generic
// CHECK: tensor.extract %arg0
// CHECK: } else {
// CHECK-NOT: func.call
// CHECK: tensor.empty() : tensor<3x8xf32>
// CHECK: return %[[R]]
#bag_index = affine_map<(d0, d1, d2) -> (d1)>
#bag_out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @test_bag(%weight: tensor<100x8xf32>, %indices: tensor<6xi64>) -> tensor<3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x8xf32>) -> tensor<3x8xf32>
  %r = linalg.generic {indexing_maps = [#bag_index, #bag_out], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%indices : tensor<6xi64>) outs(%init : tensor<3x8xf32>) {
  ^bb0(%i: i64, %out: f32):
    %p = arith.index_cast %i : i64 to index
    %k = linalg.index 2 : index
    %w = tensor.extract %weight[%p, %k] : tensor<100x8xf32>
    %s = arith.addf %w, %out : f32
    linalg.yield %s : f32
  } -> tensor<3x8xf32>
  return %r : tensor<3x8xf32>
}

// -----

// Positions proven inside need no scan: loop indices of their dim's size,
// constants, a clamp (minsi/maxsi) into the dim, arithmetic of those.
// CHECK-LABEL: func.func @test_proven
// CHECK-NOT: gmx_index_error
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK-NOT: scf.if
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @test_proven(%x: tensor<4x6xf32>, %y: tensor<4x6xi64>) -> tensor<4x6xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x6xi64>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%v: i64, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %flip = arith.subi %c3, %i : index
    %a = tensor.extract %x[%flip, %j] : tensor<4x6xf32>
    %p = arith.index_cast %v : i64 to index
    %lo = arith.maxsi %p, %c0 : index
    %clamped = arith.minsi %lo, %c3 : index
    %b = tensor.extract %x[%clamped, %c0] : tensor<4x6xf32>
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Not this pass's: an extract outside a linalg body (gmx-check-slices
// checks it), and a body reading at a loop index into a dim of another
// size (proven: 0..3 < 8).
// CHECK-LABEL: func.func @test_outside
// CHECK-NOT: gmx_index_error
// CHECK-NOT: scf.if
// CHECK: return
#one = affine_map<(d0) -> (d0)>
func.func @test_outside(%x: tensor<8xf32>, %i: index) -> (f32, tensor<4xf32>) {
  %a = tensor.extract %x[%i] : tensor<8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#one], iterator_types = ["parallel"]} outs(%e : tensor<4xf32>) {
  ^bb0(%out: f32):
    %k = linalg.index 0 : index
    %b = tensor.extract %x[%k] : tensor<8xf32>
    linalg.yield %b : f32
  } -> tensor<4xf32>
  return %a, %r : f32, tensor<4xf32>
}

// -----

// A dim of run-time size is checked against tensor.dim; a position read
// through another checked extract: that one read, in the scan, only when
// inside (else 1), reported by its own scan; two scans, one flag.
// CHECK-LABEL: func.func @test_dynamic_and_chained
// CHECK: %[[FIRST:.*]] = linalg.generic
// CHECK: %[[OK1:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: scf.if
// CHECK: func.call @gmx_index_error
// CHECK: %[[DIM:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?xf32>
// CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: linalg.generic
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult
// CHECK: %[[READ:.*]] = scf.if %[[INSIDE]] -> (i64) {
// CHECK: tensor.extract %arg1
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : i64
// CHECK: arith.cmpi ult, %{{.*}}, %[[N]] : i64
// CHECK-NOT: func.call
// CHECK: %[[OK2:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: scf.if
// CHECK: func.call @gmx_index_error
// CHECK: %[[OK:.*]] = arith.andi %[[OK1]], %[[OK2]] : i1
// CHECK: scf.if %[[OK]] -> (tensor<5xf32>)
#five = affine_map<(d0) -> (d0)>
func.func @test_dynamic_and_chained(%x: tensor<?xf32>, %table: tensor<10xi64>, %at: tensor<5xi64>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %r = linalg.generic {indexing_maps = [#five, #five], iterator_types = ["parallel"]}
      ins(%at : tensor<5xi64>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: i64, %out: f32):
    %p = arith.index_cast %a : i64 to index
    %t = tensor.extract %table[%p] : tensor<10xi64>
    %q = arith.index_cast %t : i64 to index
    %v = tensor.extract %x[%q] : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// A generic on buffers (a program given bufferized) is not looked at.
// CHECK-LABEL: func.func @test_buffers
// CHECK-NOT: gmx_index_error
// CHECK-NOT: scf.if
// CHECK: return
#one = affine_map<(d0) -> (d0)>
func.func @test_buffers(%x: memref<8xf32>, %at: memref<4xi64>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [#one, #one], iterator_types = ["parallel"]}
      ins(%at : memref<4xi64>) outs(%out : memref<4xf32>) {
  ^bb0(%a: i64, %o: f32):
    %p = arith.index_cast %a : i64 to index
    %w = memref.load %x[%p] : memref<8xf32>
    linalg.yield %w : f32
  }
  return
}
