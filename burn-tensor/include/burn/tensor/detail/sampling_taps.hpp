// Tap tables of pooling and interpolation: which input positions (and weights) feed each output
// position. They define the semantics (PyTorch's) once, for the default composites and for backends.
// Header-only and internal: not part of the stable API.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::module_detail {

// One spatial dim's taps: for each output position, `k` input positions (-1 = padding) and weights.
struct DimTaps {
  int64_t in = 0, out = 0, k = 0;
  std::vector<int64_t> pos;    // [out * k]
  std::vector<double> weight;  // [out * k]; empty = all 1
};

// The cartesian product of per-dim taps: table[t * Lout + o] is the flat input position (or
// `sentinel` for padding) of tap t of flat output o; weight likewise.
struct TapTable {
  int64_t in_len = 1, out_len = 1, taps = 1;
  bool has_pad = false;
  std::vector<int64_t> pos;
  std::vector<double> weight;
};

inline TapTable combine(const std::vector<DimTaps>& dims, bool weighted) {
  TapTable t;
  for (const DimTaps& d : dims) {
    t.in_len *= d.in;
    t.out_len *= d.out;
    t.taps *= d.k;
  }
  const int64_t sentinel = t.in_len;
  t.pos.assign(t.taps * t.out_len, 0);
  if (weighted) t.weight.assign(t.taps * t.out_len, 1.0);
  const size_t n = dims.size();
  std::vector<int64_t> o(n), k(n);
  for (int64_t tap = 0; tap < t.taps; ++tap) {
    int64_t r = tap;
    for (size_t i = n; i-- > 0;) {
      k[i] = r % dims[i].k;
      r /= dims[i].k;
    }
    for (int64_t out = 0; out < t.out_len; ++out) {
      int64_t q = out;
      for (size_t i = n; i-- > 0;) {
        o[i] = q % dims[i].out;
        q /= dims[i].out;
      }
      int64_t flat = 0;
      double w = 1.0;
      bool pad = false;
      for (size_t i = 0; i < n; ++i) {
        const int64_t j = o[i] * dims[i].k + k[i];
        const int64_t p = dims[i].pos[j];
        if (p < 0) pad = true;
        flat = flat * dims[i].in + std::max<int64_t>(p, 0);
        if (weighted && !dims[i].weight.empty()) w *= dims[i].weight[j];
      }
      t.pos[tap * t.out_len + out] = pad ? sentinel : flat;
      if (pad) t.has_pad = true;
      if (weighted) t.weight[tap * t.out_len + out] = pad ? 0.0 : w;
    }
  }
  return t;
}

// Pool taps of one dim (options normalised by the pool rule); `avg` adds PyTorch's divisor as the
// weight (count_include_pad or not). Only
// the taps inside the input are listed (the rest are padding: -inf for max, 0 for avg), so a kernel
// far larger than the input keeps the table at O(out * in).
inline DimTaps pool_taps(int64_t in, size_t i, const PoolOptions& p, bool avg) {
  DimTaps d;
  d.in = in;
  const int64_t k = p.kernel[i], dil = p.dilation[i];
  d.out = shape_rules::pool_out_len(in, k, p.stride[i], p.padding[i], p.padding_end[i], dil, p.ceil_mode);
  // Window o's taps j in [lo, hi) are the ones at start + j * dil inside [0, in).
  const auto inside = [&](int64_t o, int64_t& start, int64_t& lo, int64_t& hi) {
    start = o * p.stride[i] - p.padding[i];
    lo = start >= 0 ? 0 : (-start - 1) / dil + 1;
    hi = start >= in ? 0 : (in - 1 - start) / dil + 1;
    lo = std::min(lo, k);
    hi = std::clamp(hi, lo, k);
  };
  d.k = 1;
  for (int64_t o = 0, start, lo, hi; o < d.out; ++o) {
    inside(o, start, lo, hi);
    d.k = std::max(d.k, hi - lo);
  }
  d.pos.assign(d.out * d.k, -1);
  if (avg) d.weight.assign(d.out * d.k, 0.0);
  for (int64_t o = 0, start, lo, hi; o < d.out; ++o) {
    inside(o, start, lo, hi);
    for (int64_t j = lo; j < hi; ++j) d.pos[o * d.k + (j - lo)] = start + j * dil;
    if (avg) {
      // The window spans [start, start + k) (avg pools take no dilation); k - (-start) cannot overflow.
      const int64_t end_cap = std::min(k, in + p.padding_end[i] - start);
      const int64_t div = p.count_include_pad ? end_cap : std::min(k, in - start) - std::max<int64_t>(-start, 0);
      for (int64_t j = 0; j < d.k; ++j) d.weight[o * d.k + j] = 1.0 / static_cast<double>(div);
    }
  }
  return d;
}

