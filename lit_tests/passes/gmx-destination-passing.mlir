// RUN: gmx-opt %s --split-input-file --gmx-destination-passing | FileCheck %s
// Idempotent: a rewritten function (gmx.destinations) is left alone.
// RUN: gmx-opt %s --split-input-file --gmx-destination-passing --gmx-destination-passing | FileCheck %s
// Through the whole lowering, the caller's buffer is written in place:
// nothing is allocated, freed or returned.
// RUN: gmx-opt %s --split-input-file --gmx-lower-to-llvm=destinations=true | FileCheck %s --check-prefix=LOWERED

// A public function of static results: one writable tensor per result
// after its arguments, and each result materialized there. Lowered, the
// gather writes the destination (a memref after the arguments) in place,
// in both of its branches (all indices valid or not): no allocation, no
// copy, nothing returned.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x3xf32>, %[[I:[a-z0-9]+]]: tensor<2x1xi64>, %[[OUT:[a-z0-9]+]]: tensor<2x3xf32> {bufferization.writable = true}) -> tensor<2x3xf32>
// CHECK-SAME: attributes {gmx.destinations}
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %[[I]])
// CHECK: %[[R:.*]] = bufferization.materialize_in_destination %[[G]] in %[[OUT]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x3xf32>
// LOWERED-LABEL: llvm.func @gather(
// LOWERED-SAME: gmx.destinations
// LOWERED-NOT: llvm.call @{{(malloc|free|aligned_alloc)}}
// LOWERED: llvm.return{{$}}
func.func @gather(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A result that is a view of a gather (its unit dim collapsed away): the
// gather is materialized in the same view of the destination, made first
// so that it dominates the gather (eliminate-empty-tensors does not look
// through views, and would leave a copy).
// CHECK-LABEL: func.func @viewed(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x3x2xf32>, %[[I:[a-z0-9]+]]: tensor<2x1x2xi64>, %[[OUT:[a-z0-9]+]]: tensor<2x3xf32> {bufferization.writable = true})
// CHECK-NEXT: %[[D:.*]] = tensor.expand_shape %[[OUT]] {{\[}}[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %[[I]])
// CHECK: %[[M:.*]] = bufferization.materialize_in_destination %[[G]] in %[[D]]
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[M]] {{\[}}[0], [1, 2]] : tensor<2x3x1xf32> into tensor<2x3xf32>
// CHECK: return %[[R]]
// LOWERED-LABEL: llvm.func @viewed(
// LOWERED-NOT: llvm.call @{{(malloc|free|aligned_alloc|memrefCopy)}}
// LOWERED: llvm.return{{$}}
func.func @viewed(%x: tensor<4x3x2xf32>, %i: tensor<2x1x2xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0, 2>} : (tensor<4x3x2xf32>, tensor<2x1x2xi64>) -> tensor<2x3x1xf32>
  %1 = tensor.collapse_shape %0 [[0], [1, 2]] : tensor<2x3x1xf32> into tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Several results, one of them an argument and one a constant, copied
// into their destinations (the argument's own attributes are kept).
// CHECK-LABEL: func.func @several(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3xi16> {bufferization.writable = false}, %[[A:[a-z0-9]+]]: tensor<3xi16> {bufferization.writable = true}, %[[B:[a-z0-9]+]]: tensor<i32> {bufferization.writable = true}) -> (tensor<3xi16>, tensor<i32>)
// CHECK: %[[RA:.*]] = bufferization.materialize_in_destination %[[X]] in %[[A]]
// CHECK: %[[RB:.*]] = bufferization.materialize_in_destination %{{.*}} in %[[B]]
// CHECK-NEXT: return %[[RA]], %[[RB]]
// LOWERED-LABEL: llvm.func @several(
// LOWERED-COUNT-2: llvm.intr.memcpy
// LOWERED: llvm.return{{$}}
func.func @several(%x: tensor<3xi16> {bufferization.writable = false}) -> (tensor<3xi16>, tensor<i32>) {
  %c = arith.constant dense<7> : tensor<i32>
  return %x, %c : tensor<3xi16>, tensor<i32>
}

// -----

