// ONNX's scatters as torch-mlir's ONNX importer makes them (TOSA, linalg-on-tensors,
// StableHLO: ScatterElements and ScatterND behind ONNX's negative-index
// `where(i < 0, i + n, i)`), raised by --gmx-canonicalize into one
// gmx.scatter_multiaxis with the `where` folded (gmx's mode raise wraps a
// negative index once, as ONNX does; StableHLO's skip is mode drop on the
// index before the `where`). Positive and negative cases: each negative adds
// the wrong size (n - 1), which is no wrap, and keeps the arithmetic.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s

// simplify-indices: ScatterElements(axis=1, reduction="add") in linalg-on-tensors: the
// `where` is three elementwise linalg.generics (addi, cmpi, select), evaluated as one
// index function; it wraps like gmx on [-5, 5), so the scatter reads the ONNX indices.
// CHECK-LABEL: func.func @where_linalg(
// CHECK-NEXT: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 1>, reduction = "add"} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %[[S]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
  func.func @where_linalg(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5_i64 = arith.constant 5 : i64
    %0 = tensor.empty() : tensor<3x2xi64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x2xi64>) outs(%0 : tensor<3x2xi64>) {
    ^bb0(%in: i64, %out: i64):
      %13 = arith.addi %in, %c5_i64 : i64
      linalg.yield %13 : i64
    } -> tensor<3x2xi64>
    %2 = tensor.empty() : tensor<3x2xi1>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x2xi64>) outs(%2 : tensor<3x2xi1>) {
    ^bb0(%in: i64, %out: i1):
      %13 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %13 : i1
    } -> tensor<3x2xi1>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %1, %arg1 : tensor<3x2xi1>, tensor<3x2xi64>, tensor<3x2xi64>) outs(%0 : tensor<3x2xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %13 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %13 : i64
    } -> tensor<3x2xi64>
    %5 = tensor.empty() : tensor<6x1xi64>
    %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x1xi64>) -> tensor<6x1xi64>
    %7 = tensor.empty() : tensor<6xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<6xf32>) -> tensor<6xf32>
    %9:3 = linalg.generic {indexing_maps = [#map1, #map1, #map2], iterator_types = ["parallel"]} outs(%6, %6, %8 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
    ^bb0(%out: i64, %out_1: i64, %out_2: f32):
      %13 = linalg.index 0 : index
      %14 = arith.remsi %13, %c2 : index
      %15 = arith.divsi %13, %c2 : index
      %16 = arith.remsi %15, %c3 : index
      %extracted = tensor.extract %4[%16, %14] : tensor<3x2xi64>
      %extracted_3 = tensor.extract %arg2[%16, %14] : tensor<3x2xf32>
      %17 = arith.index_cast %16 : index to i64
      linalg.yield %17, %extracted, %extracted_3 : i64, i64, f32
    } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
    %10 = tensor.empty() : tensor<6x2xi64>
    %11 = linalg.fill ins(%c0_i64 : i64) outs(%10 : tensor<6x2xi64>) -> tensor<6x2xi64>
    %inserted_slice = tensor.insert_slice %9#0 into %11[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
    %inserted_slice_0 = tensor.insert_slice %9#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
    %12 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%9#2, %inserted_slice_0 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
    ^bb0(%arg3: f32, %arg4: f32):
      %13 = arith.addf %arg3, %arg4 : f32
      tm_tensor.yield %13 : f32
    } -> tensor<3x5xf32>
    return %12 : tensor<3x5xf32>
  }

