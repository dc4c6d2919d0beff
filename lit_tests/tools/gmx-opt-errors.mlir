// Errors in the command line and in the files it names: one line each, exit
// status 1; those of the command line before any work. They have no source
// location, so, as upstream's pass-pipeline tests do, they are checked on
// stderr rather than with --verify-diagnostics.
// RUN: not gmx-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN-FLAG
// RUN: not gmx-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not gmx-opt %s --mlir-timin 2>&1 | FileCheck %s --check-prefix=NEAR-OPTION
// RUN: not gmx-opt %s --gmx-canonicalise 2>&1 | FileCheck %s --check-prefix=NEAR-PASS
// RUN: not gmx-opt %s --pass-pipeline='builtin.module(gmx-canonicalise)' 2>&1 | FileCheck %s --check-prefix=NEAR-ELEMENT
// RUN: not gmx-opt %s --verify-each=maybe 2>&1 | FileCheck %s --check-prefix=GENERAL-VALUE
// RUN: not gmx-opt %s --mlir-elide-elementsattrs-if-larger=-1 2>&1 | FileCheck %s --check-prefix=GENERAL-UINT
// RUN: not gmx-opt %s --convert-gmx-to-linalg=bogus=true 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not gmx-opt %s --pass-pipeline='builtin.module(gmx-stream-row-copies{x})' 2>&1 | FileCheck %s --check-prefix=NO-OPTIONS
// RUN: not gmx-opt %s --convert-gmx-to-linalg=checked=maybe 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not gmx-opt %s --pass-pipeline='builtin.module(convert-gmx-to-linalg{checked=false)' 2>&1 | FileCheck %s --check-prefix=BRACE
// RUN: not gmx-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=PAREN
// RUN: not gmx-opt %s --pass-pipeline='builtin.module(convert-gmx-to-linalg checked=false})' 2>&1 | FileCheck %s --check-prefix=CLOSE
// RUN: not gmx-opt %s --convert-gmx-to-linalg --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not gmx-opt %s.missing 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not gmx-opt %s -o %t.missing/out.mlir 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not gmx-opt %s stray 2>&1 | FileCheck %s --check-prefix=ARGUMENT
// RUN: python -c "import sys; sys.stdout.buffer.write(b'// ok\n\xff')" | not gmx-opt - 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: not gmx-opt %S 2>&1 | FileCheck %s --check-prefix=DIRECTORY

// UNKNOWN-FLAG: gmx-opt: error: unknown pass or option '--no-such-pass'{{$}}
// UNKNOWN: gmx-opt: error: unknown pass or malformed pipeline element 'no-such-pass'{{$}}
// NEAR-OPTION: gmx-opt: error: unknown pass or option '--mlir-timin'; did you mean '--mlir-timing'?
// NEAR-PASS: gmx-opt: error: unknown pass or option '--gmx-canonicalise'; did you mean '--gmx-canonicalize'?
// NEAR-ELEMENT: gmx-opt: error: unknown pass or malformed pipeline element 'gmx-canonicalise'; did you mean 'gmx-canonicalize'?
// GENERAL-VALUE: gmx-opt: error: option '--verify-each' takes true or false, not 'maybe'
// GENERAL-UINT: gmx-opt: error: option '--mlir-elide-elementsattrs-if-larger' takes a non-negative integer, not '-1'
// OPTION: gmx-opt: error: 'convert-gmx-to-linalg' has no option 'bogus' (options: checked)
// NO-OPTIONS: gmx-opt: error: 'gmx-stream-row-copies' has no option 'x' (options: none)
// VALUE: gmx-opt: error: 'convert-gmx-to-linalg' option 'checked' expects true or false, got 'maybe'
// BRACE: gmx-opt: error: malformed pass pipeline 'builtin.module(convert-gmx-to-linalg{checked=false)': unbalanced ')'
// PAREN: gmx-opt: error: malformed pass pipeline 'builtin.module(func.func(cse)': '(' is never closed
// CLOSE: gmx-opt: error: malformed pass pipeline 'builtin.module(convert-gmx-to-linalg checked=false})': unbalanced '}'
// MIXED: gmx-opt: error: '--pass-pipeline' cannot be combined with individual pass flags
// INPUT: gmx-opt: error: could not open input file '{{.*}}gmx-opt-errors.mlir.missing': No such file or directory
// OUTPUT: gmx-opt: error: could not write output file '{{.*}}.missing/out.mlir': No such file or directory
// ARGUMENT: gmx-opt: error: unrecognized argument 'stray'
// UTF8: gmx-opt: error: could not read input file '<stdin>': invalid UTF-8 at line 2, column 1 (byte 0xff)
// DIRECTORY: gmx-opt: error: could not open input file '{{.*}}tools': Is a directory
func.func @main() {
  return
}
