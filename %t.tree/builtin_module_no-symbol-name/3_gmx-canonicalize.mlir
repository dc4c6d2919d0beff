// -----// IR Dump After gmx-canonicalize: gmx-canonicalize //----- //
module {
  func.func @unregistered() -> tensor<4xf32> {
    %cst = arith.constant dense_resource<blob1> : tensor<4xf32>
    %0 = "foo.bar"(%cst) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}


