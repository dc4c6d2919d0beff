// gmx.donations that name no argument of the result's type, or a function
// that cannot take destinations: a located error, never an argument
// written that the caller did not donate.
// RUN: gmx-opt %s --split-input-file --verify-diagnostics --gmx-destination-passing

// expected-error@+1 {{'gmx.donations' must name, for each result, an argument of its type (each at most once) or -1}}
func.func @wrong_type(%x: tensor<3xf32>, %y: tensor<3xi32>) -> tensor<3xf32> attributes {gmx.donations = array<i64: 1>} {
  return %x : tensor<3xf32>
}

// -----

// expected-error@+1 {{'gmx.donations' must name, for each result, an argument of its type}}
func.func @out_of_range(%x: tensor<3xf32>) -> tensor<3xf32> attributes {gmx.donations = array<i64: 4>} {
  return %x : tensor<3xf32>
}

// -----

// expected-error@+1 {{'gmx.donations' needs a public function, called by no other, whose arguments and results are all ranked tensors of static shape}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> attributes {gmx.donations = array<i64: 0>} {
  return %x : tensor<?xf32>
}

// -----

// expected-error@+1 {{'gmx.donations' must name, for each result, an argument of its type (each at most once) or -1}}
func.func @twice(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {gmx.donations = array<i64: 0, 0>} {
  return %x, %x : tensor<3xf32>, tensor<3xf32>
}
