// The elementwise expression table in the kernel dialect (README.md): float ops call the dialect's b_*
// math so that f32 and f64 share a spelling, conversions are CVT(T, x), kernel arguments ARG(name);
// comparisons and predicates give bool as 0u/1u.
#include "burn/gpu/exprs.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace burn::gpu {

namespace {

bool fl(DType d) { return d == DType::F32 || d == DType::F64 || d == DType::F16; }
bool integer(DType d) { return d == DType::I64 || d == DType::I32; }
bool num(DType d) { return fl(d) || integer(d); }
// The bitwise ops' dtypes: i8 and u8 compute as int (C's promotion, which the shift rules assume).
bool bitwise(DType d) { return integer(d) || d == DType::I8 || d == DType::U8; }

Expr e(std::string text, DType result, int arity, int scalars = 0, bool faults = false) {
  return Expr{std::move(text), result, arity, scalars, faults};
}

// a <cmp> s0: integer tensors compare as int64 against an int64 scalar (the op rounds a float scalar so
// that the comparison stays exact, see compare.cpp).
std::optional<Expr> elem_compare(const char* cmp, DType d) {
  if (integer(d)) {
    Expr x = e(std::string("(CVT(int64_t, a) ") + cmp + " s0) ? 1u : 0u", DType::Bool, 1, 1);
    x.scalar_i64 = true;
    return x;
  }
  if (num(d) || d == DType::Bool) return e(std::string("(a ") + cmp + " s0) ? 1u : 0u", DType::Bool, 1, 1);
  return std::nullopt;
}

}  // namespace

