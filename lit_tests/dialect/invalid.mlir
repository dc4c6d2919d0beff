// RUN: gmx-opt %s --split-input-file --verify-diagnostics

func.func @rank_mismatch(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{input and indices must have the same rank, got input rank 2 and indices rank 1}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @axis_out_of_range(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{axis 2 is out of range [0, 2) (axes = [2], rank 2)}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 2>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @negative_axis(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{axis -1 is out of range [0, 2)}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: -1>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @duplicate_axes(%x: tensor<4x3xf32>, %i: tensor<2x6xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{axes must be unique, axis 0 appears more than once in axes = [0, 0]}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0, 0>} : (tensor<4x3xf32>, tensor<2x6xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @not_a_multiple(%x: tensor<4x3xf32>, %i: tensor<2x5xi64>) -> tensor<2x2xf32> {
  // expected-error@+1 {{indices last dim 5 must be a multiple of the coordinate size 2 (= number of axes)}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0, 1>} : (tensor<4x3xf32>, tensor<2x5xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @not_broadcastable(%x: tensor<4x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{non-axis dim 1 is not broadcastable: input has size 3, logical indices have size 2 (must be equal or one of them 1)}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @wrong_result_shape(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x1xf32> {
  // expected-error@+1 {{result type tensor<2x1xf32> does not match the inferred type tensor<2x3xf32> (input [4, 3], indices [2, 1], axes [0])}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @wrong_result_dynamic(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<?x3xf32> {
  // expected-error@+1 {{result type tensor<?x3xf32> does not match the inferred type tensor<2x3xf32>}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @float_indices(%x: tensor<4x3xf32>, %i: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{indices element type must be a signless integer of 8 to 64 bits, got f32}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @index_typed_indices(%x: tensor<4x3xf32>, %i: tensor<2x3xindex>) -> tensor<2x3xf32> {
  // expected-error@+1 {{indices element type must be a signless integer of 8 to 64 bits, got index}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xindex>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @element_type_mismatch(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf16> {
  // expected-error@+1 {{result element type f16 must match input element type f32}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

func.func @missing_axes(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{requires attribute 'axes'}}
  %0 = "gmx.gather_multiaxis"(%x, %i) : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @axes_not_dense_array(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{attribute 'axes' must be a dense i64 array (array<i64: ...>), got [0]}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = [0]} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unranked_input(%x: tensor<*xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{input must be a ranked tensor, got tensor<*xf32>}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<*xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @wrong_arity(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{expects 2 operands (input, indices) and 1 result, got 1 operands and 1 results}}
  %0 = "gmx.gather_multiaxis"(%x) {axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @properties_rejected(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{extensible Dialects don't support properties}}
  %0 = "gmx.gather_multiaxis"(%x, %i) <{axes = array<i64: 0>}> : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unranked_indices(%x: tensor<4x3xf32>, %i: tensor<*xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{indices must be a ranked tensor, got tensor<*xi64>}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<*xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unranked_result(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<*xf32> {
  // expected-error@+1 {{result must be a ranked tensor, got tensor<*xf32>}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @result_rank(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x1xf32> {
  // expected-error@+1 {{result rank 3 must equal input rank 2}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// IRDL ops parse in generic form only; the parser fails without a
// diagnostic, and gmx.dialect.parsing says why.
func.func @custom_form(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'gmx.gather_multiaxis' has no custom form (gmx ops are defined in IRDL, which parses the generic form only)}}
  %0 = gmx.gather_multiaxis %x, %i {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// docs/semantics.md#out-of-range-modes: the mode is one of four spellings.
func.func @unknown_mode(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{unknown mode "modulo"; expected one of "raise", "wrap", "clip", "fill"}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "modulo"} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @mode_not_a_string(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{attribute 'mode' must be a string, one of "raise", "wrap", "clip", "fill", got 1 : i64}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = 1} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @fill_without_fill_value(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{mode "fill" requires attribute 'fill_value' of the element type f32 (e.g. fill_value = 0.0 : f32)}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill"} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @fill_value_mistyped(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{attribute 'fill_value' must be a scalar of the element type f32 (e.g. fill_value = 0.0 : f32), got -7.500000e+00 : f64}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = -7.5 : f64} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @fill_value_integer_mistyped(%x: tensor<4x3xi32>, %i: tensor<2x1xi64>) -> tensor<2x3xi32> {
  // expected-error@+1 {{attribute 'fill_value' must be a scalar of the element type i32 (e.g. fill_value = 0 : i32), got -7 : i64}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = -7} : (tensor<4x3xi32>, tensor<2x1xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @fill_value_not_a_scalar(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{attribute 'fill_value' must be a scalar of the element type f32 (e.g. fill_value = 0.0 : f32), got "nan"}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = "nan"} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @fill_value_without_fill(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{attribute 'fill_value' is only allowed with mode = "fill", got mode "clip"}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip", fill_value = 0.0 : f32} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @fill_value_default_mode(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error@+1 {{attribute 'fill_value' is only allowed with mode = "fill", got mode "raise"}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, fill_value = 0.0 : f32} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @fill_complex(%x: tensor<4x3xcomplex<f32>>, %i: tensor<2x1xi64>) -> tensor<2x3xcomplex<f32>> {
  // expected-error@+1 {{mode "fill" needs an integer or floating-point element type, got complex<f32>}}
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "fill", fill_value = 0.0 : f32} : (tensor<4x3xcomplex<f32>>, tensor<2x1xi64>) -> tensor<2x3xcomplex<f32>>
  return %0 : tensor<2x3xcomplex<f32>>
}
