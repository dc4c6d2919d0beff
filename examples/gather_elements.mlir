// ONNX GatherElements / numpy.take_along_axis / torch.gather, axis = 0:
// gmx.gather_multiaxis with axes = [0], as is (docs/semantics.md, worked example elements_axis0).
//   gmx-run examples/gather_elements.mlir
//   -> [[30, 11, 12], [20, 1, 32]]
func.func @main() -> tensor<2x3xi32> {
  %input = arith.constant dense<[[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]]> : tensor<4x3xi32>
  %indices = arith.constant dense<[[3, 1, 1], [2, 0, 3]]> : tensor<2x3xi64>
  %out = "gmx.gather_multiaxis"(%input, %indices) {axes = array<i64: 0>}
      : (tensor<4x3xi32>, tensor<2x3xi64>) -> tensor<2x3xi32>
  return %out : tensor<2x3xi32>
}