// Adaptive windows [floor(o*in/out), ceil((o+1)*in/out)), padded to the widest with -1.
inline DimTaps adaptive_taps(int64_t in, int64_t out, bool avg) {
  DimTaps d;
  d.in = in;
  d.out = out;
  auto lo = [&](int64_t o) { return (o * in) / out; };
  auto hi = [&](int64_t o) { return ((o + 1) * in + out - 1) / out; };
  for (int64_t o = 0; o < out; ++o) d.k = std::max(d.k, hi(o) - lo(o));
  d.pos.assign(out * d.k, -1);
  if (avg) d.weight.assign(out * d.k, 0.0);
  for (int64_t o = 0; o < out; ++o)
    for (int64_t j = 0; j < hi(o) - lo(o); ++j) {
      d.pos[o * d.k + j] = lo(o) + j;
      if (avg) d.weight[o * d.k + j] = 1.0 / static_cast<double>(hi(o) - lo(o));
    }
  return d;
}

// PyTorch's source coordinate of an output position (linear and cubic modes).
inline double source_coord(int64_t in, int64_t out, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) * o : 0.0;
  const double src = (static_cast<double>(in) / static_cast<double>(out)) * (o + 0.5) - 0.5;
  return (!cubic && src < 0) ? 0.0 : src;
}

// PyTorch's nearest index, computed in float as PyTorch does.
inline int64_t nearest_index(int64_t in, int64_t out, int64_t o) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * scale)), in - 1);
}

