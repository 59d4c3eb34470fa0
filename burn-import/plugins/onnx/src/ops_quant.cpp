// Quantization: MatMulInteger, QLinearMatMul and the loader's QDQ MatMuls, Gemms and Convs (fuse_qdq_products) on the
// table's integer op matmul_integer (the cpu plugin's int8 GEMM; a batched b as one call per batch entry), ConvInteger
// and QLinearConv of any spatial rank and group count on it through im2col; QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear elementwise. The forms the integer op cannot give exactly (docs/decisions.md, "quantized
// forms off the integer op") compute as ONNX defines them, dequantized, in f64 where exactness needs it. And the
// optimizers of the ai.onnx.preview.training domain (Adagrad, Momentum, Adam) as the arithmetic their specs give.
#include <cmath>
#include <unordered_map>

#include "burn/tensor/quant.hpp"
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

H f64(const H& h) { return h.prim->dtype() == DType::F64 ? h : api::cast(h, DType::F64); }

bool int8(const H& h) { return h.prim->dtype() == DType::U8 || h.prim->dtype() == DType::I8; }

// A per-axis parameter (scale, zero point) viewed to broadcast along `axis` of a rank-r tensor.
H along(const H& p, size_t r, int64_t axis) {
  if (shape_of(p).rank() != 1 || shape_of(p)[0] == 1 || r == 0) return p;
  std::vector<int64_t> view(r, 1);
  view[static_cast<size_t>(axis)] = -1;
  return api::reshape(p, view);
}

H quantize(const H& x, const H& scale, const std::optional<H>& zp, DType out) {
  double lo = out == DType::U8 ? 0 : -128, hi = out == DType::U8 ? 255 : 127;
  DType dt = x.prim->dtype();
  // An f32 x and scale to 8 bits in f32: rounding x / scale, adding a zero point of 8 bits and saturating are exact
  // there (beyond 2^24 the value saturates either way), so half the bytes of f64 and no cast pass.
  if (dt == DType::F32 && scale.prim->dtype() == DType::F32 && out != DType::I32) {
    H q = api::unary(OpId::round, api::div(x, scale));
    if (zp) q = api::add(q, api::cast(*zp, DType::F32));
    return api::cast(api::clamp(q, Scalar(lo), Scalar(hi)), out);
  }
  // x / scale in x's float dtype (the reference divides f32 by f32), then rounded half to even.
  H q = is_float(dt) ? f64(api::div(x, scale.prim->dtype() == dt ? scale : api::cast(scale, dt)))
                     : api::div(f64(x), f64(scale));
  q = api::unary(OpId::round, q);
  if (zp) q = api::add(q, f64(*zp));
  if (out == DType::I32) lo = -2147483648.0, hi = 2147483647.0;
  return api::cast(api::clamp(q, Scalar(lo), Scalar(hi)), out);
}

H dequantize(const H& x, const H& scale, const std::optional<H>& zp) {
  H v = f64(x);
  if (zp) v = api::sub(v, f64(*zp));
  return api::mul(v, f64(scale));
}

// Opset 21's blocked quantization (scales per block of an axis) is not implemented.
void refuse_blocks(OpContext& c) {
  if (c.attr_i("block_size", 0) != 0) c.unsupported("block_size " + std::to_string(c.attr_i("block_size", 0)));
}

// The axis of per-axis parameters (`axis_attr`, the node's attribute) of x; checked only when the scale is per-axis
// (1-D with several values).
int64_t param_axis(OpContext& c, const H& x, const H& scale, int64_t axis_attr) {
  const Shape& s = shape_of(scale);
  return s.rank() == 1 && s[0] != 1 ? c.axis(axis_attr, shape_of(x).rank()) : 0;
}

std::optional<H> opt_in(OpContext& c, size_t i) { return c.has(i) ? std::optional<H>(c.in(i)) : std::nullopt; }