// -----
// simplify-indices, negative: `i + 4` on an axis of 5 is no wrap; the generics stay.
// CHECK-LABEL: func.func @where_linalg_wrong(
// CHECK: %[[W:[0-9]+]] = linalg.generic {{.*}} ins(%{{[0-9]+}}, %{{[0-9]+}}, %arg1
// CHECK: arith.select
// CHECK: "gmx.scatter_multiaxis"(%arg0, %[[W]], %arg2) {axes = array<i64: 1>, reduction = "add"}
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
  func.func @where_linalg_wrong(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5_i64 = arith.constant 4 : i64
    %0 = tensor.empty() : tensor<3x2xi64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x2xi64>) outs(%0 : tensor<3x2xi64>) {
    ^bb0(%in: i64, %out: i64):
      %13 = arith.addi %in, %c5_i64 : i64
      linalg.yield %13 : i64
    } -> tensor<3x2xi64>
    %2 = tensor.empty() : tensor<3x2xi1>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x2xi64>) outs(%2 : tensor<3x2xi1>) {
    ^bb0(%in: i64, %out: i1):
      %13 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %13 : i1
    } -> tensor<3x2xi1>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %1, %arg1 : tensor<3x2xi1>, tensor<3x2xi64>, tensor<3x2xi64>) outs(%0 : tensor<3x2xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %13 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %13 : i64
    } -> tensor<3x2xi64>
    %5 = tensor.empty() : tensor<6x1xi64>
    %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<6x1xi64>) -> tensor<6x1xi64>
    %7 = tensor.empty() : tensor<6xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<6xf32>) -> tensor<6xf32>
    %9:3 = linalg.generic {indexing_maps = [#map1, #map1, #map2], iterator_types = ["parallel"]} outs(%6, %6, %8 : tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>) {
    ^bb0(%out: i64, %out_1: i64, %out_2: f32):
      %13 = linalg.index 0 : index
      %14 = arith.remsi %13, %c2 : index
      %15 = arith.divsi %13, %c2 : index
      %16 = arith.remsi %15, %c3 : index
      %extracted = tensor.extract %4[%16, %14] : tensor<3x2xi64>
      %extracted_3 = tensor.extract %arg2[%16, %14] : tensor<3x2xf32>
      %17 = arith.index_cast %16 : index to i64
      linalg.yield %17, %extracted, %extracted_3 : i64, i64, f32
    } -> (tensor<6x1xi64>, tensor<6x1xi64>, tensor<6xf32>)
    %10 = tensor.empty() : tensor<6x2xi64>
    %11 = linalg.fill ins(%c0_i64 : i64) outs(%10 : tensor<6x2xi64>) -> tensor<6x2xi64>
    %inserted_slice = tensor.insert_slice %9#0 into %11[0, 0] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
    %inserted_slice_0 = tensor.insert_slice %9#1 into %inserted_slice[0, 1] [6, 1] [1, 1] : tensor<6x1xi64> into tensor<6x2xi64>
    %12 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%9#2, %inserted_slice_0 : tensor<6xf32>, tensor<6x2xi64>) outs(%arg0 : tensor<3x5xf32>) {
    ^bb0(%arg3: f32, %arg4: f32):
      %13 = arith.addf %arg3, %arg4 : f32
      tm_tensor.yield %13 : f32
    } -> tensor<3x5xf32>
    return %12 : tensor<3x5xf32>
  }

