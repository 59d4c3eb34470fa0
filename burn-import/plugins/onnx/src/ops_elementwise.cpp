// Elementwise ONNX ops: arithmetic, math functions, activations, Clip, Cast, variadic Min/Max/Sum/Mean.
#include <cmath>
#include <limits>

#include "burn/tensor/shape_rules.hpp"
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

// ONNX binary ops take one type T for both operands; a mismatch (Pow's exponent) is cast to the first.
H same_dtype(const H& b, DType want) { return b.prim->dtype() == want ? b : api::cast(b, want); }

// The dtype arithmetic runs in: the narrow ints and halves that backends may only store are widened.
DType compute_dtype(DType d) {
  if (d == DType::U8 || d == DType::I8) return DType::I32;
  if (d == DType::F16 || d == DType::BF16) return DType::F32;
  return d;
}
H widen(const H& h) { return same_dtype(h, compute_dtype(h.prim->dtype())); }
H narrow_to(const H& h, DType d) { return h.prim->dtype() == d ? h : api::cast(h, d); }

template <H (*F)(H, const H&)>
Hs binary(OpContext& c) {
  DType dt = c.dtype(0);
  return {narrow_to(F(widen(c.in(0)), same_dtype(c.in(1), compute_dtype(dt))), dt)};
}

template <OpId Op>
Hs unary(OpContext& c) {
  DType dt = c.dtype(0);
  if (!is_float(dt) && !is_int(dt)) return {api::unary(Op, c.in(0))};
  H y = api::unary(Op, widen(c.in(0)));
  return {is_bool(y.prim->dtype()) ? y : narrow_to(y, dt)};
}

Hs pow_op(OpContext& c) {
  H base = c.in(0);
  if (is_float(c.dtype(0))) return {api::powf(base, same_dtype(c.in(1), c.dtype(0)))};
  // Integer base: computed in f64 and rounded back (ONNX allows int T with any exponent type).
  H r = api::powf(api::cast(base, DType::F64), api::cast(c.in(1), DType::F64));
  return {api::cast(api::unary(OpId::round, r), c.dtype(0))};
}

Hs div_op(OpContext& c) {
  H b = same_dtype(c.in(1), c.dtype(0));
  if (is_float(c.dtype(0))) return {api::div(c.in(0), b)};
  // ONNX integer division truncates toward zero (C semantics, as the reference runtime).
  H q = api::div(api::cast(c.in(0), DType::F64), api::cast(b, DType::F64));
  return {api::cast(api::unary(OpId::trunc, q), c.dtype(0))};
}

Hs mod_op(OpContext& c) {
  DType dt = c.dtype(0);
  H a = widen(c.in(0)), b = same_dtype(c.in(1), compute_dtype(dt));
  if (c.attr_i("fmod", 0)) return {narrow_to(api::fmod(a, b), dt)};
  if (is_float(dt)) c.invalid("fmod=0 needs integer inputs");
  return {narrow_to(api::remainder(a, b), dt)};
}

Hs reciprocal(OpContext& c) { return {api::unary(OpId::recip, c.in(0))}; }

