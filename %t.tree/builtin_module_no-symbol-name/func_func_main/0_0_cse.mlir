// -----// IR Dump After CSEPass: cse //----- //
func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

