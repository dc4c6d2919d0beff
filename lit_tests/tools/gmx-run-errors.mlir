// RUN: not gmx-run %s 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: gmx-opt %s --gmx-lower-to-llvm | not gmx-run - 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not gmx-run %s -e wrong_args 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: not gmx-run %s -e missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not gmx-run %s --input %t.does-not-exist.npy 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not gmx-run %s --threads 0 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not gmx-run %s --threads two 2>&1 | FileCheck %s --check-prefix=THREADS-WORD
// And the same index error on several threads.
// RUN: not gmx-run %s --threads 3 2>&1 | FileCheck %s --check-prefix=INDEX

// An index outside its axis after wrapping: a located IndexError, exit 1,
// no traceback.
// INDEX: gmx-run: error: {{.*}}gmx-run-errors.mlir:18:8: index -5 is out of bounds for axis 0 with size 4
// INDEX-NOT: Traceback
func.func @main() -> tensor<2x3xf32> {
  %x = arith.constant dense<1.0> : tensor<4x3xf32>
  %i = arith.constant dense<[[1], [-5]]> : tensor<2x1xi64>
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// ARGS: gmx-run: error: @wrong_args takes 1 arguments (float32[4]), got 0
func.func @wrong_args(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// MISSING: gmx-run: error: no function '@missing' in the module
// THREADS: gmx-run: error: argument --threads: expected a positive integer, got 0
// THREADS-WORD: gmx-run: error: argument --threads: expected a positive integer, got 'two'

// FILE: gmx-run: error: could not open input '{{.*}}does-not-exist.npy': No such file or directory

// Unreadable inputs (hostile .npy files: tests/test_run_inputs.py).
// RUN: python -c "import sys; sys.stdout.buffer.write(b'\xfe')" | not gmx-run - 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: not gmx-run %s -e wrong_args --input %S 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// UTF8: gmx-run: error: could not read input file '<stdin>': invalid UTF-8 at line 1, column 1 (byte 0xfe)
// DIRECTORY: gmx-run: error: could not open input '{{.*}}tools': Is a directory

// A scatter index outside [0, K): the same located IndexError, exit 1, and
// nothing written (gmx-check-scatter-indices).
// RUN: not gmx-run %s -e bad_scatter 2>&1 | FileCheck %s --check-prefix=SCATTER
// SCATTER: gmx-run: error: {{.*}}gmx-run-errors.mlir:[[# @LINE + 6]]:8: index 6 is out of bounds for axis 1 with size 6
// SCATTER-NOT: Traceback
func.func @bad_scatter() -> tensor<1x6x2xf32> {
  %v = arith.constant dense<0.0> : tensor<1x6x2xf32>
  %i = arith.constant dense<[[1, 6]]> : tensor<1x2xi32>
  %x = arith.constant dense<1.0> : tensor<1x2x2xf32>
  %0 = tosa.scatter %v, %i, %x : (tensor<1x6x2xf32>, tensor<1x2xi32>, tensor<1x2x2xf32>) -> tensor<1x6x2xf32>
  return %0 : tensor<1x6x2xf32>
}