// -----
// simplify-indices: ScatterElements(axis=1) in TOSA: the `where` adds in i32 (a
// narrowing cast of the i64 index first) and the scatter reads i32. The cast
// only feeds the index, so it assumes in-range values: gmx reads the wide i64
// index, checked as it is (an index past i32 is an IndexError, not its
// truncation).
// CHECK-LABEL: func.func @where_tosa(
// CHECK-NEXT: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 1>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %[[S]]
  func.func @where_tosa(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
    %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %1 = tosa.const_shape  {values = dense<[3, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %2 = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]], [[2], [2]]]> : tensor<3x2x1xi32>}> : () -> tensor<3x2x1xi32>
    %3 = tosa.const_shape  {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %4 = tosa.const_shape  {values = dense<[1, 15, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %5 = tosa.const_shape  {values = dense<[6, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %6 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %7 = tosa.const_shape  {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = "tosa.const"() <{values = dense<5> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
    %9 = "tosa.const"() <{values = dense<0> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
    %10 = "tosa.const"() <{values = dense<[[5, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
    %11 = tosa.cast %arg1 : (tensor<3x2xi64>) -> tensor<3x2xi32>
    %12 = tosa.add %11, %8 : (tensor<3x2xi32>, tensor<1x1xi32>) -> tensor<3x2xi32>
    %13 = tosa.cast %12 : (tensor<3x2xi32>) -> tensor<3x2xi64>
    %14 = tosa.greater %9, %arg1 : (tensor<1x1xi64>, tensor<3x2xi64>) -> tensor<3x2xi1>
    %15 = tosa.select %14, %13, %arg1 : (tensor<3x2xi1>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x2xi64>
    %16 = tosa.cast %15 : (tensor<3x2xi64>) -> tensor<3x2xi32>
    %17 = tosa.reshape %16, %1 : (tensor<3x2xi32>, !tosa.shape<3>) -> tensor<3x2x1xi32>
    %18 = tosa.concat %2, %17 {axis = 2 : i32} : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x2xi32>
    %19 = tosa.reshape %arg2, %3 : (tensor<3x2xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
    %20 = tosa.reshape %arg0, %4 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x15x1xf32>
    %21 = tosa.reshape %18, %5 : (tensor<3x2x2xi32>, !tosa.shape<2>) -> tensor<6x2xi32>
    %22 = tosa.mul %21, %10, %0 : (tensor<6x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<6x2xi32>
    %23 = tosa.reduce_sum %22 {axis = 1 : i32} : (tensor<6x2xi32>) -> tensor<6x1xi32>
    %24 = tosa.reshape %23, %6 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
    %25 = tosa.scatter %20, %24, %19 : (tensor<1x15x1xf32>, tensor<1x6xi32>, tensor<1x6x1xf32>) -> tensor<1x15x1xf32>
    %26 = tosa.reshape %25, %7 : (tensor<1x15x1xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
    return %26 : tensor<3x5xf32>
  }

// -----
// simplify-indices, negative: `i + 4` on an axis of 5: the select stays.
// CHECK-LABEL: func.func @where_tosa_wrong(
// (The final i64 -> i32 cast only feeds the index: the wide select is read.)
// CHECK: %[[W:.*]] = tosa.select
// CHECK: "gmx.scatter_multiaxis"(%arg0, %[[W]], %arg2) {axes = array<i64: 1>}
  func.func @where_tosa_wrong(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
    %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %1 = tosa.const_shape  {values = dense<[3, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %2 = "tosa.const"() <{values = dense<[[[0], [0]], [[1], [1]], [[2], [2]]]> : tensor<3x2x1xi32>}> : () -> tensor<3x2x1xi32>
    %3 = tosa.const_shape  {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %4 = tosa.const_shape  {values = dense<[1, 15, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %5 = tosa.const_shape  {values = dense<[6, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %6 = tosa.const_shape  {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %7 = tosa.const_shape  {values = dense<[3, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = "tosa.const"() <{values = dense<4> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
    %9 = "tosa.const"() <{values = dense<0> : tensor<1x1xi64>}> : () -> tensor<1x1xi64>
    %10 = "tosa.const"() <{values = dense<[[5, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
    %11 = tosa.cast %arg1 : (tensor<3x2xi64>) -> tensor<3x2xi32>
    %12 = tosa.add %11, %8 : (tensor<3x2xi32>, tensor<1x1xi32>) -> tensor<3x2xi32>
    %13 = tosa.cast %12 : (tensor<3x2xi32>) -> tensor<3x2xi64>
    %14 = tosa.greater %9, %arg1 : (tensor<1x1xi64>, tensor<3x2xi64>) -> tensor<3x2xi1>
    %15 = tosa.select %14, %13, %arg1 : (tensor<3x2xi1>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x2xi64>
    %16 = tosa.cast %15 : (tensor<3x2xi64>) -> tensor<3x2xi32>
    %17 = tosa.reshape %16, %1 : (tensor<3x2xi32>, !tosa.shape<3>) -> tensor<3x2x1xi32>
    %18 = tosa.concat %2, %17 {axis = 2 : i32} : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x2xi32>
    %19 = tosa.reshape %arg2, %3 : (tensor<3x2xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
    %20 = tosa.reshape %arg0, %4 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x15x1xf32>
    %21 = tosa.reshape %18, %5 : (tensor<3x2x2xi32>, !tosa.shape<2>) -> tensor<6x2xi32>
    %22 = tosa.mul %21, %10, %0 : (tensor<6x2xi32>, tensor<1x2xi32>, tensor<1xi8>) -> tensor<6x2xi32>
    %23 = tosa.reduce_sum %22 {axis = 1 : i32} : (tensor<6x2xi32>) -> tensor<6x1xi32>
    %24 = tosa.reshape %23, %6 : (tensor<6x1xi32>, !tosa.shape<2>) -> tensor<1x6xi32>
    %25 = tosa.scatter %20, %24, %19 : (tensor<1x15x1xf32>, tensor<1x6xi32>, tensor<1x6x1xf32>) -> tensor<1x15x1xf32>
    %26 = tosa.reshape %25, %7 : (tensor<1x15x1xf32>, !tosa.shape<2>) -> tensor<3x5xf32>
    return %26 : tensor<3x5xf32>
  }

// -----
// simplify-indices: ScatterND of rows (reduction "max"): torch-mlir broadcasts the
// normalised row index over the row (a linalg.generic yielding its input); the
// coordinate is read before the broadcast, then before the `where`.
// CHECK-LABEL: func.func @rows_linalg(
// CHECK-NEXT: %[[S:.*]] = "gmx.scatter_multiaxis"(%arg0, %arg1, %arg2) {axes = array<i64: 0>, reduction = "max"} : (tensor<4x5xf32>, tensor<3x1xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: return %[[S]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
  func.func @rows_linalg(%arg0: tensor<4x5xf32>, %arg1: tensor<3x1xi64>, %arg2: tensor<3x5xf32>) -> tensor<4x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %c5 = arith.constant 5 : index
    %c3 = arith.constant 3 : index
    %c4_i64 = arith.constant 4 : i64
    %0 = tensor.empty() : tensor<3x1xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x1xi64>) outs(%0 : tensor<3x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %15 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %15 : i1
    } -> tensor<3x1xi1>
    %2 = tensor.empty() : tensor<3x1xi64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = arith.addi %in, %c4_i64 : i64
      linalg.yield %15 : i64
    } -> tensor<3x1xi64>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %3, %arg1 : tensor<3x1xi1>, tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %15 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %15 : i64
    } -> tensor<3x1xi64>
    %5 = tensor.empty() : tensor<3x5xi64>
    %collapsed = tensor.collapse_shape %4 [[0, 1]] : tensor<3x1xi64> into tensor<3xi64>
    %6 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<3xi64>) outs(%5 : tensor<3x5xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<3x5xi64>
    %7 = tensor.empty() : tensor<15x1xi64>
    %8 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<15x1xi64>) -> tensor<15x1xi64>
    %9 = tensor.empty() : tensor<15xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<15xf32>) -> tensor<15xf32>
    %11:3 = linalg.generic {indexing_maps = [#map2, #map2, #map3], iterator_types = ["parallel"]} outs(%8, %8, %10 : tensor<15x1xi64>, tensor<15x1xi64>, tensor<15xf32>) {
    ^bb0(%out: i64, %out_1: i64, %out_2: f32):
      %15 = linalg.index 0 : index
      %16 = arith.remsi %15, %c5 : index
      %17 = arith.divsi %15, %c5 : index
      %18 = arith.remsi %17, %c3 : index
      %extracted = tensor.extract %6[%18, %16] : tensor<3x5xi64>
      %extracted_3 = tensor.extract %arg2[%18, %16] : tensor<3x5xf32>
      %19 = arith.index_cast %16 : index to i64
      linalg.yield %extracted, %19, %extracted_3 : i64, i64, f32
    } -> (tensor<15x1xi64>, tensor<15x1xi64>, tensor<15xf32>)
    %12 = tensor.empty() : tensor<15x2xi64>
    %13 = linalg.fill ins(%c0_i64 : i64) outs(%12 : tensor<15x2xi64>) -> tensor<15x2xi64>
    %inserted_slice = tensor.insert_slice %11#0 into %13[0, 0] [15, 1] [1, 1] : tensor<15x1xi64> into tensor<15x2xi64>
    %inserted_slice_0 = tensor.insert_slice %11#1 into %inserted_slice[0, 1] [15, 1] [1, 1] : tensor<15x1xi64> into tensor<15x2xi64>
    %14 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%11#2, %inserted_slice_0 : tensor<15xf32>, tensor<15x2xi64>) outs(%arg0 : tensor<4x5xf32>) {
    ^bb0(%arg3: f32, %arg4: f32):
      %15 = arith.maximumf %arg3, %arg4 : f32
      tm_tensor.yield %15 : f32
    } -> tensor<4x5xf32>
    return %14 : tensor<4x5xf32>
  }

// -----
// simplify-indices, negative: `i + 3` on an axis of 4: the `where` stays (read
// before the broadcast all the same).
// CHECK-LABEL: func.func @rows_linalg_wrong(
// CHECK: %[[W:[0-9]+]] = linalg.generic {{.*}} ins(%{{[0-9]+}}, %{{[0-9]+}}, %arg1
// CHECK: arith.select
// CHECK: "gmx.scatter_multiaxis"(%arg0, %[[W]], %arg2) {axes = array<i64: 0>, reduction = "max"}
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
  func.func @rows_linalg_wrong(%arg0: tensor<4x5xf32>, %arg1: tensor<3x1xi64>, %arg2: tensor<3x5xf32>) -> tensor<4x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %c5 = arith.constant 5 : index
    %c3 = arith.constant 3 : index
    %c4_i64 = arith.constant 3 : i64
    %0 = tensor.empty() : tensor<3x1xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x1xi64>) outs(%0 : tensor<3x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %15 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %15 : i1
    } -> tensor<3x1xi1>
    %2 = tensor.empty() : tensor<3x1xi64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = arith.addi %in, %c4_i64 : i64
      linalg.yield %15 : i64
    } -> tensor<3x1xi64>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %3, %arg1 : tensor<3x1xi1>, tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %15 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %15 : i64
    } -> tensor<3x1xi64>
    %5 = tensor.empty() : tensor<3x5xi64>
    %collapsed = tensor.collapse_shape %4 [[0, 1]] : tensor<3x1xi64> into tensor<3xi64>
    %6 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<3xi64>) outs(%5 : tensor<3x5xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<3x5xi64>
    %7 = tensor.empty() : tensor<15x1xi64>
    %8 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<15x1xi64>) -> tensor<15x1xi64>
    %9 = tensor.empty() : tensor<15xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<15xf32>) -> tensor<15xf32>
    %11:3 = linalg.generic {indexing_maps = [#map2, #map2, #map3], iterator_types = ["parallel"]} outs(%8, %8, %10 : tensor<15x1xi64>, tensor<15x1xi64>, tensor<15xf32>) {
    ^bb0(%out: i64, %out_1: i64, %out_2: f32):
      %15 = linalg.index 0 : index
      %16 = arith.remsi %15, %c5 : index
      %17 = arith.divsi %15, %c5 : index
      %18 = arith.remsi %17, %c3 : index
      %extracted = tensor.extract %6[%18, %16] : tensor<3x5xi64>
      %extracted_3 = tensor.extract %arg2[%18, %16] : tensor<3x5xf32>
      %19 = arith.index_cast %16 : index to i64
      linalg.yield %extracted, %19, %extracted_3 : i64, i64, f32
    } -> (tensor<15x1xi64>, tensor<15x1xi64>, tensor<15xf32>)
    %12 = tensor.empty() : tensor<15x2xi64>
    %13 = linalg.fill ins(%c0_i64 : i64) outs(%12 : tensor<15x2xi64>) -> tensor<15x2xi64>
    %inserted_slice = tensor.insert_slice %11#0 into %13[0, 0] [15, 1] [1, 1] : tensor<15x1xi64> into tensor<15x2xi64>
    %inserted_slice_0 = tensor.insert_slice %11#1 into %inserted_slice[0, 1] [15, 1] [1, 1] : tensor<15x1xi64> into tensor<15x2xi64>
    %14 = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%11#2, %inserted_slice_0 : tensor<15xf32>, tensor<15x2xi64>) outs(%arg0 : tensor<4x5xf32>) {
    ^bb0(%arg3: f32, %arg4: f32):
      %15 = arith.maximumf %arg3, %arg4 : f32
      tm_tensor.yield %15 : f32
    } -> tensor<4x5xf32>
    return %14 : tensor<4x5xf32>
  }

// -----
// split-linearised-index / simplify-indices: ScatterND of elements: the tuple's
// columns (tensor.extract_slice), each normalised, linearised by a generic
// `c0 * 5 + c1` into the flattened input. The linear generic splits into its
// terms (each normalised: an exact split), the columns are the components of
// the index tuples: one scatter on two axes reading the ONNX indices.
// CHECK-LABEL: func.func @elements_linalg(
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.extract_slice
// CHECK: "gmx.scatter_multiaxis"(%arg0, %{{.*}}, %{{.*}}) {axes = array<i64: 0, 1>} : (tensor<4x5xf32>, tensor<1x6xi64>, tensor<1x3xf32>) -> tensor<4x5xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
  func.func @elements_linalg(%arg0: tensor<4x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3xf32>) -> tensor<4x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %c3 = arith.constant 3 : index
    %c5_i64 = arith.constant 5 : i64
    %c4_i64 = arith.constant 4 : i64
    %extracted_slice = tensor.extract_slice %arg1[0, 0] [3, 1] [1, 1] : tensor<3x2xi64> to tensor<3x1xi64>
    %0 = tensor.empty() : tensor<3x1xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<3x1xi64>) outs(%0 : tensor<3x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %14 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %14 : i1
    } -> tensor<3x1xi1>
    %2 = tensor.empty() : tensor<3x1xi64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %out: i64):
      %14 = arith.addi %in, %c4_i64 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %3, %extracted_slice : tensor<3x1xi1>, tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i1, %in_2: i64, %in_3: i64, %out: i64):
      %14 = arith.select %in, %in_2, %in_3 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %extracted_slice_0 = tensor.extract_slice %arg1[0, 1] [3, 1] [1, 1] : tensor<3x2xi64> to tensor<3x1xi64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_0 : tensor<3x1xi64>) outs(%0 : tensor<3x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %14 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %14 : i1
    } -> tensor<3x1xi1>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_0 : tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %out: i64):
      %14 = arith.addi %in, %c5_i64 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %6, %extracted_slice_0 : tensor<3x1xi1>, tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i1, %in_2: i64, %in_3: i64, %out: i64):
      %14 = arith.select %in, %in_2, %in_3 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %4 : tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %in_2: i64, %out: i64):
      %14 = arith.muli %in_2, %c5_i64 : i64
      %15 = arith.addi %in, %14 : i64
      linalg.yield %15 : i64
    } -> tensor<3x1xi64>
    %collapsed = tensor.collapse_shape %8 [[0, 1]] : tensor<3x1xi64> into tensor<3xi64>
    %collapsed_1 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x5xf32> into tensor<20xf32>
    %9 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<3x1xi64>) -> tensor<3x1xi64>
    %10 = tensor.empty() : tensor<3xf32>
    %11 = linalg.fill ins(%cst : f32) outs(%10 : tensor<3xf32>) -> tensor<3xf32>
    %12:2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel"]} outs(%9, %11 : tensor<3x1xi64>, tensor<3xf32>) {
    ^bb0(%out: i64, %out_2: f32):
      %14 = linalg.index 0 : index
      %15 = arith.remsi %14, %c3 : index
      %extracted = tensor.extract %collapsed[%15] : tensor<3xi64>
      %extracted_3 = tensor.extract %arg2[%15] : tensor<3xf32>
      linalg.yield %extracted, %extracted_3 : i64, f32
    } -> (tensor<3x1xi64>, tensor<3xf32>)
    %13 = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%12#1, %12#0 : tensor<3xf32>, tensor<3x1xi64>) outs(%collapsed_1 : tensor<20xf32>) {
    ^bb0(%arg3: f32, %arg4: f32):
      tm_tensor.yield %arg3 : f32
    } -> tensor<20xf32>
    %expanded = tensor.expand_shape %13 [[0, 1]] output_shape [4, 5] : tensor<20xf32> into tensor<4x5xf32>
    return %expanded : tensor<4x5xf32>
  }

// -----
// split-linearised-index, negative: `c1 + c1 * c0` is no linearisation: the
// scatter stays on the flattened input.
// CHECK-LABEL: func.func @elements_linalg_wrong(
// CHECK: arith.muli
// CHECK: "gmx.scatter_multiaxis"(%{{.*}}, %{{.*}}, %arg2) {axes = array<i64: 0>} : (tensor<20xf32>, tensor<3xi64>, tensor<3xf32>) -> tensor<20xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
  func.func @elements_linalg_wrong(%arg0: tensor<4x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3xf32>) -> tensor<4x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %c3 = arith.constant 3 : index
    %c5_i64 = arith.constant 5 : i64
    %c4_i64 = arith.constant 4 : i64
    %extracted_slice = tensor.extract_slice %arg1[0, 0] [3, 1] [1, 1] : tensor<3x2xi64> to tensor<3x1xi64>
    %0 = tensor.empty() : tensor<3x1xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<3x1xi64>) outs(%0 : tensor<3x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %14 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %14 : i1
    } -> tensor<3x1xi1>
    %2 = tensor.empty() : tensor<3x1xi64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %out: i64):
      %14 = arith.addi %in, %c4_i64 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %3, %extracted_slice : tensor<3x1xi1>, tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i1, %in_2: i64, %in_3: i64, %out: i64):
      %14 = arith.select %in, %in_2, %in_3 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %extracted_slice_0 = tensor.extract_slice %arg1[0, 1] [3, 1] [1, 1] : tensor<3x2xi64> to tensor<3x1xi64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_0 : tensor<3x1xi64>) outs(%0 : tensor<3x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %14 = arith.cmpi slt, %in, %c0_i64 : i64
      linalg.yield %14 : i1
    } -> tensor<3x1xi1>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_0 : tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %out: i64):
      %14 = arith.addi %in, %c5_i64 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %6, %extracted_slice_0 : tensor<3x1xi1>, tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i1, %in_2: i64, %in_3: i64, %out: i64):
      %14 = arith.select %in, %in_2, %in_3 : i64
      linalg.yield %14 : i64
    } -> tensor<3x1xi64>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %4 : tensor<3x1xi64>, tensor<3x1xi64>) outs(%2 : tensor<3x1xi64>) {
    ^bb0(%in: i64, %in_2: i64, %out: i64):
      %14 = arith.muli %in_2, %in : i64
      %15 = arith.addi %in, %14 : i64
      linalg.yield %15 : i64
    } -> tensor<3x1xi64>
    %collapsed = tensor.collapse_shape %8 [[0, 1]] : tensor<3x1xi64> into tensor<3xi64>
    %collapsed_1 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x5xf32> into tensor<20xf32>
    %9 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<3x1xi64>) -> tensor<3x1xi64>
    %10 = tensor.empty() : tensor<3xf32>
    %11 = linalg.fill ins(%cst : f32) outs(%10 : tensor<3xf32>) -> tensor<3xf32>
    %12:2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel"]} outs(%9, %11 : tensor<3x1xi64>, tensor<3xf32>) {
    ^bb0(%out: i64, %out_2: f32):
      %14 = linalg.index 0 : index
      %15 = arith.remsi %14, %c3 : index
      %extracted = tensor.extract %collapsed[%15] : tensor<3xi64>
      %extracted_3 = tensor.extract %arg2[%15] : tensor<3xf32>
      linalg.yield %extracted, %extracted_3 : i64, f32
    } -> (tensor<3x1xi64>, tensor<3xf32>)
    %13 = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%12#1, %12#0 : tensor<3xf32>, tensor<3x1xi64>) outs(%collapsed_1 : tensor<20xf32>) {
    ^bb0(%arg3: f32, %arg4: f32):
      tm_tensor.yield %arg3 : f32
    } -> tensor<20xf32>
    %expanded = tensor.expand_shape %13 [[0, 1]] output_shape [4, 5] : tensor<20xf32> into tensor<4x5xf32>
    return %expanded : tensor<4x5xf32>
  }

