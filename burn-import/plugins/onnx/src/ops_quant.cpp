// Quantization (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, ConvInteger,
// QLinearMatMul, QLinearConv) computed in f64, exact for 8-bit values; and the optimizers of the
// ai.onnx.preview.training domain (Adagrad, Momentum, Adam) as the arithmetic their specs give.
#include <cmath>

#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

H f64(const H& h) { return h.prim->dtype() == DType::F64 ? h : api::cast(h, DType::F64); }

// A per-axis parameter (scale, zero point) viewed to broadcast along `axis` of a rank-r tensor.
H along(const H& p, size_t r, int64_t axis) {
  if (shape_of(p).rank() != 1 || shape_of(p)[0] == 1 || r == 0) return p;
  std::vector<int64_t> view(r, 1);
  view[static_cast<size_t>(axis)] = -1;
  return api::reshape(p, view);
}

H quantize(const H& x, const H& scale, const std::optional<H>& zp, DType out) {
  // x / scale in x's float dtype (the reference divides f32 by f32), then rounded half to even.
  DType dt = x.prim->dtype();
  H q = is_float(dt) ? f64(api::div(x, scale.prim->dtype() == dt ? scale : api::cast(scale, dt)))
                     : api::div(f64(x), f64(scale));
  q = api::unary(OpId::round, q);
  if (zp) q = api::add(q, f64(*zp));
  double lo = out == DType::U8 ? 0 : -128, hi = out == DType::U8 ? 255 : 127;
  if (out == DType::I32) lo = -2147483648.0, hi = 2147483647.0;
  return api::cast(api::clamp(q, Scalar(lo), Scalar(hi)), out);
}

H dequantize(const H& x, const H& scale, const std::optional<H>& zp) {
  H v = f64(x);
  if (zp) v = api::sub(v, f64(*zp));
  return api::mul(v, f64(scale));
}

// The axis of per-axis parameters; checked only when the scale is per-axis (1-D with several values).
int64_t param_axis(OpContext& c) {
  size_t r = c.rank(0);
  bool per_axis = c.rank(1) == 1 && c.shape(1)[0] != 1;
  return per_axis ? c.axis(c.attr_i("axis", 1), r) : 0;
}

// Opset 21's blocked quantization (scales per block of an axis) is not implemented.
void refuse_blocks(OpContext& c) {
  if (c.attr_i("block_size", 0) != 0) c.unsupported("block_size " + std::to_string(c.attr_i("block_size", 0)));
}

Hs quantize_linear(OpContext& c) {
  refuse_blocks(c);
  size_t r = c.rank(0);
  int64_t axis = param_axis(c);
  DType out = c.has(2) ? c.dtype(2) : DType::U8;
  if (!c.has(2) && c.has_attr("output_dtype")) {  // opset 21: the type when no zero point gives it
    int64_t t = c.attr_i("output_dtype", 0);
    if (t == ::onnx::TensorProto::INT8)
      out = DType::I8;
    else if (t != ::onnx::TensorProto::UINT8 && t != 0)
      c.unsupported("output_dtype " + std::to_string(t) + " (uint8 and int8 only)");
  }
  std::optional<H> zp = c.has(2) ? std::optional<H>(along(c.in(2), r, axis)) : std::nullopt;
  return {quantize(c.in(0), along(c.in(1), r, axis), zp, out)};
}

Hs dequantize_linear(OpContext& c) {
  refuse_blocks(c);
  size_t r = c.rank(0);
  int64_t axis = param_axis(c);
  std::optional<H> zp = c.has(2) ? std::optional<H>(along(c.in(2), r, axis)) : std::nullopt;
  // The output takes the scale's float type from opset 19 (f32 before).
  DType out = c.opset() >= 19 && is_float(c.dtype(1)) ? c.dtype(1) : DType::F32;
  return {api::cast(dequantize(c.in(0), along(c.in(1), r, axis), zp), out)};
}

Hs dynamic_quantize_linear(OpContext& c) {
  H x = f64(c.in(0));
  double mx = std::max(0.0, api::into_data(api::reduce_all(OpId::max, x)).value_f64(0));
  double mn = std::min(0.0, api::into_data(api::reduce_all(OpId::min, x)).value_f64(0));
  // The scale is an f32 (the reference's), and x / scale is divided in x's dtype.
  double scale = static_cast<float>((mx - mn) / 255.0);
  double zp = scale == 0 ? 0 : std::clamp(std::nearbyint(-mn / scale), 0.0, 255.0);
  H s = scalar_tensor(c.device(), scale, DType::F32);
  H y = quantize(c.in(0), s, scalar_tensor(c.device(), zp, DType::F64), DType::U8);
  return {y, s, scalar_tensor(c.device(), zp, DType::U8)};
}

Hs matmul_integer(OpContext& c) {
  H a = f64(c.in(0)), b = f64(c.in(1));
  if (c.has(2)) a = api::sub(a, along(f64(c.in(2)), c.rank(0), static_cast<int64_t>(c.rank(0)) - 2));
  if (c.has(3)) b = api::sub(b, f64(c.in(3)));
  return {api::cast(api::matmul(a, b), DType::I32)};
}

Hs conv_integer(OpContext& c) {
  H x = f64(c.in(0)), w = f64(c.in(1));
  if (c.has(2)) x = api::sub(x, f64(c.in(2)));
  if (c.has(3)) w = api::sub(w, along(f64(c.in(3)), c.rank(1), 0));
  return {api::cast(conv_node(c, x, w, std::nullopt), DType::I32)};
}

