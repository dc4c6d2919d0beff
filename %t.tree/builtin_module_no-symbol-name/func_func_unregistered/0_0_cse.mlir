// -----// IR Dump After CSEPass: cse //----- //
func.func @unregistered() -> tensor<4xf32> {
  %cst = arith.constant dense_resource<blob1> : tensor<4xf32>
  %0 = "foo.bar"(%cst) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

