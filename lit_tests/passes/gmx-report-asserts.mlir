// RUN: gmx-opt %s --split-input-file --gmx-report-asserts | FileCheck %s

// torch-mlir's broadcast assert: the rest of the block runs only when it
// holds; otherwise the runtime's callback gets the assert's site and
// message number, and placeholders stand for what was skipped.
// CHECK-LABEL: module attributes {gmx.assert_messages = ["mismatched size for broadcast"], gmx.error_sites = ["{{.*}}gmx-report-asserts.mlir:[[# @LINE + 20]]:3"]}
// CHECK: func.func private @gmx_shape_error(i64, i64, i64, i64)
// CHECK-LABEL: func.func @test_broadcast_assert
// CHECK-DAG: %[[SITE:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[KIND:.*]] = arith.constant -3 : i64
// CHECK: %[[OK:.*]] = arith.cmpi eq
// CHECK-NOT: cf.assert
// CHECK: %[[R:.*]] = scf.if %[[OK]] -> (tensor<?xf32>) {
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: scf.yield %[[G]] : tensor<?xf32>
// CHECK: } else {
// CHECK: func.call @gmx_shape_error(%[[SITE]], %[[KIND]], %[[SITE]], %[[SITE]])
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: scf.yield %[[E]] : tensor<?xf32>
// CHECK: return %[[R]] : tensor<?xf32>
func.func @test_broadcast_assert(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %a = tensor.dim %x, %c0 : tensor<?xf32>
  %b = tensor.dim %y, %c0 : tensor<?xf32>
  %ok = arith.cmpi eq, %a, %b : index
  cf.assert %ok, "mismatched size for broadcast"
  %e = tensor.empty(%a) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Upstream's runtime-verification message is reduced to its reason.
// CHECK: gmx.assert_messages = ["size mismatch of dim 0"]
// CHECK-LABEL: func.func @test_verification_message
// CHECK: scf.if
func.func @test_verification_message(%x: tensor<?xf32>, %ok: i1) -> tensor<4xf32> {
  cf.assert %ok, "ERROR: Runtime op verification failed\0A^ size mismatch of dim 0\0ALocation: loc(\22x.mlir\22:2:8)"
  %0 = tensor.cast %x : tensor<?xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Negative: no assert, nothing changes (no callbacks declared).
// CHECK-LABEL: module {
// CHECK-NOT: gmx_shape_error
// CHECK-LABEL: func.func @test_no_assert
// CHECK-NEXT: return %arg0
func.func @test_no_assert(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