Hs qlinear_matmul(OpContext& c) {
  H a = dequantize(c.in(0), c.in(1), c.in(2));
  H b = dequantize(c.in(3), c.in(4), c.in(5));
  return {quantize(api::matmul(a, b), c.in(6), c.in(7), c.dtype(7))};
}

Hs qlinear_conv(OpContext& c) {
  H x = dequantize(c.in(0), c.in(1), c.in(2));
  H w = dequantize(c.in(3), along(c.in(4), c.rank(3), 0), along(c.in(5), c.rank(3), 0));
  std::optional<H> b;
  if (c.has(8)) b = api::mul(api::mul(f64(c.in(8)), f64(c.in(1))), api::reshape(f64(c.in(4)), {-1}));
  return {quantize(conv_node(c, x, w, b), c.in(6), c.in(7), c.dtype(7))};
}

// ---- ai.onnx.preview.training ----

// Inputs R, T, then `groups` runs of n tensors; n from the input count.
size_t run_length(OpContext& c, size_t groups) {
  size_t n = (c.num_inputs() - 2) / groups;
  if (n == 0 || 2 + n * groups != c.num_inputs())
    c.invalid("inputs must be R, T and " + std::to_string(groups) + " runs of equal length");
  return n;
}

Hs adagrad(OpContext& c) {
  size_t n = run_length(c, 3);
  double R = c.scalar(0), T = c.scalar(1);
  double decay = c.attr_f("decay_factor", 0.0), eps = c.attr_f("epsilon", 1e-6),
         norm = c.attr_f("norm_coefficient", 0.0);
  double r = R / (1 + T * decay);
  Hs xs, hs;
  for (size_t i = 0; i < n; ++i) {
    H x = c.in(2 + i), g = c.in(2 + n + i), h = c.in(2 + 2 * n + i);
    H gr = api::add(api::mul_scalar(x, Scalar(norm)), g);
    H hn = api::add(h, api::mul(gr, gr));
    H den = api::add_scalar(api::unary(OpId::sqrt, hn), Scalar(eps));
    xs.push_back(api::sub(x, api::mul_scalar(api::div(gr, den), Scalar(r))));
    hs.push_back(hn);
  }
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

Hs momentum(OpContext& c) {
  size_t n = run_length(c, 3);
  double R = c.scalar(0), T = c.scalar(1);
  double alpha = c.attr_f("alpha", 0.0), beta = c.attr_f("beta", 0.0), norm = c.attr_f("norm_coefficient", 0.0);
  std::string mode = c.attr_s("mode", "standard");
  double b = T > 0 ? beta : 1.0;
  Hs xs, vs;
  for (size_t i = 0; i < n; ++i) {
    H x = c.in(2 + i), g = c.in(2 + n + i), v = c.in(2 + 2 * n + i);
    H gr = api::add(api::mul_scalar(x, Scalar(norm)), g);
    H vn = api::add(api::mul_scalar(v, Scalar(alpha)), api::mul_scalar(gr, Scalar(b)));
    H step = mode == "nesterov" ? api::add(gr, api::mul_scalar(vn, Scalar(alpha))) : vn;
    xs.push_back(api::sub(x, api::mul_scalar(step, Scalar(R))));
    vs.push_back(vn);
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  return xs;
}

Hs adam(OpContext& c) {
  size_t n = run_length(c, 4);
  double R = c.scalar(0), T = c.scalar(1);
  double alpha = c.attr_f("alpha", 0.9), beta = c.attr_f("beta", 0.999), eps = c.attr_f("epsilon", 1e-6);
  double norm = c.attr_f("norm_coefficient", 0.0), post = c.attr_f("norm_coefficient_post", 0.0);
  double ra = T > 0 ? R * std::sqrt(1 - std::pow(beta, T)) / (1 - std::pow(alpha, T)) : R;
  Hs xs, vs, hs;
  for (size_t i = 0; i < n; ++i) {
    H x = c.in(2 + i), g = c.in(2 + n + i), v = c.in(2 + 2 * n + i), h = c.in(2 + 3 * n + i);
    H gr = api::add(api::mul_scalar(x, Scalar(norm)), g);
    H vn = api::add(api::mul_scalar(v, Scalar(alpha)), api::mul_scalar(gr, Scalar(1 - alpha)));
    H hn = api::add(api::mul_scalar(h, Scalar(beta)), api::mul_scalar(api::mul(gr, gr), Scalar(1 - beta)));
    H den = api::add_scalar(api::unary(OpId::sqrt, hn), Scalar(eps));
    H xn = api::sub(x, api::mul_scalar(api::div(vn, den), Scalar(ra)));
    xs.push_back(api::mul_scalar(xn, Scalar(1 - post)));
    vs.push_back(vn);
    hs.push_back(hn);
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

}  // namespace

void add_quant_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"QuantizeLinear", 10, k, quantize_linear},
                        {"DequantizeLinear", 10, k, dequantize_linear},
                        {"DynamicQuantizeLinear", 11, k, dynamic_quantize_linear},
                        {"MatMulInteger", 10, k, matmul_integer},
                        {"ConvInteger", 10, k, conv_integer},
                        {"QLinearMatMul", 10, k, qlinear_matmul},
                        {"QLinearConv", 10, k, qlinear_conv},
                    });
}

void add_training_ops(std::vector<OpRow>& r) {
  r.insert(r.end(), {
                        {"ai.onnx.preview.training/Adagrad", 1, 1, adagrad},
                        {"ai.onnx.preview.training/Momentum", 1, 1, momentum},
                        {"ai.onnx.preview.training/Adam", 1, 1, adam},
                    });
}

}  // namespace burn::onnx
