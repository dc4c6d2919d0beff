// raise-linalg-gather (passes/raising/linalg_gathers.py): a linalg.generic that
// is provably a gather becomes one gmx op; the forms torch-mlir's TorchToLinalg,
// upstream tosa-to-linalg and stablehlo-legalize-to-linalg emit, static and
// dynamic, then generics that are not provably gathers, left alone.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// Why each generic left alone is no gather (--debug-only):
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --debug-only=gmx-canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=WHY

// raise-linalg-gather: x[i] (TorchToLinalg): the negative-index select is gmx's own wrap; the index
// gets a unit dim, x is read as it is.
// CHECK-LABEL: func.func @torch_advanced_index
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0>} : (tensor<4x5xf32>, tensor<2x1xi64>) -> tensor<2x5xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @torch_advanced_index(%arg0: tensor<4x5xf32>, %arg1: tensor<2xi64>) -> tensor<2x5xf32> {
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

// -----
// raise-linalg-gather: torch.gather(x, 1, i): the cf.assert bounds checks are gmx's checked raise mode;
// the fill of the init goes with the generic.
// CHECK-LABEL: func.func @torch_gather_asserts
// CHECK-NEXT: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 1>} : (tensor<4x5xf32>, tensor<4x7xi64>) -> tensor<4x7xf32>
// CHECK-NEXT: return %[[G]]
func.func @torch_gather_asserts(%arg0: tensor<4x5xf32>, %arg1: tensor<4x7xi64>) -> tensor<4x7xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c5 = arith.constant 5 : index
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<4x7xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x7xf32>) -> tensor<4x7xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4x7xi64>) outs(%1 : tensor<4x7xf32>) {
  ^bb0(%in: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %in : i64 to index
    %5 = arith.cmpi slt, %4, %c5 : index
    cf.assert %5, "index must be smaller than dim size"
    %6 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %6, "index must be larger or equal to 0"
    %extracted = tensor.extract %arg0[%3, %4] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<4x7xf32>
  return %2 : tensor<4x7xf32>
}

// -----
// raise-linalg-gather: torch.gather along dim 0 of a 10x1 input: the constant 0 into the unit dim
// is that unit dim of the output (simplify-indices then moves the index dim).
// CHECK-LABEL: func.func @torch_gather_unit_dim
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<10x1xf32>, tensor<1x7xi64>) -> tensor<1x7xf32>
// CHECK-NOT: linalg.generic
func.func @torch_gather_unit_dim(%arg0: tensor<10x1xf32>, %arg1: tensor<7x1xi64>) -> tensor<7x1xf32> {
  %c0 = arith.constant 0 : index
  %0 = tensor.empty() : tensor<7x1xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<7x1xi64>) outs(%0 : tensor<7x1xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %extracted = tensor.extract %arg0[%2, %c0] : tensor<10x1xf32>
    linalg.yield %extracted : f32
  } -> tensor<7x1xf32>
  return %1 : tensor<7x1xf32>
}

// -----
// raise-linalg-gather: x[i, :, j] on the transposed x (TorchToLinalg): the arange torch-mlir passes
// for the sliced dim is read as that loop dim, the two indices are one tuple.
// CHECK-LABEL: func.func @torch_two_indices_and_arange
// CHECK: %[[T:.*]] = tensor.concat dim(3)
// CHECK: %[[I:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3]] : tensor<1x3x1x2xi64> into tensor<1x3x2xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0, 1>} : (tensor<4x6x5xf32>, tensor<1x3x2xi64>) -> tensor<1x3x5xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0, 1], [2]] : tensor<1x3x5xf32> into tensor<3x5xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @torch_two_indices_and_arange(%arg0: tensor<4x6x5xf32>, %arg1: tensor<3x1xi64>, %arg2: tensor<3x1xi64>) -> tensor<3x5xf32> {
  %c4_i64 = arith.constant 4 : i64
  %c6_i64 = arith.constant 6 : i64
  %c5_i64 = arith.constant 5 : i64
  %c0_i64 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<5xi64>
  %arange = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<5xi64>) {
  ^bb0(%out: i64):
    %5 = linalg.index 0 : index
    %6 = arith.index_cast %5 : index to i64
    linalg.yield %6 : i64
  } -> tensor<5xi64>
  %0 = tensor.empty() : tensor<3x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg2, %arange : tensor<3x1xi64>, tensor<3x1xi64>, tensor<5xi64>) outs(%0 : tensor<3x5xf32>) {
  ^bb0(%in: i64, %in_1: i64, %in_2: i64, %out: f32):
    %5 = arith.cmpi slt, %in, %c0_i64 : i64
    %6 = arith.addi %in, %c4_i64 : i64
    %7 = arith.select %5, %6, %in : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.cmpi slt, %in_1, %c0_i64 : i64
    %10 = arith.addi %in_1, %c6_i64 : i64
    %11 = arith.select %9, %10, %in_1 : i64
    %12 = arith.index_cast %11 : i64 to index
    %13 = arith.cmpi slt, %in_2, %c0_i64 : i64
    %14 = arith.addi %in_2, %c5_i64 : i64
    %15 = arith.select %13, %14, %in_2 : i64
    %16 = arith.index_cast %15 : i64 to index
    %extracted = tensor.extract %arg0[%8, %12, %16] : tensor<4x6x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<3x5xf32>
  return %1 : tensor<3x5xf32>
}

