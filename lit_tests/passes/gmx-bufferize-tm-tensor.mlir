// RUN: gmx-opt %s --split-input-file --gmx-bufferize-tm-tensor | FileCheck %s
// (gmx-opt parses torch-mlir's tm_tensor ops; tests/test_gmx_bufferize_tm_tensor.py runs
// them through the whole lowering against torch.)

// torch.cumsum(x, 1) as torch-mlir's linalg-on-tensors export emits it: the
// scan works on fresh buffers, the result's read back restrict writable
// (one-shot-bufferize accepts nothing else).
// CHECK-LABEL: func.func @test_scan
// CHECK: %[[IN:.*]] = bufferization.to_buffer %arg0 : tensor<3x5xf32> to memref<3x5xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<3x5xf32>
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<3x5xf32> to tensor<3x5xf32>
// CHECK: tm_tensor.scan dimension(1) inclusive(true) ins(%[[IN]] : memref<3x5xf32>) outs(%[[OUT]], %{{.*}} : memref<3x5xf32>, memref<3xf32>)
// CHECK: return %[[R]]
func.func @test_scan(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x5xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = tensor.empty() : tensor<3xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<3xf32>) -> tensor<3xf32>
  %4:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%arg0 : tensor<3x5xf32>) outs(%1, %3 : tensor<3x5xf32>, tensor<3xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %5 = arith.addf %arg1, %arg2 : f32
    tm_tensor.yield %5 : f32
  } -> tensor<3x5xf32>, tensor<3xf32>
  return %4#0 : tensor<3x5xf32>
}

// -----

// torch.sort(x, 1): the sort runs in place on copies of its inits (the
// argument stays as it was); the copies into the fresh buffers are theirs.
// CHECK-LABEL: func.func @test_sort
// CHECK: %[[KEYS:.*]] = memref.alloc() : memref<5xf32>
// CHECK: bufferization.to_tensor %[[KEYS]] restrict writable
// CHECK: memref.copy %{{.*}}, %[[KEYS]]
// CHECK: tm_tensor.sort dimension(0) outs(%[[KEYS]] : memref<5xf32>)
func.func @test_sort(%arg0: tensor<5xf32>) -> tensor<5xf32> {
  %0 = tm_tensor.sort dimension(0) outs(%arg0 : tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %1 = arith.cmpf ole, %a, %b : f32
    tm_tensor.yield %1 : i1
  } -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Negative: a to_tensor of a buffer something else writes may alias it:
// not marked.
// CHECK-LABEL: func.func @test_shared_buffer
// CHECK: bufferization.to_tensor %{{.*}} : memref<4xf32> to tensor<4xf32>
// CHECK-NOT: restrict
func.func @test_shared_buffer(%v: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %alloc = memref.alloc() : memref<4xf32>
  %t = bufferization.to_tensor %alloc : memref<4xf32> to tensor<4xf32>
  memref.store %v, %alloc[%c0] : memref<4xf32>
  return %t : tensor<4xf32>
}
