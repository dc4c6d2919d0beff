// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm | FileCheck %s
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm=checked=false | FileCheck %s --check-prefix=UNCHECKED
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm | FileCheck %s --check-prefix=LOWERED
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm=checked=false | FileCheck %s --check-prefix=LOWERED
// Its first stage raises every tosa.gather: none reaches tosa-to-linalg.
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm --mlir-print-ir-after-all --mlir-print-ir-module-scope 2>&1 | FileCheck %s --check-prefix=STAGES

// In both modes and every case below, nothing above the LLVM dialect is
// left (LOWERED has only NOT lines, so they cover the whole output; the
// tosa.target_env module attribute is no op).
// LOWERED-NOT: {{(tensor|linalg|scf|cf|memref|bufferization|affine|arith|vector|func)\.[a-z_]+}}
// LOWERED-NOT: {{= "?tosa\.}}
// LOWERED-NOT: gmx.gather_multiaxis

// A gather entry point: everything is in the LLVM dialect, the entry keeps
// its tensor signature and gets the C interface, its pointer arguments are
// noalias, and the checked gather reports bad indices to the runtime's
// callback, whose site is this gather's location.
// CHECK-LABEL: module attributes {gmx.error_sites = ["{{.*}}gmx-lower-to-llvm.mlir:{{[0-9]+}}:8"]
// CHECK: llvm.func private @gmx_index_error(
// CHECK: llvm.func @main(%{{[a-z0-9_]+}}: !llvm.ptr {llvm.noalias}, %{{[a-z0-9_]+}}: !llvm.ptr {llvm.noalias},
// CHECK-SAME: gmx.signature = (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
// CHECK-SAME: llvm.emit_c_interface
// CHECK: llvm.call @gmx_index_error(
// CHECK: llvm.func @_mlir_ciface_main(
// CHECK-NOT: tensor.
// CHECK-NOT: linalg.
// CHECK-NOT: gmx.gather_multiaxis
// UNCHECKED-LABEL: module attributes {gmx.error_sites
// UNCHECKED-NOT: llvm.call @gmx_index_error
// UNCHECKED: llvm.func @main(
// UNCHECKED-NOT: llvm.call @gmx_index_error
func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A private function is no entry point: no C interface, no signature, no
// noalias (a caller inside the module may pass aliasing buffers).
// CHECK-LABEL: llvm.func @helper(
// CHECK-NOT: llvm.noalias
// CHECK-SAME: sym_visibility = "private"
// CHECK-NOT: gmx.signature
// CHECK-NOT: llvm.func @_mlir_ciface_helper
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// `public` spelled out (as JAX emits `func.func public @main`) is public:
// an entry point like a function without a visibility.
// CHECK-LABEL: llvm.func @spelled_public(
// CHECK-SAME: gmx.signature = (tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME: llvm.emit_c_interface
// CHECK: llvm.func @_mlir_ciface_spelled_public(
func.func public @spelled_public(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// TOSA on tensors goes down too, and a function with a non-tensor argument
// keeps its pointers unmarked: only tensor-only signatures are noalias by
// construction. A bare tosa.gather is raised into gmx first (upstream's
// tosa-to-linalg has no bounds check), so it is checked like any gmx op:
// its location is an error site and it calls the runtime's callback;
// unchecked it is raised the same way and lowered without the call.
// CHECK-LABEL: module attributes {gmx.error_sites = ["{{.*}}gmx-lower-to-llvm.mlir:[[# @LINE + 30]]:8"]
// CHECK-LABEL: llvm.func @scaled(
// CHECK-NOT: llvm.noalias
// CHECK-SAME: gmx.signature = (tensor<1x5x3xf32>, f32) -> tensor<1x5x3xf32>
// CHECK-LABEL: llvm.func @tosa_gather(
// CHECK-SAME: gmx.signature = (tensor<1x5x3xf32>, tensor<1x2xi32>) -> tensor<1x2x3xf32>
// CHECK: llvm.call @gmx_index_error(
// CHECK-LABEL: llvm.func @_mlir_ciface_tosa_gather(
// CHECK-NOT: tosa.
// UNCHECKED-LABEL: llvm.func @tosa_gather(
// UNCHECKED-NOT: llvm.call @gmx_index_error
// UNCHECKED-LABEL: llvm.func @_mlir_ciface_tosa_gather(
// STAGES: func.func @tosa_gather(
// STAGES-NEXT: tosa.gather
// STAGES: IR Dump After gmx-canonicalize
// STAGES: func.func @tosa_gather(
// STAGES-NOT: tosa.gather
// STAGES: "gmx.gather_multiaxis"
// STAGES-NOT: tosa.gather
// STAGES: IR Dump After TosaToLinalg{{.*}}@tosa_gather
func.func @scaled(%x: tensor<1x5x3xf32>, %s: f32) -> tensor<1x5x3xf32> {
  %e = tensor.empty() : tensor<1x5x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x5x3xf32>) outs(%e : tensor<1x5x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x5x3xf32>
  return %0 : tensor<1x5x3xf32>
}
func.func @tosa_gather(%v: tensor<1x5x3xf32>, %i: tensor<1x2xi32>) -> tensor<1x2x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<1x5x3xf32>, tensor<1x2xi32>) -> tensor<1x2x3xf32>
  return %0 : tensor<1x2x3xf32>
}

