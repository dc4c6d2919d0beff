// RUN: gmx-opt %s --split-input-file --gmx-lower-tosa-negate | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-lower-tosa-negate --gmx-lower-tosa-negate | FileCheck %s
// Upstream's tosa-to-linalg does not verify on an i64 negate; after this
// pass the whole lowering goes through.
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: tosa.negate

// torch-mlir's `-x` on an int64 tensor: a subtraction from a zero of the
// same rank, all dims 1 (tosa.sub broadcasts it).
// CHECK-LABEL: func.func @test_negate_i64
// CHECK: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0> : tensor<1x1xi64>}>
// CHECK: %[[R:.*]] = tosa.sub %[[ZERO]], %arg0 : (tensor<1x1xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NOT: tosa.negate
// CHECK: return %[[R]]
func.func @test_negate_i64(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = tosa.negate %x, %zp, %zp : (tensor<2x3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Narrower integers wrap too (upstream's lowering saturates -(-128) to 127),
// dynamic dims and rank 0 alike.
// CHECK-LABEL: func.func @test_negate_i8_dynamic
// CHECK: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK: tosa.sub %[[ZERO]], %arg0 : (tensor<1xi8>, tensor<?xi8>) -> tensor<?xi8>
func.func @test_negate_i8_dynamic(%x: tensor<?xi8>) -> tensor<?xi8> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.negate %x, %zp, %zp : (tensor<?xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<?xi8>
  return %0 : tensor<?xi8>
}

// -----

// CHECK-LABEL: func.func @test_negate_i32_rank0
// CHECK: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0> : tensor<i32>}>
// CHECK: tosa.sub %[[ZERO]], %arg0 : (tensor<i32>, tensor<i32>) -> tensor<i32>
func.func @test_negate_i32_rank0(%x: tensor<i32>) -> tensor<i32> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.negate %x, %zp, %zp : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// Left alone: a float negate, and a quantized one (non-zero zero points,
// which upstream lowers as TOSA defines for up to 32 bits).
// CHECK-LABEL: func.func @test_negate_float_and_quantized
// CHECK: tosa.negate %arg0
// CHECK: tosa.negate %arg1
// CHECK-NOT: tosa.sub
func.func @test_negate_float_and_quantized(%x: tensor<4xf32>, %q: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi8>) {
  %fzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.negate %x, %fzp, %fzp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
  %zp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = tosa.negate %q, %zp, %zp : (tensor<4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0, %1 : tensor<4xf32>, tensor<4xi8>
}

// -----

// TOSA requires zero points of 0 for every integer type but i8: a 64-bit
// negate whose zero points are arguments is a subtraction all the same; an
// i8 one is left to upstream.
// CHECK-LABEL: func.func @test_negate_zero_point_arguments
// CHECK: tosa.sub %{{.*}}, %arg0 : (tensor<1xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK: tosa.negate %arg2, %arg3, %arg3
func.func @test_negate_zero_point_arguments(%x: tensor<4xi64>, %zp: tensor<1xi64>, %q: tensor<4xi8>, %qzp: tensor<1xi8>) -> (tensor<4xi64>, tensor<4xi8>) {
  %0 = tosa.negate %x, %zp, %zp : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %1 = tosa.negate %q, %qzp, %qzp : (tensor<4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0, %1 : tensor<4xi64>, tensor<4xi8>
}