Hs leaky_relu(OpContext& c) { return {api::leaky_relu(c.in(0), c.attr_f("alpha", 0.01))}; }
Hs elu(OpContext& c) { return {api::elu(c.in(0), c.attr_f("alpha", 1.0))}; }
Hs celu(OpContext& c) { return {api::celu(c.in(0), c.attr_f("alpha", 1.0))}; }
Hs selu(OpContext& c) {
  double alpha = c.attr_f("alpha", 1.67326319217681884765625), gamma = c.attr_f("gamma", 1.05070102214813232421875);
  return {api::mul_scalar(api::elu(c.in(0), alpha), gamma)};
}
Hs hard_sigmoid(OpContext& c) { return {api::hard_sigmoid(c.in(0), c.attr_f("alpha", 0.2), c.attr_f("beta", 0.5))}; }
Hs hard_swish(OpContext& c) { return {api::hard_swish(c.in(0))}; }
Hs softplus(OpContext& c) {
  // log(1 + exp(x)); beyond 30 the correction is below f32/f64 resolution of x.
  return {api::softplus(c.in(0), 1.0, 30.0)};
}
// Gelu (20): approximate "none" (erf) or "tanh".
Hs gelu(OpContext& c) {
  std::string a = c.attr_s("approximate", "none");
  if (a != "none" && a != "tanh") c.invalid("approximate '" + a + "'");
  return {api::unary(a == "tanh" ? OpId::gelu_tanh : OpId::gelu, c.in(0))};
}
// BitwiseNot: ~x is -x - 1 for the signed types and max - x for the unsigned ones, which the engine holds
// wider (uint8 in u8, uint16 in i32, uint32 in i64: the graph's type says which; computed in i64). uint64
// is held as its bit pattern in i64, where -x - 1 is its complement too.
Hs bitwise_not(OpContext& c) {
  DType dt = c.dtype(0);
  if (!is_int(dt)) c.invalid("bitwise ops take integer tensors");
  using TP = ::onnx::TensorProto;
  const int32_t t = c.elem_type(0);
  const int64_t max = dt == DType::U8                       ? 255
                      : t == TP::UINT16 && dt == DType::I32 ? 65535
                      : t == TP::UINT32 && dt == DType::I64 ? int64_t{4294967295}
                                                            : 0;
  if (max != 0) return {api::cast(api::rsub_scalar(api::cast(c.in(0), DType::I64), Scalar(max)), dt)};
  return {api::unary(OpId::bitwise_not, c.in(0))};
}
Hs softsign(OpContext& c) { return {api::softsign(c.in(0))}; }
Hs thresholded_relu(OpContext& c) { return {api::threshold(c.in(0), c.attr_f("alpha", 1.0), 0.0)}; }
Hs shrink(OpContext& c) {
  double bias = c.attr_f("bias", 0.0), lambd = c.attr_f("lambd", 0.5);
  H x = c.in(0);
  DType dt = c.dtype(0);
  H zero = api::full(c.device(), shape_of(x), Scalar(0), dt);
  H lo = api::add_scalar(x, is_float(dt) ? Scalar(bias) : Scalar(static_cast<int64_t>(bias)));
  H hi = api::sub_scalar(x, is_float(dt) ? Scalar(bias) : Scalar(static_cast<int64_t>(bias)));
  H r = api::mask_where(zero, api::compare_elem(OpId::lower_elem, x, Scalar(-lambd)), lo);
  return {api::mask_where(r, api::compare_elem(OpId::greater_elem, x, Scalar(lambd)), hi)};
}
Hs prelu(OpContext& c) {
  H x = c.in(0);
  H slope = same_dtype(c.in(1), c.dtype(0));
  // Before opset 7 a 1-D slope applies along the channels (dim 1), not NumPy's last dim.
  if (c.opset() < 7 && c.rank(1) == 1 && c.rank(0) > 2 && c.shape(1)[0] != 1) {
    std::vector<int64_t> view(c.rank(0) - 1, 1);
    view[0] = -1;
    slope = api::reshape(slope, view);
  }
  H neg = api::compare_elem(OpId::lower_elem, x, Scalar(0));
  Shape s = shape_rules::broadcast(shape_of(x), shape_of(slope), "PRelu");
  H xs = api::expand(x, s.dims());
  return {api::mask_where(xs, api::expand(neg, s.dims()), api::mul(xs, slope))};
}

