// RUN: gmx-opt %s --split-input-file --gmx-lower-stablehlo-degenerate-reduce | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: stablehlo.

// torch-mlir's rank-0 sum of an unbatched nll_loss: a reduce over no dims
// runs over a trailing unit dim (body(init, x): x itself for add of 0).
// CHECK-LABEL: func.func @test_rank0
// CHECK: %[[E:.*]] = tensor.expand_shape %arg0 [] output_shape [1] : tensor<i64> into tensor<1xi64>
// CHECK: stablehlo.reduce(%[[E]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<1xi64>, tensor<i64>) -> tensor<i64>
func.func @test_rank0(%x: tensor<i64>) -> tensor<i64> {
  %c = stablehlo.constant dense<0> : tensor<i64>
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [] : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}

// -----

// Over no dims of a dynamic tensor: elementwise, the dynamic size kept.
// CHECK-LABEL: func.func @test_no_dims_dynamic
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [%[[D]], 4, 1] : tensor<?x4xf32> into tensor<?x4x1xf32>
// CHECK: stablehlo.reduce(%[[E]] init: %{{.*}}) applies stablehlo.maximum across dimensions = [2] : (tensor<?x4x1xf32>, tensor<f32>) -> tensor<?x4xf32>
func.func @test_no_dims_dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = stablehlo.constant dense<1.5> : tensor<f32>
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A reduced dim of size 0: each result is the init.
// CHECK-LABEL: func.func @test_empty_reduced_dim
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK-NOT: stablehlo.reduce
// CHECK: return %[[F]]
func.func @test_empty_reduced_dim(%x: tensor<0x3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<1.5> : tensor<f32>
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<0x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A kept dim of size 0 (a result with no elements), a dynamic kept dim
// sized from the input; a variadic reduce fills each result with its init.
// CHECK-LABEL: func.func @test_empty_kept_dim
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x2x0xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x0xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x0xf32>)
// CHECK: %[[E2:.*]] = tensor.empty(%[[D]]) : tensor<?x0xi64>
// CHECK: linalg.fill ins(%{{.*}} : i64) outs(%[[E2]] : tensor<?x0xi64>)
// CHECK-NOT: stablehlo.reduce
func.func @test_empty_kept_dim(%x: tensor<?x2x0xf32>, %i: tensor<?x2x0xi64>) -> (tensor<?x0xf32>, tensor<?x0xi64>) {
  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.reduce(%x init: %c), (%i init: %z) across dimensions = [1] : (tensor<?x2x0xf32>, tensor<?x2x0xi64>, tensor<f32>, tensor<i64>) -> (tensor<?x0xf32>, tensor<?x0xi64>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i64>, %ib: tensor<i64>) {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      %n = stablehlo.maximum %ia, %ib : tensor<i64>
      stablehlo.return %m, %n : tensor<f32>, tensor<i64>
    }
  return %r#0, %r#1 : tensor<?x0xf32>, tensor<?x0xi64>
}

// -----

// Negative: a reduce over a dim of nonzero size is upstream's, untouched.
// CHECK-LABEL: func.func @test_ordinary
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: linalg.fill
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
func.func @test_ordinary(%x: tensor<4xf32>) -> tensor<f32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