std::optional<Expr> elementwise_expr(OpId op, DType d) {
  const DType B = DType::Bool;
  const bool f = fl(d), n = num(d), i = integer(d), b = d == DType::Bool;
  const bool any = n || b;
  switch (op) {
    // numeric
    case OpId::add:
      if (n) return e("a + b", d, 2);
      break;
    case OpId::sub:
      if (n) return e("a - b", d, 2);
      break;
    case OpId::mul:
      if (n) return e("a * b", d, 2);
      break;
    case OpId::div:
      if (f) return e("a / b", d, 2);
      if (i) return e("b_idiv(a, b, ARG(faults), ARG(tag))", d, 2, 0, true);
      break;
    case OpId::remainder:
      if (f) return e("b_remainder(a, b)", d, 2);
      if (i) return e("b_iremainder(a, b, ARG(faults), ARG(tag))", d, 2, 0, true);
      break;
    case OpId::fmod:
      if (f) return e("b_fmod(a, b)", d, 2);
      if (i) return e("b_ifmod(a, b, ARG(faults), ARG(tag))", d, 2, 0, true);
      break;
    case OpId::powf:
      if (n) return e("b_pow(a, b)", d, 2);
      break;
    case OpId::add_scalar:
      if (n) return e("a + s0", d, 1, 1);
      break;
    case OpId::sub_scalar:
      if (n) return e("a - s0", d, 1, 1);
      break;
    case OpId::mul_scalar:
      if (n) return e("a * s0", d, 1, 1);
      break;
    case OpId::div_scalar:
      if (f) return e("a / s0", d, 1, 1);
      if (i) return e("b_idiv(a, s0, ARG(faults), ARG(tag))", d, 1, 1, true);
      break;
    case OpId::remainder_scalar:
      if (f) return e("b_remainder(a, s0)", d, 1, 1);
      if (i) return e("b_iremainder(a, s0, ARG(faults), ARG(tag))", d, 1, 1, true);
      break;
    case OpId::fmod_scalar:
      if (f) return e("b_fmod(a, s0)", d, 1, 1);
      if (i) return e("b_ifmod(a, s0, ARG(faults), ARG(tag))", d, 1, 1, true);
      break;
    case OpId::powf_scalar:
      if (n) return e("b_pow(a, s0)", d, 1, 1);
      break;
    case OpId::maximum:
      if (n) return e("b_max(a, b)", d, 2);
      break;
    case OpId::minimum:
      if (n) return e("b_min(a, b)", d, 2);
      break;
    case OpId::neg:
      if (n) return e("-a", d, 1);
      break;
    case OpId::abs:
      if (n) return e("b_abs(a)", d, 1);
      break;
    case OpId::sign:
      if (n) return e("b_sign(a)", d, 1);
      break;
    case OpId::clamp:
      if (n) return e("b_clamp(a, s0, s1)", d, 1, 2);
      break;
    case OpId::clamp_min:
      if (n) return e("b_max(a, s0)", d, 1, 1);
      break;
    case OpId::clamp_max:
      if (n) return e("b_min(a, s0)", d, 1, 1);
      break;
    // compare: NaN compares false except with !=, as IEEE and PyTorch
    case OpId::equal:
      if (any) return e("(a == b) ? 1u : 0u", B, 2);
      break;
    case OpId::not_equal:
      if (any) return e("(a != b) ? 1u : 0u", B, 2);
      break;
    case OpId::greater:
      if (any) return e("(a > b) ? 1u : 0u", B, 2);
      break;
    case OpId::greater_equal:
      if (any) return e("(a >= b) ? 1u : 0u", B, 2);
      break;
    case OpId::lower:
      if (any) return e("(a < b) ? 1u : 0u", B, 2);
      break;
    case OpId::lower_equal:
      if (any) return e("(a <= b) ? 1u : 0u", B, 2);
      break;
    case OpId::equal_elem: return elem_compare("==", d);
    case OpId::not_equal_elem: return elem_compare("!=", d);
    case OpId::greater_elem: return elem_compare(">", d);
    case OpId::greater_equal_elem: return elem_compare(">=", d);
    case OpId::lower_elem: return elem_compare("<", d);
    case OpId::lower_equal_elem: return elem_compare("<=", d);
    // indexing: select by a bool mask (operand b)
    case OpId::mask_where: {
      Expr x = e("(b != 0u) ? c : a", d, 3);
      x.bool_operand = 1;
      return x;
    }
    case OpId::mask_fill: {
      Expr x = e("(b != 0u) ? s0 : a", d, 2, 1);
      x.bool_operand = 1;
      return x;
    }
    // boolean
    case OpId::bool_not:
      if (b) return e("(a == 0u) ? 1u : 0u", B, 1);
      break;
    case OpId::bool_and:
      if (b) return e("(a != 0u && b != 0u) ? 1u : 0u", B, 2);
      break;
    case OpId::bool_or:
      if (b) return e("(a != 0u || b != 0u) ? 1u : 0u", B, 2);
      break;
    case OpId::bool_xor:
      if (b) return e("((a != 0u) != (b != 0u)) ? 1u : 0u", B, 2);
      break;
    // bitwise: shift counts modulo the promoted width (burn/tensor/detail/bitwise.hpp)
    case OpId::bitwise_and:
      if (bitwise(d)) return e("a & b", d, 2);
      break;
    case OpId::bitwise_or:
      if (bitwise(d)) return e("a | b", d, 2);
      break;
    case OpId::bitwise_xor:
      if (bitwise(d)) return e("a ^ b", d, 2);
      break;
    case OpId::bitwise_not:
      if (bitwise(d)) return e("~a", d, 1);
      break;
    case OpId::bitwise_left_shift:
      if (d == DType::I64) return e("a << (b & CVT(int64_t, 63))", d, 2);
      if (bitwise(d)) return e("a << (b & 31)", d, 2);
      break;
    case OpId::bitwise_right_shift:
      if (d == DType::I64) return e("a >> (b & CVT(int64_t, 63))", d, 2);
      if (bitwise(d)) return e("a >> (b & 31)", d, 2);
      break;
    // float math
    case OpId::exp:
      if (f) return e("b_exp(a)", d, 1);
      break;
    case OpId::log:
      if (f) return e("b_log(a)", d, 1);
      break;
    case OpId::log1p:
      if (f) return e("b_log1p(a)", d, 1);
      break;
    case OpId::sqrt:
      if (f) return e("sqrt(a)", d, 1);
      break;
    case OpId::sin:
      if (f) return e("b_sin(a)", d, 1);
      break;
    case OpId::cos:
      if (f) return e("b_cos(a)", d, 1);
      break;
    case OpId::tan:
      if (f) return e("b_tan(a)", d, 1);
      break;
    case OpId::sinh:
      if (f) return e("b_sinh(a)", d, 1);
      break;
    case OpId::cosh:
      if (f) return e("b_cosh(a)", d, 1);
      break;
    case OpId::tanh:
      if (f) return e("b_tanh(a)", d, 1);
      break;
    case OpId::asin:
      if (f) return e("b_asin(a)", d, 1);
      break;
    case OpId::acos:
      if (f) return e("b_acos(a)", d, 1);
      break;
    case OpId::atan:
      if (f) return e("b_atan(a)", d, 1);
      break;
    case OpId::erf:
      if (f) return e("b_erf(a)", d, 1);
      break;
    case OpId::round:
      if (f) return e("b_round(a)", d, 1);
      break;
    case OpId::floor:
      if (f) return e("floor(a)", d, 1);
      break;
    case OpId::ceil:
      if (f) return e("ceil(a)", d, 1);
      break;
    case OpId::trunc:
      if (f) return e("trunc(a)", d, 1);
      break;
    case OpId::atan2:
      if (f) return e("b_atan2(a, b)", d, 2);
      break;
    case OpId::recip:
      if (f) return e("CVT(S_C, 1) / a", d, 1);
      break;
    case OpId::square:
      if (n) return e("a * a", d, 1);
      break;
    case OpId::is_nan:
      if (f) return e("isnan(a) ? 1u : 0u", B, 1);
      break;
    case OpId::is_inf:
      if (f) return e("isinf(a) ? 1u : 0u", B, 1);
      break;
    case OpId::is_finite:
      if (f) return e("(isnan(a) || isinf(a)) ? 0u : 1u", B, 1);
      break;
    // activations, as the cpu backend computes them (burn-backend-cpu/src/ops/activation.cpp); their double
    // parameters arrive as s0, s1; LIT(x) is a literal of the expression's precision
    case OpId::relu:
      if (f) return e("(a < CVT(S_C, 0)) ? CVT(S_C, 0) : a", d, 1);
      break;
    case OpId::leaky_relu:
      if (f) return e("(a > CVT(S_C, 0)) ? a : a * s0", d, 1, 1);
      break;
    case OpId::gelu:
      if (f) return e("LIT(0.5) * a * (CVT(S_C, 1) + b_erf(a * LIT(0.70710678118654752440)))", d, 1);
      break;
    case OpId::gelu_tanh:
      if (f) return e("b_gelu_tanh(a)", d, 1);
      break;
    case OpId::sigmoid:
      if (f) return e("CVT(S_C, 1) / (CVT(S_C, 1) + b_exp(-a))", d, 1);
      break;
    case OpId::log_sigmoid:
      if (f) return e("((a < CVT(S_C, 0)) ? a : CVT(S_C, 0)) - b_log1p(b_exp(-b_abs(a)))", d, 1);
      break;
    case OpId::silu:
      if (f) return e("a / (CVT(S_C, 1) + b_exp(-a))", d, 1);
      break;
    case OpId::mish:
      if (f) return e("b_mish(a)", d, 1);
      break;
    case OpId::softplus:
      if (f) return e("(a * s0 > s1) ? a : b_log1p(b_exp(a * s0)) / s0", d, 1, 2);
      break;
    case OpId::hard_sigmoid:
      if (f) return e("b_min(b_max(s0 * a + s1, CVT(S_C, 0)), CVT(S_C, 1))", d, 1, 2);
      break;
    case OpId::elu:
      if (f) return e("(a > CVT(S_C, 0)) ? a : s0 * b_expm1(a)", d, 1, 1);
      break;
    case OpId::selu:
      if (f)
        return e(
            "LIT(1.0507009873554804934193349852946) * ((a > CVT(S_C, 0)) ? a : LIT(1.6732632423543772848170429916717) "
            "* "
            "b_expm1(a))",
            d, 1);
      break;
    default: break;
  }
  return std::nullopt;
}