// Keys cubic convolution weights (A = -0.75, as PyTorch) for fraction t in [0, 1).
inline void cubic_weights(double t, double w[4]) {
  constexpr double A = -0.75;
  auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

// Interpolation taps of one dim.
inline DimTaps interp_taps(int64_t in, int64_t out, const InterpolateOptions& opt) {
  DimTaps d;
  d.in = in;
  d.out = out;
  d.k = opt.mode == InterpolateMode::Nearest ? 1 : opt.mode == InterpolateMode::Linear ? 2 : 4;
  d.pos.resize(out * d.k);
  d.weight.resize(out * d.k);
  for (int64_t o = 0; o < out; ++o) {
    int64_t* p = &d.pos[o * d.k];
    double* w = &d.weight[o * d.k];
    if (opt.mode == InterpolateMode::Nearest) {
      p[0] = nearest_index(in, out, o);
      w[0] = 1.0;
    } else if (opt.mode == InterpolateMode::Linear) {
      const double src = source_coord(in, out, o, opt.align_corners, false);
      const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
      const int64_t i1 = std::min(i0 + 1, in - 1);
      const double l1 = src - static_cast<double>(i0);
      p[0] = i0;
      p[1] = i1;
      w[0] = 1.0 - l1;
      w[1] = l1;
    } else {
      const double src = source_coord(in, out, o, opt.align_corners, true);
      const double f = std::floor(src);
      cubic_weights(src - f, w);
      for (int j = 0; j < 4; ++j) p[j] = std::clamp<int64_t>(static_cast<int64_t>(f) - 1 + j, 0, in - 1);
    }
  }
  return d;
}

// The spatial dims of an NC<spatial> shape, and N * C.
inline std::vector<int64_t> spatial(const Shape& s) { return {s.begin() + 2, s.end()}; }
inline int64_t planes(const Shape& s) { return s[0] * s[1]; }

inline Prim index_tensor(Backend& b, const std::vector<int64_t>& v, Shape shape) {
  return b.from_data(TensorData::from_vector<int64_t>(v, std::move(shape)));
}
inline Prim float_tensor(Backend& b, const std::vector<double>& v, Shape shape, DType dtype) {
  Prim p = b.from_data(TensorData::from_vector<double>(v, std::move(shape)));
  return dtype == DType::F64 ? p : b.cast(std::move(p), dtype);
}

// x [N, C, ...] as [NC, L (+1 sentinel column holding `pad`)].
inline Prim planes_with_sentinel(Backend& b, Prim x, const TapTable& t, Scalar pad) {
  const Shape& s = x->shape();
  const int64_t nc = planes(s);
  const DType dt = x->dtype();
  Prim x2 = b.reshape(std::move(x), Shape{nc, t.in_len});
  if (!t.has_pad) return x2;
  return b.cat({std::move(x2), b.full(Shape{nc, 1}, pad, dt)}, 1);
}

// out[o] = sum_t w[t][o] * x[pos[t][o]] per plane, reshaped to `out` (the op's rule's shape).
inline Prim weighted_gather(Backend& b, Prim x, const TapTable& t, const Shape& out) {
  const Shape s = x->shape();
  const DType dt = x->dtype();
  const int64_t nc = planes(s);
  Prim x2 = planes_with_sentinel(b, std::move(x), t, Scalar(0.0));
  Prim g = b.select(std::move(x2), 1, index_tensor(b, t.pos, Shape{t.taps * t.out_len}));
  g = b.reshape(std::move(g), Shape{nc, t.taps, t.out_len});
  if (!(t.taps == 1 && std::all_of(t.weight.begin(), t.weight.end(), [](double w) { return w == 1.0; }))) {
    g = b.mul(std::move(g), float_tensor(b, t.weight, Shape{1, t.taps, t.out_len}, dt));
  }
  g = b.sum_dim(std::move(g), 1);
  return b.reshape(std::move(g), out);
}

// The transpose of weighted_gather: grad_in[pos[t][o]] += w[t][o] * grad_out[o].
inline Prim weighted_scatter(Backend& b, const Shape& in_shape, Prim grad_out, const TapTable& t) {
  const DType dt = grad_out->dtype();
  const int64_t nc = planes(in_shape);
  Prim g = b.reshape(std::move(grad_out), Shape{nc, 1, t.out_len});
  g = b.mul(b.expand(std::move(g), Shape{nc, t.taps, t.out_len}),
            float_tensor(b, t.weight, Shape{1, t.taps, t.out_len}, dt));
  g = b.reshape(std::move(g), Shape{nc, t.taps * t.out_len});
  const int64_t cols = t.in_len + (t.has_pad ? 1 : 0);
  Prim acc = b.full(Shape{nc, cols}, Scalar(0.0), dt);
  acc = b.select_add(std::move(acc), 1, index_tensor(b, t.pos, Shape{t.taps * t.out_len}), std::move(g));
  if (t.has_pad) acc = b.slice(std::move(acc), Slices{{0, nc, 1}, {0, t.in_len, 1}});
  return b.reshape(std::move(acc), in_shape);
}

// Window max with flat input indices (I64) per plane, reshaped to `os` (the op's rule's shape).
inline PrimPair gathered_max(Backend& b, Prim x, const TapTable& t, const Shape& os) {
  const Shape s = x->shape();
  const int64_t nc = planes(s);
  Prim x2 = planes_with_sentinel(b, std::move(x), t, Scalar(-std::numeric_limits<double>::infinity()));
  Prim g = b.select(std::move(x2), 1, index_tensor(b, t.pos, Shape{t.taps * t.out_len}));
  g = b.reshape(std::move(g), Shape{nc, t.taps, t.out_len});
  auto [values, tap] = b.max_dim_with_indices(std::move(g), 1);
  Prim table = b.expand(index_tensor(b, t.pos, Shape{1, t.taps, t.out_len}), Shape{nc, t.taps, t.out_len});
  Prim idx = b.gather(std::move(table), 1, std::move(tap));
  return {b.reshape(std::move(values), os), b.reshape(std::move(idx), os)};
}

// grad_in[plane][indices[o]] += grad_out[o].
inline Prim scatter_by_indices(Backend& b, const Shape& in_shape, const DType dt, Prim grad_out, Prim indices) {
  const int64_t nc = planes(in_shape);
  int64_t in_len = 1;
  for (size_t i = 2; i < in_shape.rank(); ++i) in_len *= in_shape[i];
  const int64_t out_len = grad_out->shape().num_elements() / std::max<int64_t>(nc, 1);
  Prim acc = b.full(Shape{nc, in_len}, Scalar(0.0), dt);
  acc = b.scatter_add(std::move(acc), 1, b.reshape(std::move(indices), Shape{nc, out_len}),
                      b.reshape(std::move(grad_out), Shape{nc, out_len}));
  return b.reshape(std::move(acc), in_shape);
}

}  // namespace burn::module_detail