Hs quantize_linear(OpContext& c) {
  refuse_blocks(c);
  size_t r = c.rank(0);
  int64_t axis = param_axis(c, c.in(0), c.in(1), c.attr_i("axis", 1));
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

// The type DequantizeLinear gives: the scale's float type from opset 19 (f32 before).
DType dequantized_dtype(int opset, DType scale) { return opset >= 19 && is_float(scale) ? scale : DType::F32; }

// DequantizeLinear of x by its scale and zero point at `opset` of the default domain, `axis_attr` its axis attribute.
H dequantize_linear_of(OpContext& c, const H& x, const H& scale, const std::optional<H>& zp, int64_t axis_attr,
                       int opset) {
  const size_t r = shape_of(x).rank();
  const int64_t axis = param_axis(c, x, scale, axis_attr);
  const std::optional<H> z = zp ? std::optional<H>(along(*zp, r, axis)) : std::nullopt;
  const DType out = dequantized_dtype(opset, scale.prim->dtype());
  // 8-bit values to f32 by an f32 scale in f32: x - zp is exact and its product rounds once, as the exact f64
  // product cast to f32 does.
  if (out == DType::F32 && scale.prim->dtype() == DType::F32 && int8(x) && (!z || int8(*z))) {
    H v = api::cast(x, DType::F32);
    if (z) v = api::sub(v, api::cast(*z, DType::F32));
    return api::mul(v, along(scale, r, axis));
  }
  return api::cast(dequantize(x, along(scale, r, axis), z), out);
}

Hs dequantize_linear(OpContext& c) {
  refuse_blocks(c);
  return {dequantize_linear_of(c, c.in(0), c.in(1), opt_in(c, 2), c.attr_i("axis", 1), c.opset())};
}

Hs dynamic_quantize_linear(OpContext& c) {
  const H& x = c.in(0);  // its max and min are exact in its own dtype
  double mx = std::max(0.0, api::into_data(api::reduce_all(OpId::max, x)).value_f64(0));
  double mn = std::min(0.0, api::into_data(api::reduce_all(OpId::min, x)).value_f64(0));
  // The scale is an f32 (the reference's), and x / scale is divided in x's dtype.
  double scale = static_cast<float>((mx - mn) / 255.0);
  double zp = scale == 0 ? 0 : std::clamp(std::nearbyint(-mn / scale), 0.0, 255.0);
  H s = scalar_tensor(c.device(), scale, DType::F32);
  H y = quantize(c.in(0), s, scalar_tensor(c.device(), zp, DType::F64), DType::U8);
  return {y, s, scalar_tensor(c.device(), zp, DType::U8)};
}

int64_t numel(const H& h) { return shape_of(h).num_elements(); }

// The batch dims of NumPy's matmul of a and b (all but their last two dims, a 1-D a having none) broadcast, or
// empty when they do not broadcast.
std::optional<std::vector<int64_t>> matmul_batch(const Shape& as, const Shape& bs) {
  const auto lead = [](const Shape& s) {
    return s.rank() < 2 ? std::vector<int64_t>{} : std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2);
  };
  std::vector<int64_t> x = lead(as), y = lead(bs);
  if (x.size() < y.size()) x.insert(x.begin(), y.size() - x.size(), 1);
  if (y.size() < x.size()) y.insert(y.begin(), x.size() - y.size(), 1);
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] == 1) x[i] = y[i];
    if (x[i] != y[i] && y[i] != 1) return std::nullopt;
  }
  return x;
}

// A zero point of ONNX's N-D form, one row of a ([..., M, 1]) or one column of b ([..., 1, N]) per batch entry.
bool per_batch(const std::optional<H>& z) { return z && shape_of(*z).rank() >= 2 && numel(*z) != 1; }

// b as matmul_integer's 2-D (or batched) right operand: a 1-D b [K] is one column ([K, 1], dropped from the result).
H column_if_vector(const H& b) { return shape_of(b).rank() == 1 ? api::reshape(b, {-1, 1}) : b; }

// Whether matmul_integer takes a @ b with these zero points: u8/i8 operands of rank >= 1 (a batched b: one call per
// batch entry), each zero point one value, a 1-D one per row of a (per column of b), or the N-D form per batch entry
// ([..., M, 1] for a, [..., 1, N] for b).
bool integer_op_fits(const H& a, const H& b, const std::optional<H>& za, const std::optional<H>& zb) {
  if (!int8(a) || !int8(b) || shape_of(a).rank() < 1 || shape_of(b).rank() < 1) return false;
  const Shape& as = shape_of(a);
  const Shape bs = shape_of(b).rank() == 1 ? Shape{shape_of(b)[0], 1} : shape_of(b);
  if (as[as.rank() - 1] != bs[bs.rank() - 2]) return false;  // the f64 path names the mismatch
  const auto batch = matmul_batch(as, bs);
  if (!batch) return false;
  for (int64_t d : *batch)
    if (d == 0) return false;  // an empty batch: the f64 path
  const int64_t m = as.rank() >= 2 ? as[as.rank() - 2] : 1, n = bs[bs.rank() - 1];
  const auto fits = [&](const std::optional<H>& z, int64_t rows, int64_t cols) {
    if (!z || numel(*z) == 1) return true;
    const Shape& zs = shape_of(*z);
    if (zs.rank() == 1) return zs[0] == rows * cols;
    if (zs[zs.rank() - 2] != rows || zs[zs.rank() - 1] != cols) return false;
    std::vector<int64_t> full = *batch;
    full.insert(full.end(), {rows, cols});
    const auto zb = matmul_batch(zs, Shape(full));
    return zb && *zb == *batch;  // broadcasts into the batch without growing it
  };
  return fits(za, m, 1) && fits(zb, 1, n);
}

