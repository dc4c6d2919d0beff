func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