// -----
// raise-stablehlo-scatter: ScatterElements in StableHLO: the importer's `where`
// (each select operand under an identity broadcast_in_dim) is read before it,
// and gmx's drop (wrap once, skip what is still out) is the `where` followed by
// StableHLO's skip: no compare/select is left in front of the scatter.
// CHECK-LABEL: func.func @where_stablehlo(
// CHECK-NOT: stablehlo.select
// CHECK: "gmx.scatter_multiaxis"(%arg0, %arg1, %{{.*}}) {axes = array<i64: 1>, mode = "drop"} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  func.func @where_stablehlo(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
    %c = stablehlo.constant dense<0> : tensor<3x2xi64>
    %c_0 = stablehlo.constant dense<5> : tensor<3x2xi64>
    %0 = stablehlo.add %arg1, %c_0 : tensor<3x2xi64>
    %1 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x2xi1>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<3x2xi1>) -> tensor<3x2xi1>
    %3 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<3x2xi64>) -> tensor<3x2xi64>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<3x2xi64>) -> tensor<3x2xi64>
    %5 = stablehlo.select %2, %3, %4 : tensor<3x2xi1>, tensor<3x2xi64>
    %6 = stablehlo.slice %arg2 [0:3, 0:2] : (tensor<3x2xf32>) -> tensor<3x2xf32>
    %7 = stablehlo.iota dim = 0 : tensor<3x2x1xi64>
    %8 = stablehlo.reshape %5 : (tensor<3x2xi64>) -> tensor<3x2x1xi64>
    %9 = stablehlo.concatenate %7, %8, dim = 2 : (tensor<3x2x1xi64>, tensor<3x2x1xi64>) -> tensor<3x2x2xi64>
    %10 = "stablehlo.scatter"(%arg0, %9, %6) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<3x5xf32>, tensor<3x2x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    return %10 : tensor<3x5xf32>
  }