// -----

// A gathered bf16 element is only moved: loaded and stored as i16, bit for
// bit (x86 rounds bf16 through f32 and flushes subnormals). A half that
// feeds arithmetic keeps its type.
// CHECK: module attributes {{{.*}}gmx.error_sites
// CHECK-LABEL: llvm.func @halves(
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i16
// CHECK: llvm.store %[[V]], %{{.*}} : i16, !llvm.ptr
// CHECK-LABEL: llvm.func @doubled(
// CHECK: %[[H:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f16
// CHECK: llvm.fadd %[[H]], %[[H]] : f16
func.func @halves(%x: tensor<2x1x1xbf16>, %i: tensor<2x?x2xi8>) -> tensor<2x?x2xbf16> {
  %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64>} : (tensor<2x1x1xbf16>, tensor<2x?x2xi8>) -> tensor<2x?x2xbf16>
  return %r : tensor<2x?x2xbf16>
}
func.func @doubled(%x: tensor<?xf16>) -> tensor<?xf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf16>
  %e = tensor.empty(%n) : tensor<?xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf16>) outs(%e : tensor<?xf16>) {
  ^bb0(%in: f16, %out: f16):
    %s = arith.addf %in, %in : f16
    linalg.yield %s : f16
  } -> tensor<?xf16>
  return %r : tensor<?xf16>
}

// -----

