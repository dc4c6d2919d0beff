// Counts that casts hide on both sides and that differ: the scatter could
// never run; a located error, not a verifier failure after canonicalize.
// RUN: gmx-opt %s --verify-diagnostics --gmx-fold-tm-tensor-scatter-casts
// RUN: gmx-opt %s --verify-diagnostics --gmx-lower-to-llvm

func.func @counts_differ(%x: tensor<6x4xf32>, %v: tensor<5x1x4xf32>, %j: tensor<3x1xi64>) -> tensor<6x4xf32> {
  %u = tensor.cast %v : tensor<5x1x4xf32> to tensor<?x1x4xf32>
  %i = tensor.cast %j : tensor<3x1xi64> to tensor<?x1xi64>
  // expected-error@+1 {{'tm_tensor.scatter' op cannot run: 5 updates but 3 index rows}}
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%u, %i : tensor<?x1x4xf32>, tensor<?x1xi64>) outs(%x : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