// a @ b less their zero points on the integer op (i32), NumPy's matmul: a 1-D a is one row, a 1-D b one column
// (each dropped from the result); a batched b (rank > 2) broadcasts with a's batch dims and runs as one
// matmul_integer per batch entry (the op takes a 2-D b), one call when b's batch dims are all 1 and no zero point is
// per batch entry.
H integer_matmul(const H& a, const H& b_in, const std::optional<H>& za, const std::optional<H>& zb) {
  const auto flat = [](const std::optional<H>& z) {
    return z && numel(*z) == 1 ? std::optional<H>(api::reshape(*z, {1})) : z;
  };
  const H b = column_if_vector(b_in);
  const Shape &as = shape_of(a), &bs = shape_of(b);
  const H a2 = as.rank() == 1 ? api::reshape(a, {1, -1}) : a;
  const Shape& a2s = shape_of(a2);
  const int64_t m = a2s[a2s.rank() - 2], k = bs[bs.rank() - 2], n = bs[bs.rank() - 1];
  const std::vector<int64_t> batch = *matmul_batch(as, bs);
  std::vector<int64_t> out = batch;
  if (as.rank() != 1) out.push_back(m);
  if (shape_of(b_in).rank() != 1) out.push_back(n);
  if (bs.num_elements() == k * n && !per_batch(za) && !per_batch(zb))  // one call; the op keeps a's batch dims
    return api::reshape(api::matmul_integer(a2, api::reshape(b, {k, n}), flat(za), flat(zb)), out);
  // Each operand (and N-D zero point) broadcast to the batch and flattened to [B, rows, cols].
  const auto batched = [&](const H& h, int64_t rows, int64_t cols) {
    std::vector<int64_t> full = batch;
    full.insert(full.end(), {rows, cols});
    return api::reshape(api::expand(h, full), {-1, rows, cols});
  };
  const H ab = batched(a2, m, k), bb = batched(b, k, n);
  const std::optional<H> zab = per_batch(za) ? std::optional<H>(batched(*za, m, 1)) : std::nullopt;
  const std::optional<H> zbb = per_batch(zb) ? std::optional<H>(batched(*zb, 1, n)) : std::nullopt;
  const auto entry = [](const H& h, int64_t i, std::vector<int64_t> dims) {
    return api::reshape(api::narrow(h, 0, i, 1), dims);
  };
  Hs parts;
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  for (int64_t i = 0; i < count; ++i)
    parts.push_back(api::matmul_integer(entry(ab, i, {m, k}), entry(bb, i, {k, n}),
                                        zab ? std::optional<H>(entry(*zab, i, {m})) : flat(za),
                                        zbb ? std::optional<H>(entry(*zbb, i, {n})) : flat(zb)));
  return api::reshape(api::stack(parts, 0), out);
}

Hs matmul_integer(OpContext& c) {
  if (integer_op_fits(c.in(0), c.in(1), opt_in(c, 2), opt_in(c, 3)))
    return {integer_matmul(c.in(0), c.in(1), opt_in(c, 2), opt_in(c, 3))};
  H a = f64(c.in(0)), b = f64(c.in(1));
  if (c.has(2)) a = api::sub(a, along(f64(c.in(2)), c.rank(0), static_cast<int64_t>(c.rank(0)) - 2));
  if (c.has(3)) b = api::sub(b, f64(c.in(3)));
  return {api::cast(api::matmul(a, b), DType::I32)};
}

