// Every elementwise op of the table written once as an expression of the kernel dialect (burn-gpu/README.md),
// per dtype: the op kernels of both GPU backends (kernels/elementwise.kernel) and the fusion code generator
// take their bodies from here. The expression reads a, b, c (the operands in their compute type) and s0, s1
// (the op's scalars).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// The languages the dialect becomes.
enum class Dialect { Glsl, OpenCl };

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

// What a plugin does with bf16 operands of an elementwise op: nothing (the vulkan plugin keeps bf16 for
// storage, moves and casts), or compute them in float as f16 (the opencl plugin: both are loaded to float
// and stored rounded, so bf16 takes f16's expression, its f16 result read as bf16).
enum class Bf16 { storage, as_float };
std::optional<Expr> elementwise_expr(OpId op, DType dtype, Bf16 bf16);

// `text` with every LIT(x) written as a literal of dtype's precision in `dialect` (GLSL: x or xlf; OpenCL
// C: xf or x). Neither preprocessor can paste a suffix onto a number, so the host writes them.
std::string with_literals(std::string text, DType dtype, Dialect dialect);

// The dialect expression decoding 64 bits of push constants into a scalar of dtype's compute type, and the
// bits the host pushes for a scalar value in that dtype.
std::string scalar_decoder(DType dtype);
uint64_t scalar_bits(const Scalar& s, DType dtype);

// An int tensor compared (op: one of the *_elem compares) with a float scalar c compares exactly, as the cpu
// backend does in double: the int64 scalar that keeps every answer (x > 2.5 is x > 2, x >= 2.5 is x >= 3);
// nullopt when the answer is the same for every int (c NaN or beyond int64, == or != a non-integer), which
// `constant` then holds. Eager compares and the fused code generators use it.
std::optional<int64_t> int_compare_scalar(OpId op, double c, bool& constant);

}  // namespace burn::gpu
