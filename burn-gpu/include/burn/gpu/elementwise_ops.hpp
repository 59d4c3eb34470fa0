// The elementwise ops of a GPU backend, written once: each is its expression (exprs.hpp) run by the
// backend's launcher, which the backend's namespace provides as
//   Prim elementwise(const B& be, OpId op, std::initializer_list<Prim> inputs, Scalar s0 = {}, Scalar s1 = {});
// One macro per op group, expanded in the backend's src/ops/<group>.cpp, defines the members that its
// BURN_DECLARE_OPS list declares.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "burn/gpu/exprs.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn::gpu {

// An int tensor against a float scalar compares exactly (int_compare_scalar); a scalar beyond int64 or NaN
// gives the constant answer in x's shape, on the device.
template <typename B, typename Launch>
Prim compare_elem(const B& be, Launch elementwise, OpId op, Prim x, Scalar s) {
  if (!x || !is_int(x->dtype()) || s.kind != Scalar::Kind::Float) return elementwise(be, op, {std::move(x)}, s, {});
  bool constant = false;
  if (const std::optional<int64_t> v = int_compare_scalar(op, s.f, constant))
    return elementwise(be, op, {std::move(x)}, Scalar(*v), {});
  // x == x is true for ints; its negation is false.
  Prim all = elementwise(be, OpId::equal, {x, x}, {}, {});
  return constant ? all : elementwise(be, OpId::bool_not, {std::move(all)}, {}, {});
}

// The bitwise ops take i64, i32, i8 and u8 tensors; float and bool are a DTypeError, as on the cpu backend.
inline void check_bitwise_operands(OpId op, std::initializer_list<Prim> inputs) {
  for (const Prim& p : inputs) {
    if (!p) throw ValueError(op_info(op).name, "a tensor argument is missing");
    const DType d = p->dtype();
    if (d != DType::I64 && d != DType::I32 && d != DType::I8 && d != DType::U8)
      throw DTypeError(op_info(op).name,
                       "expected an integer tensor (i64, i32, i8 or u8), got " + std::string(dtype_name(d)));
  }
}

}  // namespace burn::gpu

// clang-format off
#define BURN_GPU_EW_UNARY_(B, name) \
  Prim B::name(Prim x) { return elementwise(*this, OpId::name, {std::move(x)}); }
#define BURN_GPU_EW_BINARY_(B, name) \
  Prim B::name(Prim lhs, Prim rhs) { return elementwise(*this, OpId::name, {std::move(lhs), std::move(rhs)}); }
#define BURN_GPU_EW_SCALAR_(B, name) \
  Prim B::name(Prim lhs, Scalar rhs) { return elementwise(*this, OpId::name, {std::move(lhs)}, rhs); }
#define BURN_GPU_EW_COMPARE_ELEM_(B, name) \
  Prim B::name(Prim lhs, Scalar rhs) { \
    return ::burn::gpu::compare_elem( \
        *this, \
        [](const B& be, OpId op, std::initializer_list<Prim> in, Scalar s0, Scalar s1) { \
          return elementwise(be, op, in, s0, s1); \
        }, \
        OpId::name, std::move(lhs), rhs); \
  }
#define BURN_GPU_EW_BITWISE_UNARY_(B, name) \
  Prim B::name(Prim x) { \
    ::burn::gpu::check_bitwise_operands(OpId::name, {x}); \
    return elementwise(*this, OpId::name, {std::move(x)}); \
  }
#define BURN_GPU_EW_BITWISE_BINARY_(B, name) \
  Prim B::name(Prim lhs, Prim rhs) { \
    ::burn::gpu::check_bitwise_operands(OpId::name, {lhs, rhs}); \
    return elementwise(*this, OpId::name, {std::move(lhs), std::move(rhs)}); \
  }

// numeric (src/ops/numeric.cpp); matmul is not elementwise.
#define BURN_GPU_NUMERIC_OPS(B) \
  BURN_GPU_EW_BINARY_(B, add) BURN_GPU_EW_BINARY_(B, sub) BURN_GPU_EW_BINARY_(B, mul) BURN_GPU_EW_BINARY_(B, div) \
  BURN_GPU_EW_BINARY_(B, remainder) BURN_GPU_EW_BINARY_(B, fmod) BURN_GPU_EW_BINARY_(B, powf) \
  BURN_GPU_EW_BINARY_(B, maximum) BURN_GPU_EW_BINARY_(B, minimum) \
  BURN_GPU_EW_SCALAR_(B, add_scalar) BURN_GPU_EW_SCALAR_(B, sub_scalar) BURN_GPU_EW_SCALAR_(B, mul_scalar) \
  BURN_GPU_EW_SCALAR_(B, div_scalar) BURN_GPU_EW_SCALAR_(B, remainder_scalar) BURN_GPU_EW_SCALAR_(B, fmod_scalar) \
  BURN_GPU_EW_SCALAR_(B, powf_scalar) BURN_GPU_EW_SCALAR_(B, clamp_min) BURN_GPU_EW_SCALAR_(B, clamp_max) \
  BURN_GPU_EW_UNARY_(B, neg) BURN_GPU_EW_UNARY_(B, abs) BURN_GPU_EW_UNARY_(B, sign) \
  Prim B::clamp(Prim x, Scalar min, Scalar max) { return elementwise(*this, OpId::clamp, {std::move(x)}, min, max); }