// ConvInteger of any spatial rank and group count on the integer op: x padded with its zero point (so padding
// contributes (zx - zx) = 0, as ONNX's conv of x - zx padded with zeros); each kernel tap's window positions a strided
// slice of it (a view), the taps stacked into the columns [C * T, N * P] (T taps, P output positions) in one copy
// whose runs are output rows; each group's weights [Cout / group, Cg * T] (a view of the constant) times its columns,
// the weight zero points per row, one matmul_integer per group, gives [Cout, N * P]; i32 [N, Cout, O...]. Empty when
// the node's form does not fit (then f64).
std::optional<H> conv_integer_op(OpContext& c, const H& x, const H& w, const std::optional<H>& zx,
                                 const std::optional<H>& zw) {
  const Shape &xs = shape_of(x), &ws = shape_of(w);
  const size_t r = xs.rank(), sd = r - 2;
  const int64_t groups = c.attr_i("group", 1);
  if (r < 3 || ws.rank() != r || groups < 1 || xs[1] != ws[1] * groups || ws[0] % groups != 0) return std::nullopt;
  if (zx && numel(*zx) != 1) return std::nullopt;
  const int64_t cout = ws[0], coutg = cout / groups;
  if (zw && numel(*zw) != 1 && !(shape_of(*zw).rank() == 1 && shape_of(*zw)[0] == cout)) return std::nullopt;
  if (!int8(x) || !int8(w)) return std::nullopt;
  const ConvWindow win = conv_window(c, xs, ws);
  const double pad_value = zx ? api::into_data(*zx).value_f64(0) : 0.0;
  std::vector<int64_t> pads;  // last spatial dim first
  for (size_t d = sd; d-- > 0;) pads.insert(pads.end(), {win.pad_begin[d], win.pad_end[d]});
  const H p = api::swap_dims(api::pad(x, pads, PadMode::Constant, Scalar(pad_value)), 0, 1);  // [C, N, S...]
  const int64_t n = xs[0];
  std::vector<int64_t> outs, view = {cout, n}, back = {1, 0};
  int64_t positions = 1, taps = 1;
  for (size_t d = 0; d < sd; ++d) {
    const int64_t extent = (win.kernel[d] - 1) * win.dilation[d] + 1, size = shape_of(p)[2 + d];
    if (size < extent) return std::nullopt;
    outs.push_back((size - extent) / win.stride[d] + 1);
    positions *= outs.back();
    taps *= win.kernel[d];
    view.push_back(outs.back());
    back.push_back(static_cast<int64_t>(2 + d));
  }
  Hs windows;  // per tap, in the weight's order (the last spatial dim fastest): [C, N, O...]
  for (int64_t t = 0; t < taps; ++t) {
    std::vector<Slice> at(r, Slice{});
    for (size_t d = sd, rest = static_cast<size_t>(t); d-- > 0;) {
      const int64_t k = static_cast<int64_t>(rest % static_cast<size_t>(win.kernel[d]));
      rest /= static_cast<size_t>(win.kernel[d]);
      const int64_t start = k * win.dilation[d];
      at[2 + d] = Slice::range(start, start + (outs[d] - 1) * win.stride[d] + 1, win.stride[d]);
    }
    windows.push_back(api::slice(p, at));
  }
  const H cols = api::reshape(api::stack(windows, 1), {-1, n * positions});  // [C * T, N * P]
  const H w2 = api::reshape(w, {cout, -1});                                  // [Cout, Cg * T]
  const int64_t kg = shape_of(w2)[1];
  const bool per_channel = zw && numel(*zw) != 1;
  Hs parts;
  for (int64_t g = 0; g < groups; ++g) {
    const std::optional<H> zw_g =
        per_channel && groups > 1 ? std::optional<H>(api::narrow(*zw, 0, g * coutg, coutg)) : zw;
    parts.push_back(integer_matmul(groups > 1 ? api::narrow(w2, 0, g * coutg, coutg) : w2,
                                   groups > 1 ? api::narrow(cols, 0, g * kg, kg) : cols, zw_g, zx));
  }
  const H acc = groups > 1 ? api::cat(parts, 0) : parts[0];  // [Cout, N * P]
  return api::permute(api::reshape(acc, view), back);
}

Hs conv_integer(OpContext& c) {
  if (auto y = conv_integer_op(c, c.in(0), c.in(1), opt_in(c, 2), opt_in(c, 3))) return {*y};
  H x = f64(c.in(0)), w = f64(c.in(1));
  if (c.has(2)) x = api::sub(x, f64(c.in(2)));
  if (c.has(3)) w = api::sub(w, along(f64(c.in(3)), c.rank(1), 0));
  return {api::cast(conv_node(c, x, w, std::nullopt), DType::I32)};
}

