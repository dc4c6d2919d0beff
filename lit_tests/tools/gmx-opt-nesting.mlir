// Input nested deeper than gmx.dialect.parsing.MAX_NESTING_DEPTH (1000)
// crashed the upstream parser (SIGSEGV from about 5,000 brackets); the
// tools refuse it before parsing, located at the first bracket past the
// limit, and exit 1.
// RUN: python -c "print('module attributes {x = ' + '[' * 1001 + ']' * 1001 + '} {}')" > %t.mlir
// RUN: not gmx-opt %t.mlir 2>&1 | FileCheck %s
// RUN: not gmx-opt - < %t.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not gmx-run %t.mlir 2>&1 | FileCheck %s
// RUN: python -c "print('\"test.op\"() ({' * 10000 + '}) : () -> ()' * 10000)" > %t.regions.mlir
// RUN: not gmx-opt %t.regions.mlir 2>&1 | FileCheck %s --check-prefix=REGIONS

// CHECK: .mlir:1:1023: error: nesting deeper than 1000 levels: gmx does not parse input this deep (the MLIR parser would overflow its stack)
// STDIN: <stdin>:1:1023: error: nesting deeper than 1000 levels
// REGIONS: .mlir:1:7010: error: nesting deeper than 1000 levels
