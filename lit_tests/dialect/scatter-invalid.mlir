// RUN: gmx-opt %s --split-input-file --verify-diagnostics

// Every message of the scatter's verifier (gmx.dialect.scatter); the rules it
// shares with the gather (rank, axes, folded coordinates, broadcasting) say
// the same words as the gather's (invalid.mlir).

func.func @arity(%x: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error@+1 {{expects 3 operands (input, indices, updates) and 1 result, got 2 operands and 1 results}}
  %0 = "gmx.scatter_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @no_axes(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{requires attribute 'axes' (a dense i64 array, e.g. {axes = array<i64: 0>})}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unranked_updates(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<*xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{updates must be a ranked tensor, got tensor<*xf32>}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<2xi64>, tensor<*xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @float_indices(%x: tensor<4xf32>, %i: tensor<2xf32>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{indices element type must be a signless integer of 8 to 64 bits, got f32}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @updates_element_type(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf16>) -> tensor<4xf32> {
  // expected-error@+1 {{updates element type f16 must match input element type f32}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @result_type(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{result type tensor<2xf32> must be the input type tensor<4xf32>}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fill_is_a_gather_mode(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{mode "fill" is not a scatter mode; scatters take "raise", "wrap", "clip", "drop", "skip"}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, mode = "fill", fill_value = 0.0 : f32} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_mode(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown mode "ignore"; expected one of "raise", "wrap", "clip", "drop", "skip"}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, mode = "ignore"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mode_not_a_string(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{attribute 'mode' must be a string, one of "raise", "wrap", "clip", "drop", "skip", got 1 : i64}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, mode = 1} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown reduction "sum"; expected one of "none", "add", "mul", "max", "min"}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "sum"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduction_not_a_string(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{attribute 'reduction' must be a string, one of "none", "add", "mul", "max", "min", got unit}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_on_i1(%x: tensor<4xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{reduction "add" is not defined on i1 (use "max" for or, "min" for and)}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @mul_on_i1(%x: tensor<4xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{reduction "mul" is not defined on i1}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "mul"} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @max_on_complex(%x: tensor<4xcomplex<f32>>, %i: tensor<2xi64>, %u: tensor<2xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{reduction "max" needs ordered elements, got complex<f32>}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "max"} : (tensor<4xcomplex<f32>>, tensor<2xi64>, tensor<2xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @unique_indices_not_unit(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{attribute 'unique_indices' must be a unit attribute, got true}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, unique_indices = true} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @updates_rank(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<6xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{updates must have rank 2 (the input's), got rank 1}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @updates_dim(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x2xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{updates dim 1 has size 2; it must be 3 (the gathered shape [2, 3] at dim 1) or 1}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// The gather's rules, shared.
func.func @shared_broadcast_rule(%x: tensor<4x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{non-axis dim 1 is not broadcastable: input has size 3, logical indices have size 2 (must be equal or one of them 1)}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @shared_axes_rule(%x: tensor<4x3xf32>, %i: tensor<2x6xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{axes must be unique, axis 0 appears more than once in axes = [0, 0]}}
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0, 0>} : (tensor<4x3xf32>, tensor<2x6xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// "drop" is no gather mode.
func.func @drop_is_a_scatter_mode(%x: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error@+1 {{mode "drop" is not a gather mode; gathers take "raise", "wrap", "clip", "fill"}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "drop"} : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// "skip" is no gather mode either.
func.func @skip_is_a_scatter_mode(%x: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error@+1 {{mode "skip" is not a gather mode; gathers take "raise", "wrap", "clip", "fill"}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "skip"} : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Custom form: located, with the scatter's generic form as the hint.
// expected-error@+2 {{'gmx.scatter_multiaxis' has no custom form (gmx ops are defined in IRDL, which parses the generic form only): write "gmx.scatter_multiaxis"(%input, %indices, %updates) {axes = array<i64: ...>} : (...) -> ...}}
func.func @custom_form(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  %0 = gmx.scatter_multiaxis %x, %i, %u
  return %0 : tensor<4xf32>
}
