// -o writes as mlir-opt does: through a symbolic link (to its target, the
// link stays), never over a directory, and leaves no `.gmx-*` temporary.
// Fifos, device nodes, hard links, a full disk: tests/test_output.py.
// RUN: rm -rf %t && mkdir -p %t/real && echo old > %t/real/out.mlir && ln -s real/out.mlir %t/link.mlir
// RUN: gmx-opt %s -o %t/link.mlir
// RUN: FileCheck %s < %t/real/out.mlir
// RUN: test -L %t/link.mlir
// RUN: not gmx-opt %s -o %t/real 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// RUN: ls -A %t %t/real | FileCheck %s --check-prefix=FILES

// CHECK: func.func @main
// DIRECTORY: gmx-opt: error: could not write output file '{{.*}}/real': Is a directory
// FILES-NOT: .gmx-
// FILES: link.mlir
// FILES-NOT: .gmx-
// FILES: out.mlir
// FILES-NOT: .gmx-
func.func @main() {
  return
}
