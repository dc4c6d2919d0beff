// torch-mlir's linalg-on-tensors scatters (tm_tensor.scatter, with the generic
// flattening index and source in front), raised by --gmx-canonicalize into
// gmx.scatter_multiaxis: positive and negative cases.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s

// raise-tm-tensor-scatter: `x.scatter_add(1, i, src)`: the generic flattening
// i and src and the meshgrid row coordinate go; one scatter along dim 1.
// CHECK-LABEL: func.func @scatter_add
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 1>, reduction = "add"} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: tm_tensor.scatter
// CHECK: return %[[S]]
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @scatter_add(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<6x1xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<6x1xi64>) -> tensor<6x1xi64>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4:3 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel"]} outs(%1, %1, %3 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
  ^bb0(%out: i64, %out_1: i64, %out_2: f32):
    %8 = linalg.index 0 : index
    %9 = arith.remsi %8, %c2 : index
    %10 = arith.divsi %8, %c2 : index
    %11 = arith.remsi %10, %c3 : index
    %extracted = tensor.extract %arg1[%11, %9] : tensor<3x2xi64>
    %extracted_3 = tensor.extract %arg2[%11, %9] : tensor<3x2xf32>
    %12 = arith.index_cast %11 : index to i64
    linalg.yield %12, %extracted, %extracted_3 : i64, i64, f32
  } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
  %5 = tensor.empty() : tensor<6x2xi64>
  %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x2xi64>) -> tensor<6x2xi64>
  %inserted_slice = tensor.insert_slice %4#0 into %6[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %inserted_slice_0 = tensor.insert_slice %4#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %7 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_0 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %8 = arith.addf %arg4, %arg3 : f32
    tm_tensor.yield %8 : f32
  } -> tensor<3x5xf32>
  return %7 : tensor<3x5xf32>
}

// -----
// raise-tm-tensor-scatter: `x.scatter_reduce(1, i, src, "amax", include_self=False)`:
// the identity (-inf) scattered first, then the max: two gmx ops, no index arithmetic,
// which fold-identity-reset makes one (on x's shape stacked with a marker) and a select.
// CHECK-LABEL: func.func @scatter_amax
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%{{.*}}, %{{.*}}, %{{.*}}) {axes = array<i64: 1>, reduction = "max"} : (tensor<3x5x2xf32>, tensor<3x2x1xi64>, tensor<3x2x2xf32>) -> tensor<3x5x2xf32>
// CHECK-NOT: gmx.scatter_multiaxis
// CHECK-NOT: linalg.generic
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %arg0
// CHECK: return %[[R]]
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @scatter_amax(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<6x1xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<6x1xi64>) -> tensor<6x1xi64>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4:3 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel"]} outs(%1, %1, %3 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
  ^bb0(%out: i64, %out_2: i64, %out_3: f32):
    %10 = linalg.index 0 : index
    %11 = arith.remsi %10, %c2 : index
    %12 = arith.divsi %10, %c2 : index
    %13 = arith.remsi %12, %c3 : index
    %extracted = tensor.extract %arg1[%13, %11] : tensor<3x2xi64>
    %extracted_4 = tensor.extract %arg2[%13, %11] : tensor<3x2xf32>
    %14 = arith.index_cast %13 : index to i64
    linalg.yield %14, %extracted, %extracted_4 : i64, i64, f32
  } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
  %5 = tensor.empty() : tensor<6x2xi64>
  %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x2xi64>) -> tensor<6x2xi64>
  %inserted_slice = tensor.insert_slice %4#0 into %6[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %inserted_slice_1 = tensor.insert_slice %4#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %8 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%7, %inserted_slice_1 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<3x5xf32>
  %9 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_1 : tensor<6xf32>, tensor<6x2xi64>) outs(%8 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %10 = arith.maximumf %arg3, %arg4 : f32
    tm_tensor.yield %10 : f32
  } -> tensor<3x5xf32>
  return %9 : tensor<3x5xf32>
}

