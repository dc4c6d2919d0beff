// RUN: gmx-opt %s --split-input-file --gmx-stream-row-copies | FileCheck %s

// A row copy into a large (8 MiB), 64-byte aligned output: 16 f32 lanes a
// step, the store non-temporal and aligned; the row's index stays.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for %[[R:.*]] = %c0 to %c8192 step %c1 {
// CHECK: %[[STEP:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[C:.*]] = %c0 to %c256 step %[[STEP]] {
// CHECK: %[[ROW:.*]] = memref.load %arg1[%[[R]]] : memref<8192xindex>
// CHECK: %[[V:.*]] = vector.load %arg0[%[[ROW]], %[[C]]] : memref<1000x256xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %{{.*}}[%[[R]], %[[C]]] {alignment = 64 : i64, nontemporal = true} : memref<8192x256xf32>, vector<16xf32>
// CHECK-NOT: memref.store
func.func @rows(%x: memref<1000x256xf32>, %i: memref<8192xindex>) -> memref<8192x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c8192 = arith.constant 8192 : index
  %out = memref.alloc() {alignment = 64 : i64} : memref<8192x256xf32>
  scf.for %r = %c0 to %c8192 step %c1 {
    scf.for %c = %c0 to %c256 step %c1 {
      %row = memref.load %i[%r] : memref<8192xindex>
      %v = memref.load %x[%row, %c] : memref<1000x256xf32>
      memref.store %v, %out[%r, %c] : memref<8192x256xf32>
    }
  }
  return %out : memref<8192x256xf32>
}

// -----

// Through a tile's subview (unit strides, the last dim whole): f16 rows of
// 64 elements, 32 lanes of 2 bytes.
// CHECK-LABEL: func.func @tile
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}] : memref<1000x64xf16>, vector<32xf16>
// CHECK: vector.store {{.*}} {alignment = 64 : i64, nontemporal = true} : memref<128x64xf16, strided<[64, 1], offset: ?>>, vector<32xf16>
func.func @tile(%x: memref<1000x64xf16>, %i: memref<65536xindex>) -> memref<65536x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c65536 = arith.constant 65536 : index
  %out = memref.alloc() {alignment = 64 : i64} : memref<65536x64xf16>
  scf.for %t = %c0 to %c65536 step %c128 {
    %tile = memref.subview %out[%t, 0] [128, 64] [1, 1] : memref<65536x64xf16> to memref<128x64xf16, strided<[64, 1], offset: ?>>
    scf.for %r = %c0 to %c128 step %c1 {
      %row = memref.load %i[%r] : memref<65536xindex>
      scf.for %c = %c0 to %c64 step %c1 {
        %v = memref.load %x[%row, %c] : memref<1000x64xf16>
        memref.store %v, %tile[%r, %c] : memref<128x64xf16, strided<[64, 1], offset: ?>>
      }
    }
  }
  return %out : memref<65536x64xf16>
}

// -----