Hs softmax_like(OpContext& c, H (*f)(H, int64_t)) {
  H x = c.in(0);
  size_t r = c.rank(0);
  if (c.opset() >= 13) return {f(x, c.axis(c.attr_i("axis", -1), r))};
  // Before opset 13 the input is coerced to 2-D at `axis` (default 1) and normalised over the second dim.
  int64_t axis = c.axis(c.attr_i("axis", 1), r == 0 ? 1 : r);
  Shape s = shape_of(x);
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < r; ++i) (static_cast<int64_t>(i) < axis ? outer : inner) *= s[i];
  H y = f(api::reshape(x, {outer, inner}), 1);
  return {api::reshape(y, s.dims())};
}
Hs softmax(OpContext& c) { return softmax_like(c, api::softmax); }
Hs log_softmax(OpContext& c) { return softmax_like(c, api::log_softmax); }
H hardmax_2(H x, int64_t dim) {
  // one-hot of the first maximum along dim
  int64_t n = shape_of(x)[static_cast<size_t>(dim)];
  H idx = api::reduce_dim(OpId::argmax, x, dim);
  H ar = api::arange(x.device, 0, n, 1, idx.prim->dtype());
  std::vector<int64_t> view(shape_of(x).rank(), 1);
  view[static_cast<size_t>(dim)] = n;
  H eq = api::compare(OpId::equal, api::reshape(ar, view), idx);
  return api::cast(eq, x.prim->dtype());
}
Hs hardmax(OpContext& c) { return softmax_like(c, hardmax_2); }

Hs clip(OpContext& c) {
  H x = c.in(0);
  DType dt = c.dtype(0);
  auto sc = [&](double v) { return is_float(dt) ? Scalar(v) : Scalar(static_cast<int64_t>(v)); };
  if (c.opset() < 11) {
    return {api::clamp(x, sc(c.attr_f("min", -std::numeric_limits<double>::infinity())),
                       sc(c.attr_f("max", std::numeric_limits<double>::infinity())))};
  }
  DType cd = compute_dtype(dt);
  x = widen(x);
  if (c.has(1)) x = api::maximum(x, same_dtype(c.in(1), cd));
  if (c.has(2)) x = api::minimum(x, same_dtype(c.in(2), cd));
  return {narrow_to(x, dt)};
}

Hs cast(OpContext& c) {
  DType to = dtype_from_onnx(static_cast<int32_t>(c.attr_i("to", 0)), c.where());
  if (to == c.dtype(0)) return {c.in(0)};
  return {api::cast(c.in(0), to)};
}
Hs cast_like(OpContext& c) {
  if (c.dtype(0) == c.dtype(1)) return {c.in(0)};
  return {api::cast(c.in(0), c.dtype(1))};
}

template <H (*F)(H, const H&)>
Hs variadic(OpContext& c) {
  DType dt = c.dtype(0);
  H acc = widen(c.in(0));
  for (size_t i = 1; i < c.num_inputs(); ++i) acc = F(acc, same_dtype(c.in(i), compute_dtype(dt)));
  return {narrow_to(acc, dt)};
}
Hs mean_op(OpContext& c) {
  H acc = variadic<api::add>(c)[0];
  return {api::div_scalar(acc, Scalar(static_cast<double>(c.num_inputs())))};
}

Hs is_inf(OpContext& c) {
  bool neg = c.attr_i("detect_negative", 1) != 0, pos = c.attr_i("detect_positive", 1) != 0;
  H x = c.in(0);
  H inf = api::unary(OpId::is_inf, x);
  if (neg && pos) return {inf};
  H sign = api::compare_elem(pos ? OpId::greater_elem : OpId::lower_elem, x, Scalar(0.0));
  H r = api::bool_binary(OpId::bool_and, inf, sign);
  if (!neg && !pos) r = api::bool_binary(OpId::bool_and, r, api::unary(OpId::bool_not, r));
  return {r};
}

Hs bit_shift(OpContext& c) {
  std::string dir = c.attr_s("direction", "");
  H b = same_dtype(c.in(1), c.dtype(0));
  if (dir == "LEFT") return {api::bitwise_left_shift(c.in(0), b)};
  if (dir == "RIGHT") return {api::bitwise_right_shift(c.in(0), b)};
  c.invalid("direction must be LEFT or RIGHT, got '" + dir + "'");
}

}  // namespace