// -----
// raise-linalg-gather: w[i] with a dynamic table and batch: the select adds the table's tensor.dim,
// still gmx's wrap (checked at several sizes).
// CHECK-LABEL: func.func @torch_embedding_dynamic_table
// CHECK: %[[W:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [1, %{{.*}}, 4] : tensor<?x4xf32> into tensor<1x?x4xf32>
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 3, 1] : tensor<?x3xi64> into tensor<?x3x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %[[I]]) {axes = array<i64: 1>} : (tensor<1x?x4xf32>, tensor<?x3x1xi64>) -> tensor<?x3x4xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @torch_embedding_dynamic_table(%arg0: tensor<?x4xf32>, %arg1: tensor<?x3xi64>) -> tensor<?x3x4xf32> {
  %c0 = arith.constant 0 : index
  %c0_i64 = arith.constant 0 : i64
  %dim = tensor.dim %arg1, %c0 : tensor<?x3xi64>
  %0 = tensor.empty(%dim) : tensor<?x3x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<?x3xi64>) outs(%0 : tensor<?x3x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.cmpi slt, %in, %c0_i64 : i64
    %dim_0 = tensor.dim %arg0, %c0 : tensor<?x4xf32>
    %3 = arith.index_cast %dim_0 : index to i64
    %4 = arith.addi %in, %3 : i64
    %5 = arith.select %2, %4, %in : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = linalg.index 2 : index
    %extracted = tensor.extract %arg0[%6, %7] : tensor<?x4xf32>
    linalg.yield %extracted : f32
  } -> tensor<?x3x4xf32>
  return %1 : tensor<?x3x4xf32>
}

// -----
// raise-linalg-gather: torch.gather with a dynamic batch: the output's batch is the index's, which
// may be smaller than x's, so x is sliced to it.
// CHECK-LABEL: func.func @torch_gather_dynamic_batch
// CHECK: %[[D:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x?xi64>
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[0, 0] {{\[}}%[[D]], 5] [1, 1] : tensor<?x5xf32> to tensor<?x5xf32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %arg1) {axes = array<i64: 1>} : (tensor<?x5xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @torch_gather_dynamic_batch(%arg0: tensor<?x5xf32>, %arg1: tensor<?x?xi64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %arg1, %c0 : tensor<?x?xi64>
  %dim_0 = tensor.dim %arg1, %c1 : tensor<?x?xi64>
  %0 = tensor.empty(%dim, %dim_0) : tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<?x?xi64>) outs(%0 : tensor<?x?xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = linalg.index 0 : index
    %3 = arith.index_cast %in : i64 to index
    %extracted = tensor.extract %arg0[%2, %3] : tensor<?x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----
// raise-linalg-gather: tosa-to-linalg's tosa.gather (no bounds check): the output's batch is x's
// tensor.dim, so x is not sliced.
// CHECK-LABEL: func.func @tosa_to_linalg_gather
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [%{{.*}}, %{{.*}}, 1] : tensor<?x?xi32> into tensor<?x?x1xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 1>} : (tensor<?x5x3xf32>, tensor<?x?x1xi32>) -> tensor<?x?x3xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @tosa_to_linalg_gather(%arg0: tensor<?x5x3xf32>, %arg1: tensor<?x?xi32>) -> tensor<?x?x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %arg0, %c0 : tensor<?x5x3xf32>
  %dim_0 = tensor.dim %arg1, %c1 : tensor<?x?xi32>
  %0 = tensor.empty(%dim, %dim_0) : tensor<?x?x3xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<?x?xi32>) outs(%0 : tensor<?x?x3xf32>) {
  ^bb0(%in: i32, %out: f32):
    %2 = linalg.index 0 : index
    %3 = arith.index_cast %in : i32 to index
    %4 = linalg.index 2 : index
    %extracted = tensor.extract %arg0[%2, %3, %4] : tensor<?x5x3xf32>
    linalg.yield %extracted : f32
  } -> tensor<?x?x3xf32>
  return %1 : tensor<?x?x3xf32>
}

