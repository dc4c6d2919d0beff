// ONNX ScatterElements (axis = 0), the example of its specification:
//   data [3,3] of zeros, indices [[1,0,2],[0,2,1]],
//   updates [[1.0,1.1,1.2],[2.0,2.1,2.2]]
//   -> [[2.0,1.1,0.0],[1.0,0.0,2.2],[0.0,2.1,1.2]]
// as gmx.scatter_multiaxis: each update goes where the gather of the same
// input, indices and axes reads (docs/semantics.md#scatters).
func.func @main() -> tensor<3x3xf32> {
  %data = arith.constant dense<0.0> : tensor<3x3xf32>
  %indices = arith.constant dense<[[1, 0, 2], [0, 2, 1]]> : tensor<2x3xi64>
  %updates = arith.constant dense<[[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]]> : tensor<2x3xf32>
  %out = "gmx.scatter_multiaxis"(%data, %indices, %updates) {axes = array<i64: 0>}
      : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %out : tensor<3x3xf32>
}