// TOSA with `?` dims goes down too (torch-mlir's dynamic embedding, unfused:
// a -1 reshape, a cast, the gather raised into gmx): upstream's TOSA
// validation runs without its level check, which refuses every `?` dim.
// CHECK: module attributes {{{.*}}gmx.error_sites
// CHECK-LABEL: llvm.func @dynamic_embedding(
// CHECK-SAME: gmx.signature = (tensor<10x8xf32>, tensor<2x?xi64>) -> tensor<2x?x8xf32>
// CHECK: llvm.call @gmx_index_error(
func.func @dynamic_embedding(%arg0: tensor<10x8xf32>, %arg1: tensor<2x?xi64>) -> tensor<2x?x8xf32> {
  %0 = tosa.const_shape  {values = dense<[1, 10, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %1 = tosa.const_shape  {values = dense<[1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.const_shape  {values = dense<[2, -1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.reshape %arg0, %0 : (tensor<10x8xf32>, !tosa.shape<3>) -> tensor<1x10x8xf32>
  %4 = tosa.reshape %arg1, %1 : (tensor<2x?xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
  %5 = tosa.cast %4 : (tensor<1x?xi64>) -> tensor<1x?xi32>
  %6 = tosa.gather %3, %5 : (tensor<1x10x8xf32>, tensor<1x?xi32>) -> tensor<1x?x8xf32>
  %7 = tosa.reshape %6, %2 : (tensor<1x?x8xf32>, !tosa.shape<3>) -> tensor<2x?x8xf32>
  return %7 : tensor<2x?x8xf32>
}

// -----

// What torch-mlir emits for real models goes down although TOSA's profiles
// and levels reject it (the pipeline leaves out upstream's tosa-validate):
// f64 constants and casts (LayerNorm's variance, T5's mask), i64 -> f32
// casts (rotary position ids, a loss's mean), gathers on i64 data, dynamic
// dims.
// CHECK-LABEL: llvm.func @layer_norm_f64(
// CHECK: llvm.fmul %{{.*}} : f64
// CHECK-LABEL: llvm.func @position_ids(
// CHECK: llvm.sitofp %{{.*}} : i64 to f32
// CHECK-LABEL: llvm.func @i64_data(
// CHECK: llvm.call @gmx_index_error(
// CHECK-LABEL: llvm.func @dynamic_add(
// CHECK: llvm.fadd %{{.*}} : f32
func.func @layer_norm_f64(%x: tensor<2x4xf32>) -> tensor<2x4xf64> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1xf64>}> : () -> tensor<1x1xf64>
  %0 = tosa.cast %x : (tensor<2x4xf32>) -> tensor<2x4xf64>
  %1 = tosa.mul %0, %scale, %shift : (tensor<2x4xf64>, tensor<1x1xf64>, tensor<1xi8>) -> tensor<2x4xf64>
  return %1 : tensor<2x4xf64>
}
func.func @position_ids(%ids: tensor<1x8x1xi64>) -> tensor<1x8x1xf32> {
  %0 = tosa.cast %ids : (tensor<1x8x1xi64>) -> tensor<1x8x1xf32>
  return %0 : tensor<1x8x1xf32>
}
func.func @i64_data(%v: tensor<1x5x1xi64>, %i: tensor<1x2xi32>) -> tensor<1x2x1xi64> {
  %0 = tosa.gather %v, %i : (tensor<1x5x1xi64>, tensor<1x2xi32>) -> tensor<1x2x1xi64>
  return %0 : tensor<1x2x1xi64>
}
func.func @dynamic_add(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.add %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// tosa.scatter (topk, sort, index_put, BART's shift_tokens_right) becomes
// upstream's tosa-to-scf loops; checked, behind gmx-check-scatter-indices'
// scan (see gmx-check-scatter-indices.mlir), so a bad index is reported
// and never written; unchecked, the program promises in-range indices.
// CHECK: module attributes {gmx.error_sites = ["{{.*}}gmx-lower-to-llvm.mlir:[[# @LINE + 11]]:8"]
// CHECK-LABEL: llvm.func @scatter(
// CHECK: llvm.call @gmx_index_error(
// CHECK-LABEL: llvm.func @_mlir_ciface_scatter(
// UNCHECKED-LABEL: llvm.func @scatter(
// UNCHECKED-NOT: llvm.call @gmx_index_error
// UNCHECKED: llvm.load %{{.*}} : !llvm.ptr -> i32
// UNCHECKED-LABEL: llvm.func @_mlir_ciface_scatter(
// STAGES: IR Dump After TosaToSCF{{.*}}@scatter
// STAGES-NOT: tosa.scatter
func.func @scatter(%v: tensor<1x6x5xi64>, %i: tensor<1x3xi32>, %x: tensor<1x3x5xi64>) -> tensor<1x6x5xi64> {
  %0 = tosa.scatter %v, %i, %x : (tensor<1x6x5xi64>, tensor<1x3xi32>, tensor<1x3x5xi64>) -> tensor<1x6x5xi64>
  return %0 : tensor<1x6x5xi64>
}

// -----

// Exact GELU's math.erf, which LLVM has no intrinsic for, calls libm's
// erff; math ops that have one (exp here) keep it.
// CHECK-LABEL: llvm.func @erff(f32) -> f32
// CHECK-LABEL: llvm.func @gelu(
// CHECK: llvm.call @erff(%{{.*}}) : (f32) -> f32
// CHECK: llvm.intr.exp(%{{.*}}) : (f32) -> f32
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.erf %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.exp %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