// Into a destination argument (a function with gmx.destinations, whose
// caller aligns it to 64 bytes), through a tile's subview: streamed.
// CHECK-LABEL: func.func @destination
// CHECK: vector.store {{.*}} {alignment = 64 : i64, nontemporal = true} : memref<128x256xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
func.func @destination(%x: memref<1000x256xf32>, %i: memref<8192xindex>, %out: memref<8192x256xf32>) attributes {gmx.destinations} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c8192 = arith.constant 8192 : index
  scf.for %t = %c0 to %c8192 step %c128 {
    %tile = memref.subview %out[%t, 0] [128, 256] [1, 1] : memref<8192x256xf32> to memref<128x256xf32, strided<[256, 1], offset: ?>>
    scf.for %r = %c0 to %c128 step %c1 {
      %row = memref.load %i[%r] : memref<8192xindex>
      scf.for %c = %c0 to %c256 step %c1 {
        %v = memref.load %x[%row, %c] : memref<1000x256xf32>
        memref.store %v, %tile[%r, %c] : memref<128x256xf32, strided<[256, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

// The same rows into a donated argument (gmx.donations: result 0 is
// written into argument 2): aligned as numpy aligns it, and read again
// by the caller (a cache a call updates a little of): never streamed.
// CHECK-LABEL: func.func @donated
// CHECK-NOT: vector.store
// CHECK: memref.store
func.func @donated(%x: memref<1000x256xf32>, %i: memref<8192xindex>, %out: memref<8192x256xf32>) attributes {gmx.destinations, gmx.donations = array<i64: 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c8192 = arith.constant 8192 : index
  scf.for %r = %c0 to %c8192 step %c1 {
    %row = memref.load %i[%r] : memref<8192xindex>
    scf.for %c = %c0 to %c256 step %c1 {
      %v = memref.load %x[%row, %c] : memref<1000x256xf32>
      memref.store %v, %out[%r, %c] : memref<8192x256xf32>
    }
  }
  return
}

// -----

// An argument of a function without destinations may be unaligned: left alone.
// CHECK-LABEL: func.func @argument
// CHECK-NOT: vector.
// CHECK: return
func.func @argument(%x: memref<1000x256xf32>, %out: memref<8192x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  scf.for %c = %c0 to %c256 step %c1 {
    %v = memref.load %x[%c1, %c] : memref<1000x256xf32>
    memref.store %v, %out[%c1, %c] : memref<8192x256xf32>
  }
  return
}

// -----

// Left alone: a small output (stays in cache), rows of 100 f32 (not a
// multiple of 64 bytes), an unaligned allocation, a column (the induction
// variable not last), a copy within one buffer, a loop doing more than a
// copy, one with a call (it would run a sixteenth as often), and one that
// reads the output it writes.
// CHECK-LABEL: func.func @negatives
// CHECK-NOT: vector.
// CHECK: return
func.func @negatives(%x: memref<1000x256xf32>, %y: memref<1000x100xf32>, %i: memref<8192xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c8192 = arith.constant 8192 : index
  %small = memref.alloc() {alignment = 64 : i64} : memref<16x256xf32>
  scf.for %c = %c0 to %c256 step %c1 {
    %v = memref.load %x[%c1, %c] : memref<1000x256xf32>
    memref.store %v, %small[%c1, %c] : memref<16x256xf32>
  }
  %odd = memref.alloc() {alignment = 64 : i64} : memref<16384x100xf32>
  scf.for %c = %c0 to %c100 step %c1 {
    %v = memref.load %y[%c1, %c] : memref<1000x100xf32>
    memref.store %v, %odd[%c1, %c] : memref<16384x100xf32>
  }
  %unaligned = memref.alloc() : memref<8192x256xf32>
  scf.for %c = %c0 to %c256 step %c1 {
    %v = memref.load %x[%c1, %c] : memref<1000x256xf32>
    memref.store %v, %unaligned[%c1, %c] : memref<8192x256xf32>
  }
  %big = memref.alloc() {alignment = 64 : i64} : memref<8192x256xf32>
  scf.for %r = %c0 to %c256 step %c1 {
    %v = memref.load %x[%r, %c1] : memref<1000x256xf32>
    memref.store %v, %big[%r, %c1] : memref<8192x256xf32>
  }
  %c240 = arith.constant 240 : index
  %shifted = memref.subview %big[0, 1] [8192, 240] [1, 1] : memref<8192x256xf32> to memref<8192x240xf32, strided<[256, 1], offset: 1>>
  scf.for %c = %c0 to %c240 step %c1 {
    %v = memref.load %shifted[%c0, %c] : memref<8192x240xf32, strided<[256, 1], offset: 1>>
    memref.store %v, %big[%c0, %c] : memref<8192x256xf32>
  }
  scf.for %c = %c0 to %c256 step %c1 {
    %v = memref.load %x[%c1, %c] : memref<1000x256xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %big[%c1, %c] : memref<8192x256xf32>
  }
  scf.for %c = %c0 to %c256 step %c1 {
    func.call @side_effect() : () -> ()
    %v = memref.load %x[%c1, %c] : memref<1000x256xf32>
    memref.store %v, %big[%c1, %c] : memref<8192x256xf32>
  }
  scf.for %c = %c0 to %c256 step %c1 {
    %r = memref.load %big[%c0, %c0] : memref<8192x256xf32>
    %row = arith.fptosi %r : f32 to i32
    %ri = arith.index_cast %row : i32 to index
    %v = memref.load %x[%ri, %c] : memref<1000x256xf32>
    memref.store %v, %big[%c1, %c] : memref<8192x256xf32>
  }
  return
}
func.func private @side_effect()

// -----

// A gather in fill mode: the row's in-range flag and the fill value are the
// same for the whole row, so 16 lanes are selected at once (a row outside
// the input was read at row 0, never outside it).
// CHECK-LABEL: func.func @fill_rows
// CHECK: %[[FILL:.*]] = arith.constant -7.500000e+00 : f32
// CHECK: scf.for %[[C:.*]] = %c0 to %c256 step %{{.*}} {
// CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %c1000 : index
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %{{.*}}, %c0 : index
// CHECK: %[[V:.*]] = vector.load %arg0[%[[SAFE]], %[[C]]] : memref<1000x256xf32>, vector<16xf32>
// CHECK: %[[F:.*]] = vector.broadcast %[[FILL]] : f32 to vector<16xf32>
// CHECK: %[[S:.*]] = arith.select %[[OK]], %[[V]], %[[F]] : vector<16xf32>
// CHECK: vector.store %[[S]], %{{.*}}[%{{.*}}, %[[C]]] {alignment = 64 : i64, nontemporal = true} : memref<8192x256xf32>, vector<16xf32>
// CHECK-NOT: memref.store
func.func @fill_rows(%x: memref<1000x256xf32>, %i: memref<8192xindex>) -> memref<8192x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1000 = arith.constant 1000 : index
  %c8192 = arith.constant 8192 : index
  %fill = arith.constant -7.5 : f32
  %out = memref.alloc() {alignment = 64 : i64} : memref<8192x256xf32>
  scf.for %r = %c0 to %c8192 step %c1 {
    scf.for %c = %c0 to %c256 step %c1 {
      %row = memref.load %i[%r] : memref<8192xindex>
      %ok = arith.cmpi ult, %row, %c1000 : index
      %safe = arith.select %ok, %row, %c0 : index
      %v = memref.load %x[%safe, %c] : memref<1000x256xf32>
      %s = arith.select %ok, %v, %fill : f32
      memref.store %s, %out[%r, %c] : memref<8192x256xf32>
    }
  }
  return %out : memref<8192x256xf32>
}

// -----

// A select per element (its condition computed from the loaded value, a
// ReLU) is no row copy: left alone.
// CHECK-LABEL: func.func @select_per_element
// CHECK-NOT: vector.
// CHECK: memref.store
func.func @select_per_element(%x: memref<1000x256xf32>, %i: memref<8192xindex>) -> memref<8192x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() {alignment = 64 : i64} : memref<8192x256xf32>
  scf.for %r = %c0 to %c8192 step %c1 {
    scf.for %c = %c0 to %c256 step %c1 {
      %row = memref.load %i[%r] : memref<8192xindex>
      %v = memref.load %x[%row, %c] : memref<1000x256xf32>
      %positive = arith.cmpf ogt, %v, %zero : f32
      %s = arith.select %positive, %v, %zero : f32
      memref.store %s, %out[%r, %c] : memref<8192x256xf32>
    }
  }
  return %out : memref<8192x256xf32>
}
