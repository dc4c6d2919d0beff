func.func @main(%x: tensor<5xf32>, %i: tensor<6xi64>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %w = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "wrap"} : (tensor<5xf32>, tensor<6xi64>) -> tensor<6xf32>
  %c = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"} : (tensor<5xf32>, tensor<6xi64>) -> tensor<6xf32>
  %f = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = -1.0 : f32} : (tensor<5xf32>, tensor<6xi64>) -> tensor<6xf32>
  return %w, %c, %f : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
