// A hand-written cf.assert that fails at run time: a located ValueError
// (gmx-run: one error line, exit 1), never an abort of the process.
func.func @main() -> tensor<3xf32> {
  %x = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %d = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %d, %c0 : tensor<?xf32>
  %ok = arith.cmpi eq, %n, %c4 : index
  cf.assert %ok, "expected 4 elements"
  return %x : tensor<3xf32>
}