// compare (src/ops/compare.cpp)
#define BURN_GPU_COMPARE_OPS(B) \
  BURN_GPU_EW_BINARY_(B, equal) BURN_GPU_EW_BINARY_(B, not_equal) BURN_GPU_EW_BINARY_(B, greater) \
  BURN_GPU_EW_BINARY_(B, greater_equal) BURN_GPU_EW_BINARY_(B, lower) BURN_GPU_EW_BINARY_(B, lower_equal) \
  BURN_GPU_EW_COMPARE_ELEM_(B, equal_elem) BURN_GPU_EW_COMPARE_ELEM_(B, not_equal_elem) \
  BURN_GPU_EW_COMPARE_ELEM_(B, greater_elem) BURN_GPU_EW_COMPARE_ELEM_(B, greater_equal_elem) \
  BURN_GPU_EW_COMPARE_ELEM_(B, lower_elem) BURN_GPU_EW_COMPARE_ELEM_(B, lower_equal_elem)

// boolean (src/ops/boolean.cpp)
#define BURN_GPU_BOOLEAN_OPS(B) \
  BURN_GPU_EW_UNARY_(B, bool_not) BURN_GPU_EW_BINARY_(B, bool_and) BURN_GPU_EW_BINARY_(B, bool_or) \
  BURN_GPU_EW_BINARY_(B, bool_xor)

// bitwise (src/ops/bitwise.cpp)
#define BURN_GPU_BITWISE_OPS(B) \
  BURN_GPU_EW_BITWISE_BINARY_(B, bitwise_and) BURN_GPU_EW_BITWISE_BINARY_(B, bitwise_or) \
  BURN_GPU_EW_BITWISE_BINARY_(B, bitwise_xor) BURN_GPU_EW_BITWISE_UNARY_(B, bitwise_not) \
  BURN_GPU_EW_BITWISE_BINARY_(B, bitwise_left_shift) BURN_GPU_EW_BITWISE_BINARY_(B, bitwise_right_shift)

// float_math (src/ops/float_math.cpp)
#define BURN_GPU_FLOAT_MATH_OPS(B) \
  BURN_GPU_EW_UNARY_(B, exp) BURN_GPU_EW_UNARY_(B, log) BURN_GPU_EW_UNARY_(B, log1p) BURN_GPU_EW_UNARY_(B, sqrt) \
  BURN_GPU_EW_UNARY_(B, sin) BURN_GPU_EW_UNARY_(B, cos) BURN_GPU_EW_UNARY_(B, tan) BURN_GPU_EW_UNARY_(B, sinh) \
  BURN_GPU_EW_UNARY_(B, cosh) BURN_GPU_EW_UNARY_(B, tanh) BURN_GPU_EW_UNARY_(B, asin) BURN_GPU_EW_UNARY_(B, acos) \
  BURN_GPU_EW_UNARY_(B, atan) BURN_GPU_EW_UNARY_(B, erf) BURN_GPU_EW_UNARY_(B, round) BURN_GPU_EW_UNARY_(B, floor) \
  BURN_GPU_EW_UNARY_(B, ceil) BURN_GPU_EW_UNARY_(B, trunc) BURN_GPU_EW_UNARY_(B, recip) BURN_GPU_EW_UNARY_(B, square) \
  BURN_GPU_EW_UNARY_(B, is_nan) BURN_GPU_EW_UNARY_(B, is_inf) BURN_GPU_EW_UNARY_(B, is_finite) \
  BURN_GPU_EW_BINARY_(B, atan2)

// activation (src/ops/activation.cpp): the elementwise ones (softmax and log_softmax are not); the double
// parameters travel as the expression's scalars.
#define BURN_GPU_ACTIVATION_OPS(B) \
  BURN_GPU_EW_UNARY_(B, relu) BURN_GPU_EW_UNARY_(B, gelu) BURN_GPU_EW_UNARY_(B, gelu_tanh) \
  BURN_GPU_EW_UNARY_(B, sigmoid) BURN_GPU_EW_UNARY_(B, log_sigmoid) BURN_GPU_EW_UNARY_(B, silu) \
  BURN_GPU_EW_UNARY_(B, mish) BURN_GPU_EW_UNARY_(B, selu) \
  Prim B::leaky_relu(Prim x, double negative_slope) { \
    return elementwise(*this, OpId::leaky_relu, {std::move(x)}, Scalar(negative_slope)); \
  } \
  Prim B::softplus(Prim x, double beta, double threshold) { \
    return elementwise(*this, OpId::softplus, {std::move(x)}, Scalar(beta), Scalar(threshold)); \
  } \
  Prim B::hard_sigmoid(Prim x, double alpha, double beta) { \
    return elementwise(*this, OpId::hard_sigmoid, {std::move(x)}, Scalar(alpha), Scalar(beta)); \
  } \
  Prim B::elu(Prim x, double alpha) { return elementwise(*this, OpId::elu, {std::move(x)}, Scalar(alpha)); }

// indexing (src/ops/indexing.cpp): selecting by a bool mask.
#define BURN_GPU_MASK_OPS(B) \
  Prim B::mask_where(Prim x, Prim mask, Prim value) { \
    return elementwise(*this, OpId::mask_where, {std::move(x), std::move(mask), std::move(value)}); \
  } \
  Prim B::mask_fill(Prim x, Prim mask, Scalar value) { \
    return elementwise(*this, OpId::mask_fill, {std::move(x), std::move(mask)}, value); \
  }
// clang-format on
