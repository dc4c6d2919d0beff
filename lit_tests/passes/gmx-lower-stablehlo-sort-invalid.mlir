// A comparator op with no scalar lowering is a located error naming it
// (the sort is left as it was), not "op was not bufferized".
// RUN: gmx-opt %s --verify-diagnostics --gmx-lower-stablehlo-sort
// RUN: gmx-opt %s --verify-diagnostics --gmx-lower-to-llvm

func.func @sum_comparator(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    // expected-error@+1 {{stablehlo.add in a stablehlo.sort comparator has no lowering (supported: stablehlo.and, stablehlo.compare, stablehlo.constant, stablehlo.not, stablehlo.or, stablehlo.select, stablehlo.xor)}}
    %s = stablehlo.add %a, %b : tensor<f32>
    %lt = stablehlo.compare LT, %s, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
