// upstream's tensor.gather: two gathered dims, rank-reducing.
func.func @main(%source: tensor<4x5x6xf32>, %indices: tensor<3x2xi32>) -> tensor<3x5xf32> {
  %0 = tensor.gather %source[%indices] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
