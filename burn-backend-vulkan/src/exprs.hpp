// Every elementwise op of the table written once as an expression of the kernel dialect, per dtype: the
// op kernels (kernels/elementwise.comp) and the fusion code generator both take their bodies from here.
// The expression reads a, b, c (the operands in their compute type) and s0, s1 (the op's scalars).
#pragma once

#include <optional>
#include <string>

#include "burn/tensor/backend.hpp"

namespace burn::vulkan {

struct Expr {
  std::string text;         // e.g. "b_exp(a)", "(a > b) ? 1u : 0u"
  DType result;             // the result's dtype
  int arity = 1;            // tensor operands
  int scalars = 0;          // s0, s1 used
  bool faults = false;      // may call raise_fault (integer division by zero)
  bool scalar_i64 = false;  // the scalars are int64_t whatever the operand's int type (exact comparisons)
  int bool_operand = -1;    // an operand that is a bool mask whatever `dtype` is (mask_where, mask_fill)
};

// The expression of `op` on operands of `dtype`; nothing when the op is not elementwise or does not take
// that dtype (the caller raises Unsupported naming both).
std::optional<Expr> elementwise_expr(OpId op, DType dtype);

// `text` with every LIT(x) written as a literal of dtype's precision (x, or xlf for f64: GLSL cannot paste
// a suffix in a macro).
std::string with_literals(std::string text, DType dtype);

// The GLSL expression decoding 64 bits of push constants into a scalar of dtype's compute type, and the
// bits the host pushes for a scalar value in that dtype.
std::string scalar_decoder(DType dtype);
uint64_t scalar_bits(const Scalar& s, DType dtype);

}  // namespace burn::vulkan