// -----
// raise-linalg-gather: stablehlo-legalize-to-linalg's gather: start indices read from a tuple tensor
// in the body and clamped to [0, size - 1]: mode "clip", the tuple tensor as it is.
// CHECK-LABEL: func.func @stablehlo_clamped_tuple
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [3, 1, 2] : tensor<3x2xi32> into tensor<3x1x2xi32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0, 2>, mode = "clip"} : (tensor<4x5x6xf32>, tensor<3x1x2xi32>) -> tensor<3x5x1xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<3x5x1xf32> into tensor<3x5xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @stablehlo_clamped_tuple(%arg0: tensor<4x5x6xf32>, %arg1: tensor<3x2xi32>) -> tensor<3x5xf32> {
  %c5 = arith.constant 5 : index
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tensor.empty() : tensor<3x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<3x5xf32>) {
  ^bb0(%out: f32):
    %2 = linalg.index 0 : index
    %3 = linalg.index 1 : index
    %extracted = tensor.extract %arg1[%2, %c0] : tensor<3x2xi32>
    %4 = arith.index_cast %extracted : i32 to index
    %extracted_0 = tensor.extract %arg1[%2, %c1] : tensor<3x2xi32>
    %5 = arith.index_cast %extracted_0 : i32 to index
    %6 = arith.maxsi %c0, %4 : index
    %7 = arith.minsi %6, %c3 : index
    %8 = arith.maxsi %c0, %5 : index
    %9 = arith.minsi %8, %c5 : index
    %extracted_1 = tensor.extract %arg0[%7, %3, %9] : tensor<4x5x6xf32>
    linalg.yield %extracted_1 : f32
  } -> tensor<3x5xf32>
  return %1 : tensor<3x5xf32>
}

