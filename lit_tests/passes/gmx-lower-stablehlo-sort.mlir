// RUN: gmx-opt %s --split-input-file --gmx-lower-stablehlo-sort | FileCheck %s

// JAX's argsort: keys and an iota sorted together, compared on the keys'
// total order. The comparator sees (right, left) and its result is
// negated: tm_tensor.sort keeps a pair unless the right one is less.
// CHECK-LABEL: func.func @test_argsort
// CHECK: %[[R:.*]]:2 = tm_tensor.sort dimension(1) outs(%arg0, %{{.*}} : tensor<3x5xf32>, tensor<3x5xi64>) {
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: i64, %{{.*}}: i64):
// CHECK: %[[BB:.*]] = arith.bitcast %[[B]] : f32 to i32
// CHECK: %[[AB:.*]] = arith.bitcast %[[A]] : f32 to i32
// CHECK: %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: %[[KEEP:.*]] = arith.xori %[[LT]], %{{.*}} : i1
// CHECK: tm_tensor.yield %[[KEEP]] : i1
// CHECK-NOT: stablehlo.sort
// CHECK: return %[[R]]#1
func.func @test_argsort(%x: tensor<3x5xf32>) -> tensor<3x5xi64> {
  %i = stablehlo.iota dim = 1 : tensor<3x5xi64>
  %r:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i64>, %d: tensor<i64>):
    %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<3x5xf32>, tensor<3x5xi64>) -> (tensor<3x5xf32>, tensor<3x5xi64>)
  return %r#1 : tensor<3x5xi64>
}

// -----

// torch-mlir's descending sort: FLOAT GT as an ordered predicate; a
// constant and a select on scalars; a constant hoisted out of the
// comparator (by an earlier greedy rewrite) is taken as a scalar too.
// CHECK-LABEL: func.func @test_descending
// CHECK: tm_tensor.sort dimension(0) outs(%arg0 : tensor<4xi32>)
// CHECK: arith.cmpi sgt
// CHECK: arith.select
// CHECK: arith.constant 7 : i32
// CHECK: tm_tensor.yield
func.func @test_descending(%x: tensor<4xi32>) -> tensor<4xi32> {
  %seven = stablehlo.constant dense<7> : tensor<i32>
  %r = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %s = stablehlo.select %gt, %t, %gt : tensor<i1>, tensor<i1>
    %e = stablehlo.compare EQ, %a, %seven : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %o = stablehlo.or %s, %e : tensor<i1>
    stablehlo.return %o : tensor<i1>
  }) : (tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// Negative: no sort, nothing changes.
// CHECK-LABEL: func.func @test_no_sort
// CHECK-NEXT: stablehlo.negate
// CHECK-NOT: tm_tensor
func.func @test_no_sort(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
