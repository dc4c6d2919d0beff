// RUN: gmx-opt %s --split-input-file --gmx-check-scatter-indices | FileCheck %s

// A scatter as torch-mlir emits it (index_put: i64 indices cast to i32):
// the wide indices are scanned (v <u 6 as i64, branch-free); the scatter
// runs only when all are in [0, 6); else each bad index is reported to the
// runtime's callback (site 0: this scatter's location; axis 1, TOSA's K)
// and nothing is written.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK: module attributes {gmx.error_sites = ["{{.*}}gmx-check-scatter-indices.mlir:[[# @LINE + 36]]:8"]}
// CHECK: func.func private @gmx_index_error(i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @index_put(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3x5xf32>, %[[I:[a-z0-9]+]]: tensor<3xi64>)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[SITE:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[AXIS:.*]] = arith.constant 1 : i64
// CHECK: %[[ZEROS:.*]] = "tosa.const"()
// CHECK: %[[WIDE:.*]] = tensor.expand_shape %[[I]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xi64> into tensor<1x3xi64>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[FLAG:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$SCALAR]]], iterator_types = ["reduction", "reduction"]} ins(%[[WIDE]] : tensor<1x3xi64>) outs(%[[INIT]] : tensor<i1>)
// CHECK: ^bb0(%[[V:.*]]: i64, %[[ACC:.*]]: i1):
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[V]], %[[C6]] : i64
// CHECK: %[[ALL:.*]] = arith.andi %[[ACC]], %[[IN]] : i1
// CHECK: linalg.yield %[[ALL]] : i1
// CHECK: %[[OK:.*]] = tensor.extract %[[FLAG]][] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[OK]] -> (tensor<1x6x5xf32>) {
// CHECK: %[[S:.*]] = tosa.scatter %[[ZEROS]]
// CHECK: scf.yield %[[S]] : tensor<1x6x5xf32>
// CHECK: } else {
// CHECK: linalg.generic {{.*}} ins(%[[WIDE]] : tensor<1x3xi64>) outs(%[[INIT]] : tensor<i1>)
// CHECK: ^bb0(%[[W:.*]]: i64, %{{.*}}: i1):
// CHECK: %[[BAD:.*]] = arith.cmpi uge, %[[W]], %[[C6]] : i64
// CHECK: scf.if %[[BAD]] {
// CHECK: func.call @gmx_index_error(%[[SITE]], %[[AXIS]], %[[W]], %[[C6]]) : (i64, i64, i64, i64) -> ()
// CHECK: scf.yield %[[ZEROS]] : tensor<1x6x5xf32>
// CHECK: tosa.reshape %[[R]]
func.func @index_put(%arg0: tensor<3x5xf32>, %arg1: tensor<3xi64>) -> tensor<6x5xf32> {
  %0 = tosa.const_shape  {values = dense<[1, 3, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = tosa.const_shape  {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.const_shape  {values = dense<[6, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %3 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x6x5xf32>}> : () -> tensor<1x6x5xf32>
  %4 = tosa.cast %arg1 : (tensor<3xi64>) -> tensor<3xi32>
  %5 = tosa.reshape %arg0, %0 : (tensor<3x5xf32>, !tosa.shape<3>) -> tensor<1x3x5xf32>
  %6 = tosa.reshape %4, %1 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
  %7 = tosa.scatter %3, %6, %5 : (tensor<1x6x5xf32>, tensor<1x3xi32>, tensor<1x3x5xf32>) -> tensor<1x6x5xf32>
  %8 = tosa.reshape %7, %2 : (tensor<1x6x5xf32>, !tosa.shape<2>) -> tensor<6x5xf32>
  return %8 : tensor<6x5xf32>
}

// -----

// A dynamic K is read once with tensor.dim, outside the scans; i32 indices
// that no cast narrowed are sign-extended where they are read. Sites number
// on after those already there (a lowered gather's).
// CHECK: module attributes {gmx.error_sites = ["gather.mlir:1:1", "{{.*}}gmx-check-scatter-indices.mlir:[[# @LINE + 17]]:10"]}
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[V:[a-z0-9]+]]: tensor<1x?x2xf32>, %[[I:[a-z0-9]+]]: tensor<1x3xi32>
// CHECK-DAG: %[[SITE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[DIM:.*]] = tensor.dim %[[V]], %[[C1]] : tensor<1x?x2xf32>
// CHECK: %[[K:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: ins(%[[I]] : tensor<1x3xi32>)
// CHECK: %[[W:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.cmpi ult, %[[W]], %[[K]] : i64
// CHECK: scf.if
// CHECK: tosa.scatter %[[V]], %[[I]]
// CHECK: } else {
// CHECK: func.call @gmx_index_error(%[[SITE]], %[[SITE]], %{{.*}}, %[[K]])
// CHECK: scf.yield %[[V]] : tensor<1x?x2xf32>
module attributes {gmx.error_sites = ["gather.mlir:1:1"]} {
  func.func @dynamic(%v: tensor<1x?x2xf32>, %i: tensor<1x3xi32>, %x: tensor<1x3x2xf32>) -> tensor<1x?x2xf32> {
    %0 = tosa.scatter %v, %i, %x : (tensor<1x?x2xf32>, tensor<1x3xi32>, tensor<1x3x2xf32>) -> tensor<1x?x2xf32>
    return %0 : tensor<1x?x2xf32>
  }
}

// -----

// No scatter, nothing to check: the module is left as it was (no sites, no
// callbacks), gathers included (convert-gmx-to-linalg checks those).
// CHECK-NOT: gmx.error_sites
// CHECK-NOT: gmx_index_error
// CHECK-LABEL: func.func @no_scatter(
// CHECK-NEXT: tosa.gather
// CHECK-NEXT: return
// CHECK-NOT: linalg
func.func @no_scatter(%v: tensor<1x5x3xf32>, %i: tensor<1x2xi32>) -> tensor<1x2x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<1x5x3xf32>, tensor<1x2xi32>) -> tensor<1x2x3xf32>
  return %0 : tensor<1x2x3xf32>
}