// -----
// raise-linalg-gather: x[i, :, j] as TorchToLinalg emits it: a linalg.transpose puts the sliced dim
// last and an arange (viewed or not) reads it; the arange becomes that loop dim
// and fold-input-transpose folds the linalg.transpose into the axes.
// CHECK-LABEL: func.func @torch_noncontiguous_through_transpose
// CHECK-NOT: linalg.transpose
// CHECK: %[[I:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<1x3x1x2xi64> into tensor<3x1x2xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<3x1x2xi64>) -> tensor<3x5x1xf32>
// CHECK-NOT: linalg.generic
func.func @torch_noncontiguous_through_transpose(%arg0: tensor<4x5x6xf32>, %arg1: tensor<3xi64>, %arg2: tensor<3xi64>) -> tensor<3x5xf32> {
  %0 = tensor.empty() : tensor<4x6x5xf32>
  %transposed = linalg.transpose ins(%arg0 : tensor<4x5x6xf32>) outs(%0 : tensor<4x6x5xf32>) permutation = [0, 2, 1]
  %1 = tensor.empty() : tensor<5xi64>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%1 : tensor<5xi64>) {
  ^bb0(%out: i64):
    %5 = linalg.index 0 : index
    %6 = arith.index_cast %5 : index to i64
    linalg.yield %6 : i64
  } -> tensor<5xi64>
  %expanded = tensor.expand_shape %arg1 [[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
  %expanded_0 = tensor.expand_shape %arg2 [[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
  %3 = tensor.empty() : tensor<3x5xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%expanded, %expanded_0, %2 : tensor<3x1xi64>, tensor<3x1xi64>, tensor<5xi64>) outs(%3 : tensor<3x5xf32>) {
  ^bb0(%in: i64, %in_1: i64, %in_2: i64, %out: f32):
    %5 = arith.index_cast %in : i64 to index
    %6 = arith.index_cast %in_1 : i64 to index
    %7 = arith.index_cast %in_2 : i64 to index
    %extracted = tensor.extract %transposed[%5, %6, %7] : tensor<4x6x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<3x5xf32>
  return %4 : tensor<3x5xf32>
}

// -----
// raise-linalg-gather, negative: the body scales the extracted value.
// CHECK-LABEL: func.func @not_gather_computes_on_value
// CHECK: linalg.generic
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-linalg-gather: no match: the yielded value is not a tensor.extract
func.func @not_gather_computes_on_value(%arg0: tensor<4x5xf32>, %arg1: tensor<2xi64>) -> tensor<2x5xf32> {
  %cst = arith.constant 2.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2xi64>) outs(%0 : tensor<2x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %extracted = tensor.extract %arg0[%2, %3] : tensor<4x5xf32>
    %4 = arith.mulf %extracted, %cst : f32
    linalg.yield %4 : f32
  } -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}

// -----
// raise-linalg-gather, negative: a position adds a loop index to an index value.
// CHECK-LABEL: func.func @not_gather_index_plus_loop
// CHECK: linalg.generic
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-linalg-gather: no match: a loop index inside a computed position
func.func @not_gather_index_plus_loop(%arg0: tensor<4x5xf32>, %arg1: tensor<2xi64>) -> tensor<2x5xf32> {
  %0 = tensor.empty() : tensor<2x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2xi64>) outs(%0 : tensor<2x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = arith.addi %2, %3 : index
    %extracted = tensor.extract %arg0[%4, %3] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}

// -----
// raise-linalg-gather: a floor modulo by the dim (the remainder corrected toward the divisor's sign):
// mode "wrap".
// CHECK-LABEL: func.func @floor_mod_wraps
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
// CHECK: "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0>, mode = "wrap"} : (tensor<4x5xf32>, tensor<2x1xi64>) -> tensor<2x5xf32>
// CHECK-NOT: linalg.generic
func.func @floor_mod_wraps(%arg0: tensor<4x5xf32>, %arg1: tensor<2xi64>) -> tensor<2x5xf32> {
  %c4_i64 = arith.constant 4 : i64
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<2x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2xi64>) outs(%0 : tensor<2x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.remsi %in, %c4_i64 : i64
    %3 = arith.cmpi slt, %2, %c0_i64 : i64
    %4 = arith.addi %2, %c4_i64 : i64
    %5 = arith.select %3, %4, %2 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = linalg.index 1 : index
    %extracted = tensor.extract %arg0[%6, %7] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}

// -----
// raise-linalg-gather, negative: a truncating remainder (-1 stays -1, which gmx would wrap to 3).
// CHECK-LABEL: func.func @not_gather_truncating_remainder
// CHECK: linalg.generic
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-linalg-gather: no match: a position that is not gmx's reading of an index
func.func @not_gather_truncating_remainder(%arg0: tensor<4x5xf32>, %arg1: tensor<2xi64>) -> tensor<2x5xf32> {
  %c4_i64 = arith.constant 4 : i64
  %0 = tensor.empty() : tensor<2x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2xi64>) outs(%0 : tensor<2x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.remsi %in, %c4_i64 : i64
    %6 = arith.index_cast %2 : i64 to index
    %7 = linalg.index 1 : index
    %extracted = tensor.extract %arg0[%6, %7] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}

// -----
// raise-linalg-gather, negative: the assert rejects the valid indices 3 and 4 of a dim of 5.
// CHECK-LABEL: func.func @not_gather_assert_rejects_valid
// CHECK: linalg.generic
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-linalg-gather: no match: an assert that rejects a valid index
func.func @not_gather_assert_rejects_valid(%arg0: tensor<4x5xf32>, %arg1: tensor<4x7xi64>) -> tensor<4x7xf32> {
  %c3 = arith.constant 3 : index
  %0 = tensor.empty() : tensor<4x7xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4x7xi64>) outs(%0 : tensor<4x7xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = linalg.index 0 : index
    %3 = arith.index_cast %in : i64 to index
    %4 = arith.cmpi slt, %3, %c3 : index
    cf.assert %4, "index must be smaller than 3"
    %extracted = tensor.extract %arg0[%2, %3] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<4x7xf32>
  return %1 : tensor<4x7xf32>
}

// -----
// raise-linalg-gather, negative: a reduction loop (raise-reduction-gather's: the read is gathered over
// both loops, the nest yields the last row's element).
// CHECK-LABEL: func.func @not_gather_reduction
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[0, 0] [2, 5] [1, 1] : tensor<4x5xf32> to tensor<2x5xf32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %arg1) {axes = array<i64: 1>} : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[G]]
// WHY: raise-linalg-gather: no match: a reduction loop
func.func @not_gather_reduction(%arg0: tensor<4x5xf32>, %arg1: tensor<2x3xi64>) -> tensor<2xf32> {
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg1 : tensor<2x3xi64>) outs(%0 : tensor<2xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 0 : index
    %extracted = tensor.extract %arg0[%3, %2] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----
// raise-linalg-gather, negative: a clamp to [0, 2] on a dim of 4 (neither clip nor raise).
// CHECK-LABEL: func.func @not_gather_clamp_to_wrong_bound
// CHECK: linalg.generic
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-linalg-gather: no match: a position that is not gmx's reading of an index
func.func @not_gather_clamp_to_wrong_bound(%arg0: tensor<4x5xf32>, %arg1: tensor<2x1xi64>) -> tensor<2x5xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %0 = tensor.empty() : tensor<2x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<2x5xf32>) {
  ^bb0(%out: f32):
    %2 = linalg.index 0 : index
    %3 = linalg.index 1 : index
    %extracted = tensor.extract %arg1[%2, %c0] : tensor<2x1xi64>
    %4 = arith.index_cast %extracted : i64 to index
    %5 = arith.maxsi %c0, %4 : index
    %6 = arith.minsi %5, %c2 : index
    %extracted_2 = tensor.extract %arg0[%6, %3] : tensor<4x5xf32>
    linalg.yield %extracted_2 : f32
  } -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}