// A float32 scale, one value or one per column of b ([N]), flattened to 1-D.
bool f32_scale(const H& s, int64_t n) {
  return s.prim->dtype() == DType::F32 && (numel(s) == 1 || (shape_of(s).rank() == 1 && shape_of(s)[0] == n));
}

// A scale the integer paths take: f32, or f16 / bf16 (widened to f32 exactly); f64 is no ONNX scale type.
bool real_scale(const H& s) { return is_float(s.prim->dtype()) && s.prim->dtype() != DType::F64; }

H f32(const H& h) { return h.prim->dtype() == DType::F32 ? h : api::cast(h, DType::F32); }

// A parameter of one value as a 0-d tensor (it broadcasts into any result without changing its rank).
H scalar_view(const H& p) { return api::reshape(p, std::vector<int64_t>{}); }

// A parameter one value or one per row of a ([M] viewed as [M, 1]; as [M] when b is 1-D: the result has no columns).
H row_view(const H& p, bool b_vector) {
  if (numel(p) == 1) return scalar_view(p);
  return api::reshape(p, b_vector ? std::vector<int64_t>{-1} : std::vector<int64_t>{-1, 1});
}

// ONNX Runtime's requantization of an i32 accumulator: float(acc) times the multiplier `mult` (sa * sb / sy in f32,
// viewed to broadcast), rounded half to even, plus the output's zero point zy (viewed likewise), saturated to zy's
// type.
H requantize(const H& acc, const H& mult, const H& zy) {
  H y = api::unary(OpId::round, api::mul(api::cast(acc, DType::F32), mult));
  y = api::add(y, api::cast(zy, DType::F32));
  const DType out = zy.prim->dtype();
  const double lo = out == DType::U8 ? 0 : -128, hi = out == DType::U8 ? 255 : 127;
  return api::cast(api::clamp(y, Scalar(lo), Scalar(hi)), out);
}

// QLinearMatMul: a's and y's scales and zero points per tensor or per row of a ([M]), b's per tensor, per column
// ([N]) or ONNX Runtime's N-D form per batch entry ([..., 1, N]); scales f32 (f16 and bf16 from opset 21).
Hs qlinear_matmul(OpContext& c) {
  const H &a = c.in(0), &b = c.in(3);
  const size_t ra = c.rank(0), rb = c.rank(3);
  const bool b_vector = rb == 1;
  const auto rows = [&](const H& p) {
    return numel(p) == 1 || (ra >= 2 && shape_of(p).rank() == 1 && shape_of(p)[0] == c.shape(0)[ra - 2]);
  };
  const auto cols = [&](const H& p) {
    const Shape& s = shape_of(p);
    return numel(p) == 1 || (rb >= 2 && s.rank() >= 1 && s.rank() <= rb && s[s.rank() - 1] == c.shape(3)[rb - 1] &&
                             (s.rank() == 1 || s[s.rank() - 2] == 1));
  };
  if (integer_op_fits(a, b, c.in(2), c.in(5)) && real_scale(c.in(1)) && real_scale(c.in(4)) && real_scale(c.in(6)) &&
      rows(c.in(1)) && cols(c.in(4)) && rows(c.in(6)) && rows(c.in(7)) && int8(c.in(7))) {
    const H acc = integer_matmul(a, b, c.in(2), c.in(5));
    const H sb = numel(c.in(4)) == 1 ? scalar_view(f32(c.in(4))) : f32(c.in(4));
    const H mult = api::div(api::mul(row_view(f32(c.in(1)), b_vector), sb), row_view(f32(c.in(6)), b_vector));
    return {requantize(acc, mult, row_view(c.in(7), b_vector))};
  }
  // Other forms (empty batches, types ONNX does not give): dequantized in f64, a's and y's parameters per row.
  const auto per_row = [&](const H& p, size_t r, size_t axis) {
    return ra >= 2 && r > axis ? along(p, r, static_cast<int64_t>(axis)) : p;
  };
  const H y = matmul_node(dequantize(a, per_row(c.in(1), ra, ra - 2), per_row(c.in(2), ra, ra - 2)),
                          dequantize(b, c.in(4), c.in(5)));
  const size_t ry = shape_of(y).rank(), y_row = ry - (b_vector ? 1 : 2);
  return {quantize(y, per_row(c.in(6), ry, y_row), per_row(c.in(7), ry, y_row), c.dtype(7))};
}

