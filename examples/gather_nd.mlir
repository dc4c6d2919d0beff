// ONNX GatherND (batch_dims = 0) with 2-D coordinates (docs/semantics.md, nd_pairs):
//   input [2,2,2], indices [[0,1],[1,0]] -> [[2,3],[4,5]]
// becomes gmx.gather_multiaxis on the intermediate shapes
//   input [2,2,2], indices [1,2,1*2] (coordinates folded into the last dim),
//   axes [0,1], output [1,2,2], then a reshape to the GatherND result [2,2].
func.func @main() -> tensor<2x2xi32> {
  %input = arith.constant dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi32>
  %indices = arith.constant dense<[[[0, 1], [1, 0]]]> : tensor<1x2x2xi64>
  %gathered = "gmx.gather_multiaxis"(%input, %indices) {axes = array<i64: 0, 1>}
      : (tensor<2x2x2xi32>, tensor<1x2x2xi64>) -> tensor<1x2x2xi32>
  %out = tensor.collapse_shape %gathered [[0, 1], [2]] : tensor<1x2x2xi32> into tensor<2x2xi32>
  return %out : tensor<2x2xi32>
}
