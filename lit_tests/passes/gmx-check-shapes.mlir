// RUN: gmx-opt %s --split-input-file --gmx-check-shapes | FileCheck %s

// Dynamic sizes an elementwise op requires equal are asserted equal; the
// bounds checks of tensor.dim that runtime verification also makes go.
// CHECK-LABEL: func.func @test_elementwise
// CHECK: %[[A:.*]] = tensor.dim %arg0
// CHECK: %[[B:.*]] = tensor.dim %arg1
// CHECK: cf.assert %{{.*}}, "{{.*}}dimension #0 of input/output operand #1 is incompatible with inferred dimension size
// CHECK-NOT: index is out of bounds
// CHECK: linalg.generic
func.func @test_elementwise(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %a = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%a) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// tensor.cast to a static shape: the dynamic size is asserted.
// CHECK-LABEL: func.func @test_cast
// CHECK: cf.assert %{{.*}}, "{{.*}}size mismatch of dim 0
// CHECK: tensor.cast
func.func @test_cast(%x: tensor<?xf32>) -> tensor<4xf32> {
  %0 = tensor.cast %x : tensor<?xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Negative: static shapes assert nothing (canonicalization folds the
// checks), nor does a gather's tensor.extract in a loop body.
// CHECK-LABEL: func.func @test_static
// CHECK-NOT: cf.assert
func.func @test_static(%x: tensor<4xf32>, %i: tensor<2xindex>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<2xindex>) outs(%e : tensor<2xf32>) {
  ^bb0(%j: index, %o: f32):
    %v = tensor.extract %x[%j] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}
