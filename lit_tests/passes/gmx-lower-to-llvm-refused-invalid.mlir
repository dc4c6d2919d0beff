// What --gmx-lower-to-llvm has no lowering for is refused before
// bufferization, each op named with what does not lower it.
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --gmx-lower-to-llvm

// An op no pass lowers is named, with what does not lower it, before
// bufferization (not "op was not bufferized").
func.func @custom_call(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.custom_call' has no lowering: upstream's stablehlo-legalize-to-linalg, gmx-lower-stablehlo-sort, gmx-lower-stablehlo-control-flow and gmx-lower-stablehlo-degenerate-reduce leave it}}
  %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