// Left alone: a private function and a called one (their calls would need
// rewriting; the caller is rewritten, nothing calls it), a result of
// dynamic shape (the caller cannot size it before the call), a static
// result of a dynamic argument (a cast the arguments may contradict), a
// function that returns nothing, and a declaration.
// CHECK-LABEL: func.func private @helper(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: gmx.destinations
// CHECK-LABEL: func.func @calls(
// CHECK-SAME: %{{.*}}: tensor<4xf32> {bufferization.writable = true}) -> tensor<4xf32> attributes {gmx.destinations}
// CHECK-LABEL: func.func @called(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: gmx.destinations
// CHECK-LABEL: func.func @dynamic(%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
// CHECK-NOT: gmx.destinations
// CHECK-LABEL: func.func @cast(%{{.*}}: tensor<?xf32>) -> tensor<4xf32>
// CHECK-NOT: gmx.destinations
// CHECK-LABEL: func.func @nothing(%{{.*}}: tensor<4xf32>) {
// CHECK-NOT: gmx.destinations
// CHECK-LABEL: func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @called(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func @called(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
func.func @cast(%x: tensor<?xf32>) -> tensor<4xf32> {
  %0 = tensor.cast %x : tensor<?xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @nothing(%x: tensor<4xf32>) {
  return
}
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>

// -----

// A donated argument (gmx.donations: result 0 into argument 0, as
// gmx.runtime writes it for donate=(0,)) is the result's buffer: no
// destination argument, no materialization; lowered, the KV-cache update
// writes the token into the cache in place (a memref.copy into a
// subview of it): nothing allocated, no copy of the cache.
// CHECK-LABEL: func.func @kv_update(
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: tensor<2x3x8x4xf32>, %[[T:[a-z0-9]+]]: tensor<2x3x1x4xf32>, %[[P:[a-z0-9]+]]: tensor<i64>) -> tensor<2x3x8x4xf32>
// CHECK-SAME: gmx.destinations
// CHECK: %[[R:.*]] = tensor.insert_slice %[[T]] into %[[CACHE]]
// CHECK-NEXT: return %[[R]] : tensor<2x3x8x4xf32>
// LOWERED-LABEL: llvm.func @kv_update(
// LOWERED-NOT: llvm.call @{{(malloc|free|aligned_alloc|gmx_reported)}}
// LOWERED: llvm.return{{$}}
func.func @kv_update(%cache: tensor<2x3x8x4xf32>, %token: tensor<2x3x1x4xf32>, %pos: tensor<i64>) -> tensor<2x3x8x4xf32>
    attributes {gmx.donations = array<i64: 0>} {
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %r = tensor.insert_slice %token into %cache[0, 0, %i, 0] [2, 3, 1, 4] [1, 1, 1, 1] : tensor<2x3x1x4xf32> into tensor<2x3x8x4xf32>
  return %r : tensor<2x3x8x4xf32>
}

// -----

// A gather's result donated into an argument: computed in a buffer of its
// own, copied into the donated one only when no error was reported
// (@gmx_reported), so that an IndexError leaves it unchanged; the other
// result gets a destination of its own.
// CHECK-LABEL: func.func @gather_donated(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x3xf32>, %[[I:[a-z0-9]+]]: tensor<4x1xi64>, %[[D:[a-z0-9]+]]: tensor<4x3xf32>, %[[OUT:[a-z0-9]+]]: tensor<4x1xi64> {bufferization.writable = true})
// CHECK: %[[G:.*]] = "gmx.gather_multiaxis"(%[[X]], %[[I]])
// CHECK: %[[M:.*]] = bufferization.materialize_in_destination %[[I]] in %[[OUT]]
// CHECK-NEXT: return %[[G]], %[[M]]
// LOWERED-LABEL: llvm.func @gather_donated(
// LOWERED: %[[N:.*]] = llvm.call @gmx_reported() : () -> i64
// LOWERED: llvm.icmp "eq" %[[N]]
// LOWERED: llvm.intr.memcpy
// LOWERED: llvm.return{{$}}
func.func @gather_donated(%x: tensor<4x3xf32>, %i: tensor<4x1xi64>, %d: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x1xi64>)
    attributes {gmx.donations = array<i64: 2, -1>} {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<4x1xi64>) -> tensor<4x3xf32>
  return %0, %i : tensor<4x3xf32>, tensor<4x1xi64>
}

// -----

// A scatter on an argument not donated: the loops write the caller's
// buffer, which one copy of the input (a loop, convert-gmx-to-linalg's
// linalg.copy into the tensor.empty that becomes the destination) fills
// first; nothing allocated, no second copy of the result.
// CHECK-LABEL: func.func @scatter_add(
// CHECK: bufferization.materialize_in_destination
// LOWERED-LABEL: llvm.func @scatter_add(
// LOWERED-NOT: llvm.call @{{(malloc|free|aligned_alloc|memrefCopy)}}
// LOWERED-NOT: llvm.intr.memcpy
// LOWERED: llvm.return{{$}}
func.func @scatter_add(%x: tensor<8x4xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<8x4xf32> {
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<8x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
