// gmx-study on a scatter variant: torch's index_add, exported to StableHLO
// (its default form), raised into one gmx.scatter_multiaxis, lowered to
// loops that write the caller's buffer after one copy of the input.
// RUN: gmx-study index-add --no-timing | FileCheck %s

// CHECK-LABEL: gmx-study index-add: torch.index_add(x, 0, idx, upd)
// CHECK-NEXT: inputs x: f32[10x4], idx: i64[6], upd: f32[6x4]; output f32[10x4]; checked indices; seed 0

// CHECK: === 1. frontend: StableHLO from torch_mlir.fx.export_and_import
// CHECK: "stablehlo.scatter"(%arg0, %{{.*}}, %arg2)
// CHECK: stablehlo.add

// Fused: one gmx op, the sum its reduction; torch's indices are in range,
// StableHLO's out-of-range ones, negative ones too, are skipped ("skip").
// CHECK: === 2. fused: after --gmx-canonicalize
// CHECK-NEXT: derived: gmx.scatter_multiaxis axes=[0] mode=skip reduction=add: input 10x4xf32 = x;
// CHECK-NOT: stablehlo.scatter
// CHECK: "gmx.scatter_multiaxis"(%arg0, %{{.*}}, %arg2) {axes = array<i64: 0>, mode = "skip", reduction = "add"}

// Linalg: the input copied once into the result, then the loops on it.
// CHECK: === 3. linalg: --gmx-lower-to-llvm={{.*}} up to its linalg level
// CHECK-NOT: gmx.scatter_multiaxis
// CHECK: %[[COPY:.*]] = linalg.copy ins(%arg0 : tensor<10x4xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[COPY]])
// CHECK: arith.addf
// CHECK: tensor.insert
// CHECK: === 4. loops: --gmx-lower-to-llvm={{.*}} up to its loops level
// CHECK-NOT: tensor.insert
// CHECK: scf.for

// CHECK: === op counts per stage ===
// CHECK: gmx.scatter_multiaxis {{ +}}- {{ +}}1 {{ +}}- {{ +}}- {{ +}}-
// CHECK: stablehlo.scatter {{ +}}1 {{ +}}- {{ +}}- {{ +}}- {{ +}}-

// CHECK: === results against the reference: gmx.reference.scatter_multiaxis on 10x4, 6x1, 6x4, axes [0] ===
// CHECK-NEXT: fused {{ +}}equal
// CHECK-NEXT: unfused {{ +}}equal
// CHECK-NEXT: numpy {{ +}}equal
// CHECK-NEXT: torch {{ +}}equal
// CHECK-NOT: Traceback
