// Advanced indexing x[i, :, j] (numpy / PyTorch): axes = [0, 2], the
// coordinate pairs (i, j) folded into the last dim of the indices. No other
// single gather operator can express non-contiguous axes.
//   x = arange(24).reshape(2, 3, 4), i = [1, 0, -1], j = [3, 0, 2]
//   x[i, :, j] has shape [3, 3]; gmx computes it as [3, 3, 1]:
//   gmx-run examples/advanced_index.mlir --input examples/advanced_index_x.npy \
//           --input examples/advanced_index_ij.npy
func.func @main(%x: tensor<2x3x4xf32>, %ij: tensor<3x1x2xi64>) -> tensor<3x3x1xf32> {
  %out = "gmx.gather_multiaxis"(%x, %ij) {axes = array<i64: 0, 2>}
      : (tensor<2x3x4xf32>, tensor<3x1x2xi64>) -> tensor<3x3x1xf32>
  return %out : tensor<3x3x1xf32>
}
