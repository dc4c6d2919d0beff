// raise-reduction-gather (passes/raising/reduction_gathers.py): a gather read
// inside a loop nest with reduction loops becomes a gmx op over the loop dims
// the read uses, read by the nest as one more input: torch-mlir's
// embedding_bag (static and dynamic), a gather fused into a reduction
// generic or a linalg.reduce; then reads left alone.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --gmx-canonicalize | FileCheck %s
// Why each read left alone is no gather (--debug-only):
// RUN: gmx-opt %s --split-input-file --gmx-canonicalize --debug-only=gmx-canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=WHY

// raise-reduction-gather: F.embedding_bag(i, w, offsets, mode="sum") as TorchToLinalg emits it, loops
// (bag, index j, column k): weight[indices[j], k] is gathered once over (j, k), 8x4; the nest keeps its
// bag test (the offsets' extract) and reads the gathered rows by (d1, d2); the indices input goes with the read.
// CHECK-DAG: #[[OFF:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @embedding_bag_sum
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0>} : (tensor<10x4xf32>, tensor<8x1xi64>) -> tensor<8x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[OFF]], #[[ROWS]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%arg2, %[[G]] : tensor<3xi64>, tensor<8x4xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: i64, %[[ROW:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: tensor.extract %arg2
// CHECK-NOT: tensor.extract
// CHECK: arith.addf %[[ROW]], %[[ACC]] : f32
// CHECK: linalg.yield
func.func @embedding_bag_sum(%arg0: tensor<10x4xf32>, %arg1: tensor<8xi64>, %arg2: tensor<3xi64>) -> tensor<3x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %c1_i64 = arith.constant 1 : i64
  %c3_i64 = arith.constant 3 : i64
  %c8_i64 = arith.constant 8 : i64
  %0 = tensor.empty() : tensor<3x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg1, %arg2 : tensor<8xi64>, tensor<3xi64>) outs(%1 : tensor<3x4xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %5, %c3_i64 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %arg2[%8] : tensor<3xi64>
    %9 = arith.select %7, %c8_i64, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %arg0[%17, %18] : tensor<10x4xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// -----
// raise-reduction-gather: the same with `?` indices and bags (torch.export's dynamic dims): one view of
// the indices sized by tensor.dim, the gathered rows ?x4.
// CHECK-LABEL: func.func @embedding_bag_dynamic
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [%{{.*}}, 1] : tensor<?xi64> into tensor<?x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %[[I]]) {axes = array<i64: 0>} : (tensor<10x4xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg2, %[[G]] : tensor<?xi64>, tensor<?x4xf32>)
func.func @embedding_bag_dynamic(%arg0: tensor<10x4xf32>, %arg1: tensor<?xi64>, %arg2: tensor<?xi64>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %c1_i64 = arith.constant 1 : i64
  %dim = tensor.dim %arg2, %c0 : tensor<?xi64>
  %0 = tensor.empty(%dim) : tensor<?x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %dim_0 = tensor.dim %arg1, %c0 : tensor<?xi64>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg1, %arg2 : tensor<?xi64>, tensor<?xi64>) outs(%1 : tensor<?x4xf32>) {
  ^bb0(%in: i64, %in_1: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.index_cast %dim : index to i64
    %8 = arith.cmpi eq, %7, %5 : i64
    %9 = arith.select %8, %c0, %6 : index
    %extracted = tensor.extract %arg2[%9] : tensor<?xi64>
    %10 = arith.index_cast %dim_0 : index to i64
    %11 = arith.select %8, %10, %extracted : i64
    %12 = linalg.index 1 : index
    %13 = arith.index_cast %12 : index to i64
    %14 = arith.cmpi slt, %in_1, %13 : i64
    %15 = arith.cmpi eq, %in_1, %13 : i64
    %16 = arith.ori %14, %15 : i1
    %17 = arith.cmpi slt, %13, %11 : i64
    %18 = arith.andi %16, %17 : i1
    %19 = arith.index_cast %in : i64 to index
    %20 = linalg.index 2 : index
    %extracted_2 = tensor.extract %arg0[%19, %20] : tensor<10x4xf32>
    %21 = arith.addf %extracted_2, %out : f32
    %22 = arith.select %18, %21, %out : f32
    linalg.yield %22 : f32
  } -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// -----
// raise-reduction-gather: a gather fused into a max-reduction (out[b, k] = max_j w[i[b, j], k], torch's
// negative-index select): gathered over all three loops, mode raise, read by the identity.
// CHECK-LABEL: func.func @fused_gather_max
// CHECK: %[[W:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [1, 5, 4] : tensor<5x4xf32> into tensor<1x5x4xf32>
// CHECK: %[[I:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xi64> into tensor<2x3x1xi64>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[W]], %[[I]]) {axes = array<i64: 1>} : (tensor<1x5x4xf32>, tensor<2x3x1xi64>) -> tensor<2x3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[G]] : tensor<2x3x4xf32>)
// CHECK: arith.maximumf
func.func @fused_gather_max(%arg0: tensor<5x4xf32>, %arg1: tensor<2x3xi64>, %init: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c0_i64 = arith.constant 0 : i64
  %c5_i64 = arith.constant 5 : i64
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg1 : tensor<2x3xi64>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %1 = arith.cmpi slt, %in, %c0_i64 : i64
    %2 = arith.addi %in, %c5_i64 : i64
    %3 = arith.select %1, %2, %in : i64
    %4 = arith.index_cast %3 : i64 to index
    %5 = linalg.index 2 : index
    %e = tensor.extract %arg0[%4, %5] : tensor<5x4xf32>
    %6 = arith.maximumf %e, %out : f32
    linalg.yield %6 : f32
  } -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----
// raise-reduction-gather: a linalg.reduce whose body reads w[i[j, k], k] (its input the index tensor):
// the nest becomes a linalg.generic (a linalg.reduce takes no further input), reading only the gathered tensor.
// CHECK-LABEL: func.func @reduce_of_gather
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%arg0, %arg1) {axes = array<i64: 0>} : (tensor<10x4xf32>, tensor<8x4xi64>) -> tensor<8x4xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["reduction", "parallel"]} ins(%[[G]] : tensor<8x4xf32>)
// CHECK-NOT: linalg.reduce
func.func @reduce_of_gather(%arg0: tensor<10x4xf32>, %arg1: tensor<8x4xi64>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce ins(%arg1 : tensor<8x4xi64>) outs(%init : tensor<4xf32>) dimensions = [0]
    (%in: i64, %acc: f32) {
      %p = arith.index_cast %in : i64 to index
      %k = linalg.index 1 : index
      %e = tensor.extract %arg0[%p, %k] : tensor<10x4xf32>
      %s = arith.addf %e, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// -----
// raise-reduction-gather: a clamp to [0, 9] (stablehlo-legalize-to-linalg's, fused into a sum over j)
// is mode clip; the index read by a tensor.extract at the loop index (as StableHLO's are) goes with the read.
// CHECK-LABEL: func.func @clamped_sum
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>, mode = "clip"} : (tensor<10x4xf32>, tensor<6x1xi64>) -> tensor<6x4xf32>
// CHECK: linalg.generic
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @clamped_sum(%arg0: tensor<10x4xf32>, %arg1: tensor<6xi64>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%arg1 : tensor<6xi64>) outs(%init : tensor<4xf32>) {
  ^bb0(%unused: i64, %out: f32):
    %j = linalg.index 0 : index
    %i = tensor.extract %arg1[%j] : tensor<6xi64>
    %p = arith.index_cast %i : i64 to index
    %1 = arith.maxsi %p, %c0 : index
    %2 = arith.minsi %1, %c9 : index
    %k = linalg.index 1 : index
    %e = tensor.extract %arg0[%2, %k] : tensor<10x4xf32>
    %3 = arith.addf %e, %out : f32
    linalg.yield %3 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// raise-reduction-gather, negative: a position adds the reduction's loop index to an index value
// (w[i[j] + j, k]): no gather reads it.
// CHECK-LABEL: func.func @not_gather_index_plus_loop
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: tensor.extract %arg0
// WHY: raise-reduction-gather: no match: no tensor.extract in the body is a gather (a loop index inside a computed position)
func.func @not_gather_index_plus_loop(%arg0: tensor<10x4xf32>, %arg1: tensor<6xi64>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%arg1 : tensor<6xi64>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %j = linalg.index 0 : index
    %p = arith.index_cast %in : i64 to index
    %q = arith.addi %p, %j : index
    %k = linalg.index 1 : index
    %e = tensor.extract %arg0[%q, %k] : tensor<10x4xf32>
    %1 = arith.addf %e, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// raise-reduction-gather, negative: a read at loop indices alone (a row sum of w[j, k]) is a copy, not a gather.
// CHECK-LABEL: func.func @not_gather_loop_read
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: tensor.extract %arg0
// WHY: raise-reduction-gather: no match: no tensor.extract in the body is a gather (no position read from an index)
func.func @not_gather_loop_read(%arg0: tensor<10x4xf32>, %arg1: tensor<10xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%arg1 : tensor<10xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%unused: f32, %out: f32):
    %j = linalg.index 0 : index
    %k = linalg.index 1 : index
    %e = tensor.extract %arg0[%j, %k] : tensor<10x4xf32>
    %1 = arith.addf %e, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// raise-reduction-gather, negative: all loops parallel, the extracted value scaled (not a gather either
// pattern raises: raise-linalg-gather wants the extract yielded).
// CHECK-LABEL: func.func @not_gather_parallel_scaled
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: tensor.extract %arg0
// WHY: raise-reduction-gather: no match: no reduction loop (raise-linalg-gather's)
func.func @not_gather_parallel_scaled(%arg0: tensor<10x4xf32>, %arg1: tensor<6xi64>, %init: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<6xi64>) outs(%init : tensor<6x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %p = arith.index_cast %in : i64 to index
    %k = linalg.index 1 : index
    %e = tensor.extract %arg0[%p, %k] : tensor<10x4xf32>
    %1 = arith.mulf %e, %e : f32
    linalg.yield %1 : f32
  } -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// raise-reduction-gather: two reads in one nest (sum_j w[a[j], k] * w[b[j], k]): one rewrite each, two
// gmx ops, the nest reading both.
// CHECK-LABEL: func.func @two_reads
// CHECK: %[[A:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<10x4xf32>, tensor<6x1xi64>) -> tensor<6x4xf32>
// CHECK: %[[B:.*]] = "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 0>} : (tensor<10x4xf32>, tensor<6x1xi64>) -> tensor<6x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<6x4xf32>, tensor<6x4xf32>)
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @two_reads(%arg0: tensor<10x4xf32>, %arg1: tensor<6xi64>, %arg2: tensor<6xi64>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%arg1, %arg2 : tensor<6xi64>, tensor<6xi64>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: i64, %in2: i64, %out: f32):
    %p = arith.index_cast %in : i64 to index
    %q = arith.index_cast %in2 : i64 to index
    %k = linalg.index 1 : index
    %e = tensor.extract %arg0[%p, %k] : tensor<10x4xf32>
    %f = tensor.extract %arg0[%q, %k] : tensor<10x4xf32>
    %m = arith.mulf %e, %f : f32
    %1 = arith.addf %m, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
