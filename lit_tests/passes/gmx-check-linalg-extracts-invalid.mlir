// A position the scan cannot recompute before the generic (it depends on
// an output's element, or the extract is nested in a region of the body):
// a located error in checked mode, never an element read unchecked.
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --gmx-check-linalg-extracts
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --gmx-lower-to-llvm

#one = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @from_output(%x: tensor<10xf32>, %at: tensor<4xi64>) -> tensor<i64> {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %init = linalg.fill ins(%c0 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  // expected-error@+1 {{a tensor.extract whose position depends on an output's element or an op with regions cannot be bounds-checked (lower with checked=false to run it unchecked)}}
  %r = linalg.generic {indexing_maps = [#one, #none], iterator_types = ["reduction"]}
      ins(%at : tensor<4xi64>) outs(%init : tensor<i64>) {
  ^bb0(%a: i64, %out: i64):
    %p = arith.index_cast %out : i64 to index
    %v = tensor.extract %x[%p] : tensor<10xf32>
    %w = arith.fptosi %v : f32 to i64
    %s = arith.addi %w, %a : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  return %r : tensor<i64>
}

// -----

#one = affine_map<(d0) -> (d0)>
func.func @nested(%x: tensor<10xf32>, %at: tensor<4xi64>, %c: i1) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error@+1 {{a tensor.extract nested in a region of a linalg.generic's body cannot be bounds-checked (lower with checked=false to run it unchecked)}}
  %r = linalg.generic {indexing_maps = [#one, #one], iterator_types = ["parallel"]}
      ins(%at : tensor<4xi64>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: i64, %out: f32):
    %v = scf.if %c -> (f32) {
      %p = arith.index_cast %a : i64 to index
      %w = tensor.extract %x[%p] : tensor<10xf32>
      scf.yield %w : f32
    } else {
      scf.yield %out : f32
    }
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
