// RUN: gmx-opt %s --split-input-file --gmx-lower-stablehlo-control-flow | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: stablehlo.
// LOWERED-NOT: scf.

// JAX's while_loop: the loop carries its tensors through scf.while; the
// condition's rank-0 i1 is extracted for scf.condition.
// CHECK-LABEL: func.func @test_while
// CHECK: %[[R:.*]]:2 = scf.while (%[[A:.*]] = %arg0, %[[I:.*]] = %{{.*}}) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
// CHECK: %[[P:.*]] = stablehlo.compare LT, %[[I]]
// CHECK: %[[C:.*]] = tensor.extract %[[P]][] : tensor<i1>
// CHECK: scf.condition(%[[C]]) %[[A]], %[[I]] : tensor<4xf32>, tensor<i64>
// CHECK: } do {
// CHECK: ^bb0(%[[B:.*]]: tensor<4xf32>, %[[J:.*]]: tensor<i64>):
// CHECK: %[[S:.*]] = stablehlo.add %[[B]], %arg0
// CHECK: scf.yield %[[S]], %{{.*}} : tensor<4xf32>, tensor<i64>
// CHECK-NOT: stablehlo.while
// CHECK: return %[[R]]#0
func.func @test_while(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%a = %x, %i = %c0) : tensor<4xf32>, tensor<i64>
  cond {
    %c3 = stablehlo.constant dense<3> : tensor<i64>
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %s = stablehlo.add %a, %x : tensor<4xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i64>
    %j = stablehlo.add %i, %c1 : tensor<i64>
    stablehlo.return %s, %j : tensor<4xf32>, tensor<i64>
  }
  return %r#0 : tensor<4xf32>
}

// -----

// Nested loops: both become scf.while.
// CHECK-LABEL: func.func @test_nested
// CHECK: scf.while
// CHECK: scf.while
// CHECK-NOT: stablehlo.while
func.func @test_nested(%x: tensor<i64>) -> tensor<i64> {
  %r = stablehlo.while(%a = %x) : tensor<i64>
  cond {
    %c = stablehlo.constant dense<10> : tensor<i64>
    %p = stablehlo.compare LT, %a, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %inner = stablehlo.while(%b = %a) : tensor<i64>
    cond {
      %c = stablehlo.constant dense<5> : tensor<i64>
      %p = stablehlo.compare LT, %b, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i64>
      %n = stablehlo.add %b, %c1 : tensor<i64>
      stablehlo.return %n : tensor<i64>
    }
    %c2 = stablehlo.constant dense<2> : tensor<i64>
    %m = stablehlo.add %inner, %c2 : tensor<i64>
    stablehlo.return %m : tensor<i64>
  }
  return %r : tensor<i64>
}

// -----

// JAX's cond: stablehlo.case on an i32 as scf.index_switch, the last
// branch the default (StableHLO runs it for any index out of range).
// CHECK-LABEL: func.func @test_case
// CHECK: %[[I:.*]] = tensor.extract %arg1[] : tensor<i32>
// CHECK: %[[X:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK: %[[R:.*]] = scf.index_switch %[[X]] -> tensor<4xf32>
// CHECK: case 0 {
// CHECK: %[[S:.*]] = stablehlo.subtract
// CHECK: scf.yield %[[S]] : tensor<4xf32>
// CHECK: default {
// CHECK: %[[M:.*]] = stablehlo.multiply
// CHECK: scf.yield %[[M]] : tensor<4xf32>
// CHECK-NOT: stablehlo.case
// CHECK: return %[[R]]
func.func @test_case(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  %r = "stablehlo.case"(%i) ({
    %s = stablehlo.subtract %x, %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    %m = stablehlo.multiply %x, %x : tensor<4xf32>
    stablehlo.return %m : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// stablehlo.if as scf.if on the extracted predicate.
// CHECK-LABEL: func.func @test_if
// CHECK: %[[P:.*]] = tensor.extract %arg1[] : tensor<i1>
// CHECK: scf.if %[[P]] -> (tensor<4xf32>) {
// CHECK: stablehlo.add
// CHECK: } else {
// CHECK: scf.yield %arg0 : tensor<4xf32>
// CHECK-NOT: stablehlo.if
func.func @test_if(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %r = "stablehlo.if"(%p) ({
    %a = stablehlo.add %x, %x : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Negative: no control flow, nothing changes.
// CHECK-LABEL: func.func @test_no_control_flow
// CHECK-NEXT: stablehlo.add
// CHECK-NOT: scf.
func.func @test_no_control_flow(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