// -----
// raise-tm-tensor-scatter: `x.scatter_reduce(1, i, src, "mean")`: the sums,
// and the counts as a scatter-add of one broadcast 1.0 into ones; the divide stays.
// CHECK-LABEL: func.func @scatter_mean
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK: %[[SUM:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 1>, reduction = "add"}
// CHECK: %[[COUNT:.*]] = "gmx.scatter_multiaxis"(%{{.*}}, %arg1, %[[ONE]]) {axes = array<i64: 1>, reduction = "add"}
// CHECK: linalg.map { arith.divf } ins(%[[SUM]], %[[COUNT]]
// CHECK-NOT: tm_tensor.scatter
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @scatter_mean(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<6x1xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<6x1xi64>) -> tensor<6x1xi64>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4:3 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel"]} outs(%1, %1, %3 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
  ^bb0(%out: i64, %out_2: i64, %out_3: f32):
    %11 = linalg.index 0 : index
    %12 = arith.remsi %11, %c2 : index
    %13 = arith.divsi %11, %c2 : index
    %14 = arith.remsi %13, %c3 : index
    %extracted = tensor.extract %arg1[%14, %12] : tensor<3x2xi64>
    %extracted_4 = tensor.extract %arg2[%14, %12] : tensor<3x2xf32>
    %15 = arith.index_cast %14 : index to i64
    linalg.yield %15, %extracted, %extracted_4 : i64, i64, f32
  } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
  %5 = tensor.empty() : tensor<6x2xi64>
  %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x2xi64>) -> tensor<6x2xi64>
  %inserted_slice = tensor.insert_slice %4#0 into %6[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %inserted_slice_1 = tensor.insert_slice %4#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %7 = tensor.empty() : tensor<3x5xf32>
  %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %9 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_1 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %11 = arith.addf %arg3, %arg4 : f32
    tm_tensor.yield %11 : f32
  } -> tensor<3x5xf32>
  %10 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_1 : tensor<6xf32>, tensor<6x2xi64>) outs(%8 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %11 = arith.addf %arg4, %cst_0 : f32
    tm_tensor.yield %11 : f32
  } -> tensor<3x5xf32>
  %mapped = linalg.map { arith.divf } ins(%9, %10 : tensor<3x5xf32>, tensor<3x5xf32>) outs(%7 : tensor<3x5xf32>)
  return %mapped : tensor<3x5xf32>
}

// -----
// raise-tm-tensor-scatter: `index_put` of rows: indices read directly, the
// slices of rows are the updates, torch-mlir's unique_indices kept.
// CHECK-LABEL: func.func @index_put_rows
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [2, 1]
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[E]], %arg2) {axes = array<i64: 0>, unique_indices} : (tensor<3x5xf32>, tensor<2x1xi64>, tensor<2x5xf32>) -> tensor<3x5xf32>
// CHECK: return %[[S]]
func.func @index_put_rows(%arg0: tensor<3x5xf32>, %arg1: tensor<2xi64>, %arg2: tensor<2x5xf32>) -> tensor<3x5xf32> {
  %expanded = tensor.expand_shape %arg1 [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
  %expanded_0 = tensor.expand_shape %arg2 [[0], [1, 2]] output_shape [2, 1, 5] : tensor<2x5xf32> into tensor<2x1x5xf32>
  %0 = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%expanded_0, %expanded : tensor<2x1x5xf32>, tensor<2x1xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----
// raise-tm-tensor-scatter: `x.scatter(1, i, -inf)`: the generic yields a
// scalar: one broadcast element.
// CHECK-LABEL: func.func @scatter_scalar
// CHECK: %[[C:.*]] = arith.constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK: "gmx.scatter_multiaxis"(%arg0, %arg1, %[[C]]) {axes = array<i64: 1>}
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @scatter_scalar(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>) -> tensor<3x5xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<6x1xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<6x1xi64>) -> tensor<6x1xi64>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4:3 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel"]} outs(%1, %1, %3 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
  ^bb0(%out: i64, %out_2: i64, %out_3: f32):
    %8 = linalg.index 0 : index
    %9 = arith.remsi %8, %c2 : index
    %10 = arith.divsi %8, %c2 : index
    %11 = arith.remsi %10, %c3 : index
    %extracted = tensor.extract %arg1[%11, %9] : tensor<3x2xi64>
    %12 = arith.index_cast %11 : index to i64
    linalg.yield %12, %extracted, %cst_0 : i64, i64, f32
  } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
  %5 = tensor.empty() : tensor<6x2xi64>
  %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x2xi64>) -> tensor<6x2xi64>
  %inserted_slice = tensor.insert_slice %4#0 into %6[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %inserted_slice_1 = tensor.insert_slice %4#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %7 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_1 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg2: f32, %arg3: f32):
    tm_tensor.yield %arg2 : f32
  } -> tensor<3x5xf32>
  return %7 : tensor<3x5xf32>
}

