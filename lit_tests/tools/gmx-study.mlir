// gmx-study prints a variant's lowering stage by stage; this file is only
// its RUN and CHECK lines (gmx-study builds the program itself).
// RUN: gmx-study index-select --shape 4x5x6 --indices-shape 3 --axis 1 --no-timing | FileCheck %s
// RUN: not gmx-study index-select --axis 3 2>&1 | FileCheck %s --check-prefix=AXIS

// CHECK-LABEL: gmx-study index-select: torch.index_select(x, 1, idx)
// CHECK-NEXT: inputs x: f32[4x5x6], idx: i64[3]; output f32[4x3x6]; checked indices; seed 0

// The frontend: torch-mlir's linearised tosa.gather on the flattened input.
// CHECK: === 1. frontend: TOSA from torch_mlir.fx.export_and_import
// CHECK: func.func @main(%arg0: tensor<4x5x6xf32>, %arg1: tensor<3xi64>) -> tensor<4x3x6xf32>
// CHECK: tosa.reduce_sum
// CHECK: tosa.gather {{.*}} : (tensor<1x120x1xf32>, tensor<1x72xi32>) -> tensor<1x72x1xf32>

// Fused: one gmx op on the unflattened input, the index only viewed (TOSA's
// i32 cast of it absorbed: the wide index is checked).
// CHECK: === 2. fused: after --gmx-canonicalize (4 ops) ===
// CHECK-NEXT: derived: gmx.gather_multiaxis axes=[1]: input 4x5x6xf32 = x; indices 1x3x1xi64 = expand_shape(idx); output 4x3x6xf32, returned
// CHECK-NOT: tosa.gather
// CHECK: "gmx.gather_multiaxis"(%arg0, %{{.*}}) {axes = array<i64: 1>} : (tensor<4x5x6xf32>, tensor<1x3x1xi64>) -> tensor<4x3x6xf32>

// CHECK: === 3. linalg: --gmx-lower-to-llvm={{.*}} up to its linalg level
// CHECK-NOT: gmx.gather_multiaxis
// CHECK: linalg.generic
// CHECK: === 4. loops: --gmx-lower-to-llvm={{.*}} up to its loops level
// CHECK-NOT: linalg.generic
// CHECK: scf.for

// Op counts: one row per op, one column per stage.
// CHECK: === op counts per stage ===
// CHECK-NEXT: op {{ +}}frontend  fused  linalg  loops  unfused loops
// CHECK: gmx.gather_multiaxis {{ +}}- {{ +}}1 {{ +}}- {{ +}}- {{ +}}-
// CHECK: tosa.gather {{ +}}1 {{ +}}- {{ +}}- {{ +}}- {{ +}}-
// CHECK: total {{ +}}25 {{ +}}4

// CHECK: === results against the reference: np.take(x, idx, axis=1) ===
// CHECK-NEXT: fused {{ +}}equal
// CHECK-NEXT: unfused {{ +}}equal
// CHECK-NEXT: numpy {{ +}}equal: the reference
// CHECK-NEXT: torch {{ +}}equal
// CHECK-NOT: === times

// AXIS: gmx-study: error: index-select: axis 3 is out of range [-3, 3) for data rank 3
// AXIS-NOT: Traceback