// -----
// raise-stablehlo-scatter, negative: `i + 4` on an axis of 5 is no wrap: the
// `where` stays, and its result is read as it is in mode "skip" (StableHLO
// skips it where negative), as any index.
// CHECK-LABEL: func.func @where_stablehlo_wrong(
// CHECK: %[[K:[0-9]+]] = stablehlo.select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}
// CHECK: "gmx.scatter_multiaxis"(%arg0, %[[K]], %{{.*}}) {axes = array<i64: 1>, mode = "skip"}
  func.func @where_stablehlo_wrong(%arg0: tensor<3x5xf32>, %arg1: tensor<3x2xi64>, %arg2: tensor<3x2xf32>) -> tensor<3x5xf32> {
    %c = stablehlo.constant dense<0> : tensor<3x2xi64>
    %c_0 = stablehlo.constant dense<4> : tensor<3x2xi64>
    %0 = stablehlo.add %arg1, %c_0 : tensor<3x2xi64>
    %1 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x2xi1>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<3x2xi1>) -> tensor<3x2xi1>
    %3 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<3x2xi64>) -> tensor<3x2xi64>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<3x2xi64>) -> tensor<3x2xi64>
    %5 = stablehlo.select %2, %3, %4 : tensor<3x2xi1>, tensor<3x2xi64>
    %6 = stablehlo.slice %arg2 [0:3, 0:2] : (tensor<3x2xf32>) -> tensor<3x2xf32>
    %7 = stablehlo.iota dim = 0 : tensor<3x2x1xi64>
    %8 = stablehlo.reshape %5 : (tensor<3x2xi64>) -> tensor<3x2x1xi64>
    %9 = stablehlo.concatenate %7, %8, dim = 2 : (tensor<3x2x1xi64>, tensor<3x2x1xi64>) -> tensor<3x2x2xi64>
    %10 = "stablehlo.scatter"(%arg0, %9, %6) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<3x5xf32>, tensor<3x2x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    return %10 : tensor<3x5xf32>
  }