// -----
// raise-tm-tensor-scatter, negative: a region gmx has no reduction for (a subtraction) stays.
// CHECK-LABEL: func.func @scatter_sub
// CHECK: tm_tensor.scatter
// CHECK-NOT: gmx.scatter_multiaxis
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @scatter_sub(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<6x1xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<6x1xi64>) -> tensor<6x1xi64>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4:3 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel"]} outs(%1, %1, %3 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
  ^bb0(%out: i64, %out_1: i64, %out_2: f32):
    %8 = linalg.index 0 : index
    %9 = arith.remsi %8, %c2 : index
    %10 = arith.divsi %8, %c2 : index
    %11 = arith.remsi %10, %c3 : index
    %extracted = tensor.extract %arg1[%11, %9] : tensor<3x2xi64>
    %extracted_3 = tensor.extract %arg2[%11, %9] : tensor<3x2xf32>
    %12 = arith.index_cast %11 : index to i64
    linalg.yield %12, %extracted, %extracted_3 : i64, i64, f32
  } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
  %5 = tensor.empty() : tensor<6x2xi64>
  %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x2xi64>) -> tensor<6x2xi64>
  %inserted_slice = tensor.insert_slice %4#0 into %6[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %inserted_slice_0 = tensor.insert_slice %4#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %7 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_0 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %8 = arith.subf %arg4, %arg3 : f32
    tm_tensor.yield %8 : f32
  } -> tensor<3x5xf32>
  return %7 : tensor<3x5xf32>
}

// -----
// raise-tm-tensor-scatter, negative: a source read in another order than
// the indices (here its first column only) is no updates tensor: it stays.
// CHECK-LABEL: func.func @scatter_reordered
// CHECK: tm_tensor.scatter
// CHECK-NOT: gmx.scatter_multiaxis
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @scatter_reordered(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<6x1xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<6x1xi64>) -> tensor<6x1xi64>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4:3 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel"]} outs(%1, %1, %3 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
  ^bb0(%out: i64, %out_1: i64, %out_2: f32):
    %8 = linalg.index 0 : index
    %9 = arith.remsi %8, %c2 : index
    %10 = arith.divsi %8, %c2 : index
    %11 = arith.remsi %10, %c3 : index
    %extracted = tensor.extract %arg1[%11, %9] : tensor<3x2xi64>
    %extracted_3 = tensor.extract %arg2[%11, %c0] : tensor<3x2xf32>
    %12 = arith.index_cast %11 : index to i64
    linalg.yield %12, %extracted, %extracted_3 : i64, i64, f32
  } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
  %5 = tensor.empty() : tensor<6x2xi64>
  %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x2xi64>) -> tensor<6x2xi64>
  %inserted_slice = tensor.insert_slice %4#0 into %6[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %inserted_slice_0 = tensor.insert_slice %4#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %7 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_0 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %8 = arith.addf %arg4, %arg3 : f32
    tm_tensor.yield %8 : f32
  } -> tensor<3x5xf32>
  return %7 : tensor<3x5xf32>
}

