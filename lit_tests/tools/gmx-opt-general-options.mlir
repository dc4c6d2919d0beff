// mlir-opt's general options (tools/general_options.py; the table in
// docs/tools.md), each checked by its effect. Chunk 1 is a gather; chunk 2
// holds an op of no registered dialect and an elided-size resource.
//
// Reports: the pipeline, then statistics and execution times (statistics
// are compiled out of this LLVM: the report is empty, as torch-mlir-opt's).
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --gmx-canonicalize --cse --dump-pass-pipeline --mlir-pass-statistics --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORTS
// REPORTS: Pass Manager with 4 passes:
// REPORTS-NEXT: builtin.module(
// REPORTS-NEXT:   inline{{.*}},
// REPORTS-NEXT:   symbol-dce,
// REPORTS-NEXT:   gmx-canonicalize,
// REPORTS-NEXT:   cse
// REPORTS-NEXT: )
// REPORTS: ... Pass statistics report ...
// REPORTS: ... Execution time report ...
// REPORTS: Total Execution Time:
// REPORTS: gmx-canonicalize
// REPORTS: CSEPass
// Chunk 2 has its own pass manager and reports, as in mlir-opt.
// REPORTS: Pass Manager with 4 passes:
// REPORTS: ... Execution time report ...
//
// IR dumps: before every pass; after a pass only where it changed the IR
// (cse drops chunk 1's dead constants, changes nothing in chunk 2); elided
// as the output is; the op a pass ran on, or the module.
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(cse),convert-gmx-to-linalg)' --mlir-print-ir-before-all --mlir-print-ir-after-all --mlir-print-ir-after-change --mlir-elide-elementsattrs-if-larger=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMPS
// DUMPS: IR Dump Before CSEPass: cse //----- //
// DUMPS-NEXT: func.func @main
// DUMPS-NEXT: arith.constant dense_resource<__elided__> : tensor<4xf32>
// DUMPS: IR Dump After CSEPass: cse //----- //
// DUMPS: IR Dump Before convert-gmx-to-linalg
// DUMPS: IR Dump After convert-gmx-to-linalg
// DUMPS: linalg.generic
// DUMPS: IR Dump Before CSEPass: cse //----- //
// DUMPS-NEXT: func.func @unregistered
// DUMPS-NOT: IR Dump After
// DUMPS: IR Dump Before convert-gmx-to-linalg
// DUMPS-NOT: IR Dump After
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(cse))' --mlir-print-ir-after-all --mlir-print-ir-module-scope --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPE
// SCOPE: IR Dump After CSEPass: cse ('func.func' operation: @main) //----- //
// SCOPE-NEXT: module {
//
// Dumps before and after named passes only (filtered from the all-passes
// dump: the bindings print before or after every pass), on the declared
// lowering's stages by their names.
// Through --verify-diagnostics too (chunk 2's error is expected), with
// each chunk's execution times.
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --gmx-lower-to-llvm --mlir-print-ir-before=gmx-report-asserts --mlir-print-ir-after=convert-gmx-to-linalg,gmx-mark-arguments-noalias --mlir-timing -o /dev/null 2>&1 | grep -e "IR Dump" -e "error:" -e "Execution time" | FileCheck %s --check-prefix=NAMED
// NAMED: IR Dump After convert-gmx-to-linalg: convert-gmx-to-linalg //----- //
// NAMED-NEXT: IR Dump Before gmx-report-asserts: gmx-report-asserts //----- //
// NAMED-NEXT: IR Dump After gmx-mark-arguments-noalias: gmx-mark-arguments-noalias //----- //
// NAMED-NEXT: Execution time report
// Chunk 2 fails in bufferization, after gmx-report-asserts.
// NAMED-NEXT: IR Dump After convert-gmx-to-linalg
// NAMED-NEXT: IR Dump Before gmx-report-asserts
// NAMED-NEXT: Execution time report
// NAMED-NOT: error
// RUN: not gmx-opt %s --split-input-file --allow-unregistered-dialect --gmx-lower-to-llvm --mlir-print-ir-after-failure -o %t.unwritten 2>&1 | grep -e "IR Dump" -e "error:" | FileCheck %s --check-prefix=FAILURE
// FAILURE: IR Dump After OneShotBufferizePass Failed: one-shot-bufferize
// FAILURE-NEXT: error: op was not bufferized
// RUN: rm -rf %t.tree && gmx-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(cse),gmx-canonicalize)' --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t.tree -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=TREE-STDERR
// RUN: cat %t.tree/builtin_module_no-symbol-name/func_func_main/0_0_cse.mlir | FileCheck %s --check-prefix=TREE
// RUN: cat %t.tree/builtin_module_no-symbol-name/3_gmx-canonicalize.mlir | FileCheck %s --check-prefix=TREE
// TREE-STDERR-NOT: IR Dump
// TREE: IR Dump After
// Named passes only: the files of the others are not kept.
// RUN: rm -rf %t.named-tree && gmx-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(cse),gmx-canonicalize)' --mlir-print-ir-after=gmx-canonicalize --mlir-print-ir-tree-dir=%t.named-tree -o /dev/null
// RUN: cat %t.named-tree/builtin_module_no-symbol-name/3_gmx-canonicalize.mlir | FileCheck %s --check-prefix=TREE
// RUN: not cat %t.named-tree/builtin_module_no-symbol-name/func_func_main/0_0_cse.mlir
//
// Output: bytecode that reads back (of the version asked for: 6 is the
// newest, its varint 0x0d; 3 is 0x07); elided elements and resources;
// regions skipped; generic form; local scope (no aliases); pretty locations; names from
// NameLocs. The passes
// run without the verifier between them with --verify-each=false (what
// that lets through: tests/test_general_options.py).
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --emit-bytecode -o %t.mlirbc
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --emit-bytecode --emit-bytecode-version=3 -o %t.v3.mlirbc
// RUN: python -c "import sys; print(*(open(f, 'rb').read(5) for f in sys.argv[1:]))" %t.mlirbc %t.v3.mlirbc | FileCheck %s --check-prefix=MAGIC
// RUN: gmx-opt %t.mlirbc --split-input-file --allow-unregistered-dialect | FileCheck %s --check-prefix=READ-BACK
// MAGIC: b'ML\xefR\r' b'ML\xefR\x07'
// READ-BACK: "gmx.gather_multiaxis"
// READ-BACK: "foo.bar"
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --mlir-elide-elementsattrs-if-larger=2 --mlir-elide-resource-strings-if-larger=8 | FileCheck %s --check-prefix=ELIDE
// ELIDE: arith.constant dense_resource<__elided__> : tensor<4xf32>
// ELIDE: arith.constant dense<[1, 2]> : tensor<2xi64>
// ELIDE: arith.constant dense_resource<blob1> : tensor<4xf32>
// ELIDE: {-#
// ELIDE-NOT: 0x04000000
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --cse --mlir-print-skip-regions --mlir-pass-statistics --mlir-pass-statistics-display=list 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-skip-regions --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// SKIP: ... Pass statistics report ...
// SKIP: module {...}
// SKIP-NEXT: // -----
// SKIP-NEXT: module {...}
// GENERIC: "builtin.module"() ({...}) : () -> ()
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --convert-gmx-to-linalg --verify-each=false | FileCheck %s --check-prefix=ALIASES
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --convert-gmx-to-linalg --mlir-print-local-scope | FileCheck %s --check-prefix=LOCAL
// ALIASES: #map = affine_map
// ALIASES: linalg.generic
// LOCAL-NOT: #map
// LOCAL: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>
// RUN: gmx-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-debuginfo --mlir-pretty-debuginfo --mlir-use-nameloc-as-prefix | FileCheck %s --check-prefix=PRETTY
// PRETTY-NOT: loc(
// PRETTY: %weights = arith.constant {{.*}} "weights"
// PRETTY: "gmx.gather_multiaxis"{{.*}} {{.*}}gmx-opt-general-options.mlir:
//
// Ops of no registered dialect: refused, unless allowed.
// RUN: not gmx-opt %s --split-input-file -o %t.unwritten 2>&1 | FileCheck %s --check-prefix=UNREGISTERED
// UNREGISTERED: gmx-opt-general-options.mlir:{{[0-9]+}}:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
//
// What gmx-opt carries, and its help: the general options apart from the passes.
// RUN: gmx-opt --help | FileCheck %s --check-prefix=HELP
// HELP: General options:
// HELP: -o OUTPUT
// HELP: --mlir-timing
// HELP: Generic Options:
// HELP-NEXT: -h, --help
// HELP-NEXT: --version
// HELP: Compiler passes to run (gmx passes):
// HELP-NEXT: --convert-gmx-to-linalg
// RUN: gmx-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: gmx-opt --version | FileCheck %s --check-prefix=VERSION
// DIALECTS: Available Dialects: {{.*}},func,gmx,{{.*}},stablehlo,{{.*}},tosa,
// VERSION: gmx-opt (gmx {{[0-9.]+}})
// VERSION-NEXT: MLIR of torch-mlir 20261001
// VERSION-NEXT: LLVM version {{[0-9]+}}

func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("weights")
  %s = arith.constant dense<[1, 2]> : tensor<2xi64>
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unregistered() -> tensor<4xf32> {
  %0 = arith.constant dense_resource<blob1> : tensor<4xf32>
  // expected-error@+2 {{op was not bufferized}}
  // expected-note@+1 {{see current operation}}
  %1 = "foo.bar"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}