// -----
// raise-stablehlo-scatter: ScatterND of rows in StableHLO: the normalised row index
// broadcast over the row (a batching dim gmx broadcasts itself) is read before
// the broadcast and before the `where`.
// CHECK-LABEL: func.func @rows_stablehlo(
// CHECK-NOT: stablehlo.select
// CHECK: "gmx.scatter_multiaxis"(%arg0, %arg1, %{{.*}}) {axes = array<i64: 0>, mode = "drop"} : (tensor<4x5xf32>, tensor<3x1xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
  func.func @rows_stablehlo(%arg0: tensor<4x5xf32>, %arg1: tensor<3x1xi64>, %arg2: tensor<3x5xf32>) -> tensor<4x5xf32> {
    %c = stablehlo.constant dense<4> : tensor<3x1xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<3x1xi64>
    %0 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<3x1xi64>, tensor<3x1xi64>) -> tensor<3x1xi1>
    %1 = stablehlo.add %arg1, %c : tensor<3x1xi64>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<3x1xi1>) -> tensor<3x1xi1>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<3x1xi64>) -> tensor<3x1xi64>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<3x1xi64>) -> tensor<3x1xi64>
    %5 = stablehlo.select %2, %3, %4 : tensor<3x1xi1>, tensor<3x1xi64>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<3x1xi64>) -> tensor<3x5xi64>
    %7 = stablehlo.slice %arg2 [0:3, 0:5] : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %8 = stablehlo.reshape %6 : (tensor<3x5xi64>) -> tensor<3x5x1xi64>
    %9 = stablehlo.iota dim = 1 : tensor<3x5x1xi64>
    %10 = stablehlo.concatenate %8, %9, dim = 2 : (tensor<3x5x1xi64>, tensor<3x5x1xi64>) -> tensor<3x5x2xi64>
    %11 = "stablehlo.scatter"(%arg0, %10, %7) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<4x5xf32>, tensor<3x5x2xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
    return %11 : tensor<4x5xf32>
  }