// The operand of a burn.internal QDQ node: a DequantizeLinear's values q, scale, zero point and axis attribute.
struct Dequantized {
  H q, scale;
  std::optional<H> zp;
  int64_t axis;
};

Dequantized dequantized_input(OpContext& c, size_t first, const char* axis_attr) {
  return {c.in(first), c.in(first + 1), opt_in(c, first + 2), c.attr_i(axis_attr, 1)};
}

// Whether the integer op takes d's values (u8/i8, the zero point of their type) and parameters (a real_scale):
// false for a scale and zero point of one value, true for ones per index of the values' axis `kept` (a's rows, b's
// columns, a conv weight's output channels: axes the product does not sum over, so their scales factor out of the
// sum); nullopt otherwise (a kept of -1: one value only).
std::optional<bool> integer_form(const Dequantized& d, int64_t kept) {
  if (!int8(d.q) || !real_scale(d.scale) || (d.zp && d.zp->prim->dtype() != d.q.prim->dtype())) return std::nullopt;
  const Shape& qs = shape_of(d.q);
  const int64_t r = static_cast<int64_t>(qs.rank()), axis = d.axis < 0 ? d.axis + r : d.axis;
  const auto one = [](const H& p) { return numel(p) == 1 && shape_of(p).rank() <= 1; };
  const auto per_kept = [&](const H& p) {
    const Shape& ps = shape_of(p);
    return kept >= 0 && axis == kept && ps.rank() == 1 && ps[0] == qs[static_cast<size_t>(kept)];
  };
  if (one(d.scale)) return d.zp && !one(*d.zp) ? std::nullopt : std::optional<bool>(false);
  if (!per_kept(d.scale) || (d.zp && !one(*d.zp) && !per_kept(*d.zp))) return std::nullopt;
  return true;
}

// A zero point as the integer op's 1-D form ([1], [M] or [N]).
std::optional<H> zero_point_1d(const std::optional<H>& z) { return z ? std::optional<H>(api::reshape(*z, {-1})) : z; }

// burn.internal/QDQMatMul, which fuse_qdq_products makes of DequantizeLinear(qa) -> MatMul <- DequantizeLinear(qw) or
// Gemm (its attributes kept): inputs qa, sa, za, qw, sw, zw and a Gemm's bias. On the integer op when the
// parameters factor out of the sum (per tensor, a's per row, b's per column) and the scales are real_scale:
// float(sum (qa - za)(qw - zw)) * (sa * sw) in f32, the sum exact, the product of the dequantized operands up to f32
// rounding, a Gemm's alpha, then the output's type and the bias; otherwise the two DequantizeLinear and the MatMul or
// Gemm it replaced.
Hs qdq_matmul(OpContext& c) {
  const Dequantized a = dequantized_input(c, 0, "a_axis"), w = dequantized_input(c, 3, "w_axis");
  const std::optional<H> bias = opt_in(c, 6);
  const int opset = static_cast<int>(c.attr_i("opset", kMaxOpset));
  const bool gemm = c.attr_i("gemm", 0) != 0;
  const bool trans_a = gemm && c.attr_i("transA", 0) != 0, trans_b = gemm && c.attr_i("transB", 0) != 0;
  const DType out = dequantized_dtype(opset, a.scale.prim->dtype());
  const int64_t ra = static_cast<int64_t>(shape_of(a.q).rank()), rw = static_cast<int64_t>(shape_of(w.q).rank());
  // The axes the sum keeps, of the stored values: a's rows and b's columns (a Gemm's transposed operand's swapped).
  const auto pa = integer_form(a, ra < 2 ? -1 : trans_a ? 1 : ra - 2);
  const auto pw = integer_form(w, rw < 2 ? -1 : trans_b ? 0 : rw - 1);
  if (pa && pw && dequantized_dtype(opset, w.scale.prim->dtype()) == out && (!gemm || (ra == 2 && rw == 2)) &&
      (!bias || bias->prim->dtype() == out)) {
    const H qa = trans_a ? api::permute(a.q, {1, 0}) : a.q, qw = trans_b ? api::permute(w.q, {1, 0}) : w.q;
    if (integer_op_fits(qa, qw, zero_point_1d(a.zp), zero_point_1d(w.zp))) {
      const H acc = integer_matmul(qa, qw, zero_point_1d(a.zp), zero_point_1d(w.zp));
      const H sa = *pa ? row_view(f32(a.scale), rw == 1) : scalar_view(f32(a.scale));
      const H sw = *pw ? f32(w.scale) : scalar_view(f32(w.scale));
      H y = api::mul(api::cast(acc, DType::F32), api::mul(sa, sw));
      const double alpha = gemm ? c.attr_f("alpha", 1.0) : 1.0, beta = gemm ? c.attr_f("beta", 1.0) : 1.0;
      if (alpha != 1.0) y = api::mul_scalar(y, Scalar(alpha));
      if (out != DType::F32) y = api::cast(y, out);
      if (bias && beta != 0.0) y = api::add(y, beta != 1.0 ? api::mul_scalar(*bias, Scalar(beta)) : *bias);
      return {y};
    }
  }
  const H x = dequantize_linear_of(c, a.q, a.scale, a.zp, a.axis, opset);
  const H wd = dequantize_linear_of(c, w.q, w.scale, w.zp, w.axis, opset);
  return {gemm ? gemm_node(c, x, wd, bias) : matmul_node(x, wd)};
}