std::optional<Expr> elementwise_expr(OpId op, DType d, Bf16 bf16) {
  if (d != DType::BF16 || bf16 == Bf16::storage) return elementwise_expr(op, d);
  std::optional<Expr> x = elementwise_expr(op, DType::F16);
  if (x && x->result == DType::F16) x->result = DType::BF16;
  return x;
}

std::string with_literals(std::string text, DType d, Dialect dialect) {
  for (size_t at = text.find("LIT("); at != std::string::npos; at = text.find("LIT(", at)) {
    const size_t close = text.find(')', at);
    std::string lit = text.substr(at + 4, close - at - 4);
    // GLSL: unsuffixed is float, lf double; OpenCL C: unsuffixed is double, f float.
    if (dialect == Dialect::Glsl && d == DType::F64) lit += "lf";
    if (dialect == Dialect::OpenCl && d != DType::F64) lit += "f";
    text.replace(at, close - at + 1, lit);
    at += lit.size();
  }
  return text;
}

std::string scalar_decoder(DType d) {
  switch (d) {
    case DType::F32:
    case DType::F16:
    case DType::BF16: return "b_as_f32(CVT(uint, bits))";
    case DType::F64: return "b_as_f64(bits)";
    case DType::I64: return "CVT(int64_t, bits)";
    case DType::I32:
    case DType::I8:
    case DType::U8: return "CVT(int, CVT(int64_t, bits))";
    default: return "CVT(uint, bits)";
  }
}

uint64_t scalar_bits(const Scalar& s, DType d) {
  switch (d) {
    case DType::F32:
    case DType::F16:
    case DType::BF16: return std::bit_cast<uint32_t>(static_cast<float>(s.as_double()));
    case DType::F64: return std::bit_cast<uint64_t>(s.as_double());
    case DType::Bool: return s.as_bool() ? 1 : 0;
    default: return static_cast<uint64_t>(s.as_int());
  }
}

std::optional<int64_t> int_compare_scalar(OpId op, double c, bool& constant) {
  constexpr double kTop = 9223372036854775808.0;  // 2^63
  const bool eq = op == OpId::equal_elem, ne = op == OpId::not_equal_elem;
  const bool gt = op == OpId::greater_elem || op == OpId::greater_equal_elem;
  if (std::isnan(c)) {
    constant = ne;
    return std::nullopt;
  }
  if (c >= kTop) {
    constant = !gt && !eq;  // every int is below c
    return std::nullopt;
  }
  if (c < -kTop) {
    constant = gt || ne;  // every int is above c
    return std::nullopt;
  }
  if ((eq || ne) && c != std::floor(c)) {
    constant = ne;
    return std::nullopt;
  }
  switch (op) {
    case OpId::greater_elem:
    case OpId::lower_equal_elem: return static_cast<int64_t>(std::floor(c));
    case OpId::greater_equal_elem:
    case OpId::lower_elem: return static_cast<int64_t>(std::ceil(c));
    default: return static_cast<int64_t>(c);
  }
}

}  // namespace burn::gpu