// -----
// raise-stablehlo-scatter, negative: `i + 3` on an axis of 4 is no wrap: the `where` stays, read in mode "skip".
// CHECK-LABEL: func.func @rows_stablehlo_wrong(
// CHECK: %[[K:[0-9]+]] = stablehlo.select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}
// CHECK: "gmx.scatter_multiaxis"(%arg0, %[[K]], %{{.*}}) {axes = array<i64: 0>, mode = "skip"}
  func.func @rows_stablehlo_wrong(%arg0: tensor<4x5xf32>, %arg1: tensor<3x1xi64>, %arg2: tensor<3x5xf32>) -> tensor<4x5xf32> {
    %c = stablehlo.constant dense<3> : tensor<3x1xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<3x1xi64>
    %0 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<3x1xi64>, tensor<3x1xi64>) -> tensor<3x1xi1>
    %1 = stablehlo.add %arg1, %c : tensor<3x1xi64>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<3x1xi1>) -> tensor<3x1xi1>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<3x1xi64>) -> tensor<3x1xi64>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<3x1xi64>) -> tensor<3x1xi64>
    %5 = stablehlo.select %2, %3, %4 : tensor<3x1xi1>, tensor<3x1xi64>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<3x1xi64>) -> tensor<3x5xi64>
    %7 = stablehlo.slice %arg2 [0:3, 0:5] : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %8 = stablehlo.reshape %6 : (tensor<3x5xi64>) -> tensor<3x5x1xi64>
    %9 = stablehlo.iota dim = 1 : tensor<3x5x1xi64>
    %10 = stablehlo.concatenate %8, %9, dim = 2 : (tensor<3x5x1xi64>, tensor<3x5x1xi64>) -> tensor<3x5x2xi64>
    %11 = "stablehlo.scatter"(%arg0, %10, %7) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<4x5xf32>, tensor<3x5x2xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
    return %11 : tensor<4x5xf32>
  }