// burn.internal/QDQConv, which fuse_qdq_products makes of DequantizeLinear(qx) -> Conv <- DequantizeLinear(qw) with
// the Conv's attributes: inputs qx, sx, zx, qw, sw, zw and the Conv's bias (any float). On the integer op when x's
// parameters are per tensor (its channels are summed over) and w's per tensor or per output channel, the scales
// real_scale: float(sum (qx - zx)(qw - zw)) * (sx * sw) in f32 per output channel, then the output's type and the
// bias; otherwise the two DequantizeLinear and the Conv it replaced.
Hs qdq_conv(OpContext& c) {
  const Dequantized x = dequantized_input(c, 0, "a_axis"), w = dequantized_input(c, 3, "w_axis");
  const std::optional<H> bias = opt_in(c, 6);
  const int opset = static_cast<int>(c.attr_i("opset", kMaxOpset));
  const DType out = dequantized_dtype(opset, x.scale.prim->dtype());
  const auto px = integer_form(x, -1), pw = integer_form(w, 0);
  if (px && pw && dequantized_dtype(opset, w.scale.prim->dtype()) == out && (!bias || bias->prim->dtype() == out))
    if (auto acc = conv_integer_op(c, x.q, w.q, x.zp, zero_point_1d(w.zp))) {
      std::vector<int64_t> channels(shape_of(*acc).rank(), 1);  // [1, Cout, 1...]
      channels[1] = -1;
      const H scale =
          api::reshape(api::mul(api::reshape(f32(x.scale), {-1}), api::reshape(f32(w.scale), {-1})), channels);
      H y = api::mul(api::cast(*acc, DType::F32), scale);
      if (out != DType::F32) y = api::cast(y, out);
      return {bias ? api::add(y, api::reshape(*bias, channels)) : y};
    }
  return {conv_node(c, dequantize_linear_of(c, x.q, x.scale, x.zp, x.axis, opset),
                    dequantize_linear_of(c, w.q, w.scale, w.zp, w.axis, opset), bias)};
}

Hs qlinear_conv(OpContext& c) {
  // x, sx, zx, w, sw, zw, sy, zy, bias (i32): the integer conv plus the bias, requantized as QLinearMatMul.
  const int64_t cout = c.rank(3) >= 1 ? c.shape(3)[0] : -1;
  if (f32_scale(c.in(1), 1) && f32_scale(c.in(4), cout) && f32_scale(c.in(6), 1) && numel(c.in(7)) == 1 &&
      (!c.has(8) || c.dtype(8) == DType::I32))
    if (auto acc = conv_integer_op(c, c.in(0), c.in(3), c.in(2), c.in(5))) {
      std::vector<int64_t> channels(shape_of(*acc).rank(), 1);  // [1, Cout, 1...]
      channels[1] = -1;
      const H a = c.has(8) ? api::add(*acc, api::reshape(c.in(8), channels)) : *acc;
      const H mult = api::reshape(
          api::div(api::mul(api::reshape(c.in(1), {-1}), api::reshape(c.in(4), {-1})), api::reshape(c.in(6), {-1})),
          channels);
      return {requantize(a, mult, scalar_view(c.in(7)))};
    }
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
                        {"burn.internal/QDQMatMul", 1, 1, qdq_matmul},
                        {"burn.internal/QDQConv", 1, 1, qdq_conv},
                    });
}