// -----
// raise-tm-tensor-scatter: `cache.index_copy(1, pos, new)` (a KV-cache
// update): torch-mlir's full coordinate tuples are aranges and `pos`
// broadcast by generics; the aranges are non-axis dims, `pos` the one axis.
// CHECK-LABEL: func.func @index_copy
// CHECK: %[[P:.*]] = tensor.expand_shape %arg2 {{\[}}[0, 1, 2]] output_shape [1, 1, 1]
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %[[P]], %arg1) {axes = array<i64: 1>, unique_indices} : (tensor<2x6x3xf32>, tensor<1x1x1xi64>, tensor<2x1x3xf32>) -> tensor<2x6x3xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d1)>
#map4 = affine_map<(d0, d1, d2) -> (d2)>
func.func @index_copy(%arg0: tensor<2x6x3xf32>, %arg1: tensor<2x1x3xf32>, %arg2: tensor<1xi64>) -> tensor<2x6x3xf32> {
  %0 = tensor.empty() : tensor<3xi64>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<3xi64>) {
  ^bb0(%out: i64):
    %9 = linalg.index 0 : index
    %10 = arith.index_cast %9 : index to i64
    linalg.yield %10 : i64
  } -> tensor<3xi64>
  %2 = tensor.empty() : tensor<2xi64>
  %3 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%2 : tensor<2xi64>) {
  ^bb0(%out: i64):
    %9 = linalg.index 0 : index
    %10 = arith.index_cast %9 : index to i64
    linalg.yield %10 : i64
  } -> tensor<2xi64>
  %4 = tensor.empty() : tensor<2x1x3xi64>
  %expanded = tensor.expand_shape %3 [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
  %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<2x1xi64>) outs(%4 : tensor<2x1x3xi64>) {
  ^bb0(%in: i64, %out: i64):
    linalg.yield %in : i64
  } -> tensor<2x1x3xi64>
  %collapsed = tensor.collapse_shape %5 [[0, 1, 2]] : tensor<2x1x3xi64> into tensor<6xi64>
  %6 = linalg.generic {indexing_maps = [#map3, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<1xi64>) outs(%4 : tensor<2x1x3xi64>) {
  ^bb0(%in: i64, %out: i64):
    linalg.yield %in : i64
  } -> tensor<2x1x3xi64>
  %collapsed_0 = tensor.collapse_shape %6 [[0, 1, 2]] : tensor<2x1x3xi64> into tensor<6xi64>
  %7 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<3xi64>) outs(%4 : tensor<2x1x3xi64>) {
  ^bb0(%in: i64, %out: i64):
    linalg.yield %in : i64
  } -> tensor<2x1x3xi64>
  %collapsed_1 = tensor.collapse_shape %7 [[0, 1, 2]] : tensor<2x1x3xi64> into tensor<6xi64>
  %expanded_2 = tensor.expand_shape %collapsed [[0, 1]] output_shape [6, 1] : tensor<6xi64> into tensor<6x1xi64>
  %expanded_3 = tensor.expand_shape %collapsed_0 [[0, 1]] output_shape [6, 1] : tensor<6xi64> into tensor<6x1xi64>
  %expanded_4 = tensor.expand_shape %collapsed_1 [[0, 1]] output_shape [6, 1] : tensor<6xi64> into tensor<6x1xi64>
  %concat = tensor.concat dim(1) %expanded_2, %expanded_3, %expanded_4 : (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6x1xi64>) -> tensor<6x3xi64>
  %collapsed_5 = tensor.collapse_shape %arg1 [[0, 1, 2]] : tensor<2x1x3xf32> into tensor<6xf32>
  %expanded_6 = tensor.expand_shape %collapsed_5 [[0, 1, 2, 3]] output_shape [6, 1, 1, 1] : tensor<6xf32> into tensor<6x1x1x1xf32>
  %8 = tm_tensor.scatter {dimension_map = array<i64: 0, 1, 2>} unique_indices(true) ins(%expanded_6, %concat : tensor<6x1x1x1xf32>, tensor<6x3xi64>) outs(%arg0 : tensor<2x6x3xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    tm_tensor.yield %arg3 : f32
  } -> tensor<2x6x3xf32>
  return %8 : tensor<2x6x3xf32>
}

// -----
// raise-tm-tensor-scatter: `x.scatter_add(1, i, src)` with `src` larger than
// `i` (torch reads src's leading corner of i's shape): the corner is the updates.
// CHECK-LABEL: func.func @scatter_add_larger_src
// CHECK: %[[C:.*]] = tensor.extract_slice %arg2[0, 0] [3, 2] [1, 1] : tensor<3x4xf32> to tensor<3x2xf32>
// CHECK: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %[[C]]) {axes = array<i64: 1>, reduction = "add"}
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
func.func @scatter_add_larger_src(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x4xf32>) -> tensor<3x5xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<6x1xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<6x1xi64>) -> tensor<6x1xi64>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4:3 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel"]} outs(%1, %1, %3 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
  ^bb0(%out: i64, %out_1: i64, %out_2: f32):
    %8 = linalg.index 0 : index
    %9 = arith.remsi %8, %c2 : index
    %10 = arith.divsi %8, %c2 : index
    %11 = arith.remsi %10, %c3 : index
    %extracted = tensor.extract %arg1[%11, %9] : tensor<3x2xi64>
    %extracted_3 = tensor.extract %arg2[%11, %9] : tensor<3x4xf32>
    %12 = arith.index_cast %11 : index to i64
    linalg.yield %12, %extracted, %extracted_3 : i64, i64, f32
  } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
  %5 = tensor.empty() : tensor<6x2xi64>
  %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x2xi64>) -> tensor<6x2xi64>
  %inserted_slice = tensor.insert_slice %4#0 into %6[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %inserted_slice_0 = tensor.insert_slice %4#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
  %7 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%4#2, %inserted_slice_0 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %8 = arith.addf %arg4, %arg3 : f32
    tm_tensor.yield %8 : f32
  } -> tensor<3x5xf32>
  return %7 : tensor<3x5xf32>
}
