// torch.gather(x, 1, idx) on x: 2x3, as torch-mlir's TorchToTosa emits it:
// the input flattened to 1x6x1, the coordinates (an iota for dim 0, idx for
// dim 1) concatenated, multiplied by the strides [3, 1] and summed.
//   gmx-opt examples/linearised_gather.mlir --gmx-canonicalize
func.func @main(%x: tensor<2x3xf32>, %idx: tensor<2x2xi32>) -> tensor<2x2xf32> {
  %iota = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]]]> : tensor<2x2x1xi32>}> : () -> tensor<2x2x1xi32>
  %strides = "tosa.const"() <{values = dense<[[3, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s221 = tosa.const_shape {values = dense<[2, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s161 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s42 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s14 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s22 = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %i3 = tosa.reshape %idx, %s221 : (tensor<2x2xi32>, !tosa.shape<3>) -> tensor<2x2x1xi32>
  %coords = tosa.concat %iota, %i3 {axis = 2 : i32} : (tensor<2x2x1xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
  %values = tosa.reshape %x, %s161 : (tensor<2x3xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
  %rows = tosa.reshape %coords, %s42 : (tensor<2x2x2xi32>, !tosa.shape<2>) -> tensor<4x2xi32>
  %scaled = tosa.mul %rows, %strides, %shift : (tensor<4x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<4x2xi32>
  %flat = tosa.reduce_sum %scaled {axis = 1 : i32} : (tensor<4x2xi32>) -> tensor<4x1xi32>
  %flat2 = tosa.reshape %flat, %s14 : (tensor<4x1xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
  %g = tosa.gather %values, %flat2 : (tensor<1x6x1xf32>, tensor<1x4xi32>) -> tensor<1x4x1xf32>
  %r = tosa.reshape %g, %s22 : (tensor<1x4x1xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