namespace {

const ::onnx::AttributeProto* find_attr(const ::onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

}  // namespace

void fuse_qdq_products(::onnx::GraphProto& g, const std::unordered_map<std::string, int>& uses, int opset) {
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output())
      if (!o.empty()) producer[o] = i;
  const auto default_domain = [](const ::onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; };
  // The DequantizeLinear producing `v` (per tensor or per axis, not blocked), or -1.
  const auto dq_of = [&](const std::string& v) {
    auto it = producer.find(v);
    if (it == producer.end()) return -1;
    const ::onnx::NodeProto& n = g.node(it->second);
    if (n.op_type() != "DequantizeLinear" || !default_domain(n) || n.input_size() < 2) return -1;
    if (const auto* b = find_attr(n, "block_size"); b && b->i() != 0) return -1;
    return it->second;
  };
  const auto int_attr = [](::onnx::NodeProto& n, const char* name, int64_t v) {
    ::onnx::AttributeProto* t = n.add_attribute();
    t->set_name(name);
    t->set_type(::onnx::AttributeProto::INT);
    t->set_i(v);
  };
  std::unordered_map<std::string, int> fused_reads;  // of each DequantizeLinear output, by the rewritten products
  for (int i = 0; i < g.node_size(); ++i) {
    ::onnx::NodeProto& mm = *g.mutable_node(i);
    const bool conv = mm.op_type() == "Conv", gemm = mm.op_type() == "Gemm";
    if (!default_domain(mm) || !(conv || gemm ? mm.input_size() == 2 || mm.input_size() == 3
                                              : mm.op_type() == "MatMul" && mm.input_size() == 2))
      continue;
    // Any values, scales and zero points: the node decides at run time whether the integer op takes them.
    const int da = dq_of(mm.input(0)), dw = dq_of(mm.input(1));
    if (da < 0 || dw < 0 || da == dw) continue;
    const ::onnx::NodeProto &a = g.node(da), &w = g.node(dw);
    const auto axis_of = [](const ::onnx::NodeProto& n) {
      const auto* x = find_attr(n, "axis");
      return x ? x->i() : 1;  // ONNX's default
    };
    const auto zero_point = [](const ::onnx::NodeProto& n) { return n.input_size() > 2 ? n.input(2) : std::string(); };
    const std::string out = mm.output(0), name = mm.name();
    const std::string qa = a.input(0), sa = a.input(1), za = zero_point(a), qw = w.input(0), sw = w.input(1),
                      zw = zero_point(w);
    const std::string bias = mm.input_size() == 3 ? mm.input(2) : "";
    const int64_t a_axis = axis_of(a), w_axis = axis_of(w);
    const auto attributes = mm.attribute();  // a Conv's window and groups, a Gemm's transposes, alpha and beta
    ++fused_reads[mm.input(0)];
    ++fused_reads[mm.input(1)];
    mm.Clear();
    mm.set_op_type(conv ? "QDQConv" : "QDQMatMul");
    mm.set_domain("burn.internal");
    mm.set_name(name);
    for (const std::string* x : {&qa, &sa, &za, &qw, &sw, &zw}) mm.add_input(*x);
    if (!bias.empty()) mm.add_input(bias);
    *mm.mutable_attribute() = attributes;
    int_attr(mm, "a_axis", a_axis);
    int_attr(mm, "w_axis", w_axis);
    int_attr(mm, "opset", opset);
    if (gemm) int_attr(mm, "gemm", 1);
    mm.add_output(out);
  }
  // A DequantizeLinear whose every reader was rewritten (one activation feeding several products, say) is no longer
  // computed.
  const auto unread = [&](const ::onnx::NodeProto& n) {
    if (n.op_type() != "DequantizeLinear" || n.output_size() != 1) return false;
    const auto f = fused_reads.find(n.output(0));
    const auto u = uses.find(n.output(0));
    return f != fused_reads.end() && u != uses.end() && f->second == u->second;
  };
  ::onnx::GraphProto kept;
  for (int i = 0; i < g.node_size(); ++i)
    if (!unread(g.node(i))) *kept.add_node() = std::move(*g.mutable_node(i));
  g.mutable_node()->Swap(kept.mutable_node());
}

void add_training_ops(std::vector<OpRow>& r) {
  r.insert(r.end(), {
                        {"ai.onnx.preview.training/Adagrad", 1, 1, adagrad},
                        {"ai.onnx.preview.training/Momentum", 1, 1, momentum},
                        {"ai.onnx.preview.training/Adam", 1, 1, adam},
                    });
}

}  // namespace burn::onnx