void add_elementwise_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"Add", 1, k, binary<api::add>},
                        {"Sub", 1, k, binary<api::sub>},
                        {"Mul", 1, k, binary<api::mul>},
                        {"Div", 1, k, div_op},
                        {"Pow", 1, k, pow_op},
                        {"Mod", 10, k, mod_op},
                        {"BitShift", 11, k, bit_shift},
                        {"Neg", 1, k, unary<OpId::neg>},
                        {"Abs", 1, k, unary<OpId::abs>},
                        {"Sign", 9, k, unary<OpId::sign>},
                        {"Exp", 1, k, unary<OpId::exp>},
                        {"Log", 1, k, unary<OpId::log>},
                        {"Sqrt", 1, k, unary<OpId::sqrt>},
                        {"Reciprocal", 1, k, reciprocal},
                        {"Sin", 7, k, unary<OpId::sin>},
                        {"Cos", 7, k, unary<OpId::cos>},
                        {"Tan", 7, k, unary<OpId::tan>},
                        {"Asin", 7, k, unary<OpId::asin>},
                        {"Acos", 7, k, unary<OpId::acos>},
                        {"Atan", 7, k, unary<OpId::atan>},
                        {"Sinh", 9, k, unary<OpId::sinh>},
                        {"Cosh", 9, k, unary<OpId::cosh>},
                        {"Asinh", 9, k, unary<OpId::asinh>},
                        {"Acosh", 9, k, unary<OpId::acosh>},
                        {"Atanh", 9, k, unary<OpId::atanh>},
                        {"Erf", 9, k, unary<OpId::erf>},
                        {"Floor", 1, k, unary<OpId::floor>},
                        {"Ceil", 1, k, unary<OpId::ceil>},
                        {"Round", 11, k, unary<OpId::round>},
                        {"IsNaN", 9, k, unary<OpId::is_nan>},
                        {"IsInf", 10, k, is_inf},
                        {"Relu", 1, k, unary<OpId::relu>},
                        {"Sigmoid", 1, k, unary<OpId::sigmoid>},
                        {"Tanh", 1, k, unary<OpId::tanh>},
                        {"LeakyRelu", 1, k, leaky_relu},
                        {"Elu", 1, k, elu},
                        {"Celu", 12, k, celu},
                        {"Selu", 1, k, selu},
                        {"HardSigmoid", 1, k, hard_sigmoid},
                        {"HardSwish", 14, k, hard_swish},
                        {"Softplus", 1, k, softplus},
                        {"Softsign", 1, k, softsign},
                        {"Gelu", 20, k, gelu},
                        {"Mish", 18, k, unary<OpId::mish>},
                        {"BitwiseAnd", 18, k, binary<api::bitwise_and>},
                        {"BitwiseOr", 18, k, binary<api::bitwise_or>},
                        {"BitwiseXor", 18, k, binary<api::bitwise_xor>},
                        {"BitwiseNot", 18, k, bitwise_not},
                        {"ThresholdedRelu", 10, k, thresholded_relu},
                        {"Shrink", 9, k, shrink},
                        {"PRelu", 1, k, prelu},
                        {"Softmax", 1, k, softmax},
                        {"LogSoftmax", 1, k, log_softmax},
                        {"Hardmax", 1, k, hardmax},
                        {"Clip", 1, k, clip},
                        {"Cast", 1, k, cast},
                        {"CastLike", 15, k, cast_like},
                        {"Min", 1, k, variadic<api::minimum>},
                        {"Max", 1, k, variadic<api::maximum>},
                        {"Sum", 1, k, variadic<api::add>},
                        {"Mean", 1, k, mean_op},
                    });
}

}  // namespace burn::onnx
