// x[i] as torch-mlir's TorchToLinalg emits it (output_type="linalg-on-tensors").
func.func @main(%arg0: tensor<4x5xf32>, %arg1: tensor<2xi64>) -> tensor<2x5xf32> {
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %0 = tensor.empty() : tensor<2x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2xi64>) outs(%0 : tensor<2x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.cmpi slt, %in, %c0_i64 : i64
    %3 = arith.addi %in, %c4_i64 : i64
    %4 = arith.select %2, %3, %in : i64
    %5 = arith.index_cast %4 : i64 to index
    %6 = linalg.index 1 : index
    %extracted = tensor.extract %arg0[%5, %6] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}
