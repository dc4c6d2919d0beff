// An op --gmx-lower-to-llvm has no lowering for (gmx-run-general-options.mlir).
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %x {domain_name = "gmx", implementation_attrs = "", operator_name = "mystery"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