// -----
// raise-linalg-gather, negative: the index tensor is read transposed (no view of it).
// CHECK-LABEL: func.func @not_gather_permuted_index_map
// CHECK: linalg.generic
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-linalg-gather: no match: the index tensor's loop dims are permuted or repeated
func.func @not_gather_permuted_index_map(%arg0: tensor<4x5x6xf32>, %arg1: tensor<3x2xi64>) -> tensor<2x3x6xf32> {
  %0 = tensor.empty() : tensor<2x3x6xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<3x2xi64>) outs(%0 : tensor<2x3x6xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 2 : index
    %4 = linalg.index 1 : index
    %extracted = tensor.extract %arg0[%2, %4, %3] : tensor<4x5x6xf32>
    linalg.yield %extracted : f32
  } -> tensor<2x3x6xf32>
  return %1 : tensor<2x3x6xf32>
}

// -----
// raise-linalg-gather, negative (for now): the body reads the first 2 of the 7 index rows; no view
// of the index tensor reads part of it.
// CHECK-LABEL: func.func @not_gather_index_tensor_read_in_part
// CHECK: linalg.generic
// CHECK-NOT: gmx.gather_multiaxis
// WHY: raise-linalg-gather: no match: an index tensor read over part of a dim
func.func @not_gather_index_tensor_read_in_part(%arg0: tensor<4x5xf32>, %arg1: tensor<7x1xi64>) -> tensor<2x5xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %0 = tensor.empty() : tensor<2x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<2x5xf32>) {
  ^bb0(%out: f32):
    %2 = linalg.index 0 : index
    %3 = linalg.index 1 : index
    %extracted = tensor.extract %arg1[%2, %c0] : tensor<7x1xi64>
    %4 = arith.index_cast %extracted : i64 to index
    %5 = arith.maxsi %c0, %4 : index
    %6 = arith.minsi %5, %c3 : index
    %extracted_2 = tensor.extract %arg0[%6, %3] : tensor<4x5xf32>
    linalg.yield %extracted_2 : f32
  } -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}
