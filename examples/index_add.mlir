// index_add of rows (torch.index_add(x, 0, i, u), np.add.at(x, i, u)): rows
// 1 and 3 take two updates each, summed in row-major order of the updates.
func.func @main() -> tensor<4x2xf32> {
  %x = arith.constant dense<1.0> : tensor<4x2xf32>
  %i = arith.constant dense<[[1], [-1], [1], [0]]> : tensor<4x1xi64>
  %u = arith.constant dense<[[1.0, 10.0], [4.0, 5.0], [10.0, 10.0], [0.0, 0.0]]> : tensor<4x2xf32>
  %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"}
      : (tensor<4x2xf32>, tensor<4x1xi64>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
