// CPU kernels of the resample module ops (interpolation and pixel (un)shuffle).
// interpolate is separable: per output row, the (depth, height) taps combine input rows into a
// scratch row (contiguous, vectorised), then each output gathers its width taps from it. The tap
// tables come from the same builder as the default composite, so both follow PyTorch identically.
#include <algorithm>
#include <cstring>

#include "burn/tensor/detail/sampling_taps.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "convert.hpp"
#include "cpu_backend.hpp"
#include "pool_util.hpp"

namespace burn::cpu {

using namespace pool_detail;

namespace {

// Taps of the three (D, H, W) dims; unit taps on missing leading dims.
struct Taps3 {
  module_detail::DimTaps dim[3];
};

// `out`: the interpolate rule's NC<spatial> shape.
Taps3 taps3(const Shape& in, const Shape& out, const InterpolateOptions& o) {
  Taps3 t;
  const size_t n = in.rank() - 2, lead = 3 - n;
  for (size_t i = 0; i < lead; ++i) {
    t.dim[i].in = t.dim[i].out = t.dim[i].k = 1;
    t.dim[i].pos = {0};
    t.dim[i].weight = {1.0};
  }
  for (size_t i = 0; i < n; ++i) t.dim[lead + i] = module_detail::interp_taps(in[i + 2], out[i + 2], o);
  return t;
}

// The input rows (plane offsets) and weights of output row (od, oh).
template <typename T>
int64_t row_taps(const Taps3& t, int64_t H, int64_t W, int64_t od, int64_t oh, int64_t* rows, T* w) {
  const auto& d = t.dim[0];
  const auto& h = t.dim[1];
  int64_t n = 0;
  for (int64_t jd = 0; jd < d.k; ++jd)
    for (int64_t jh = 0; jh < h.k; ++jh) {
      rows[n] = (d.pos[od * d.k + jd] * H + h.pos[oh * h.k + jh]) * W;
      w[n++] = static_cast<T>(d.weight[od * d.k + jd] * h.weight[oh * h.k + jh]);
    }
  return n;
}

template <typename T>
void interp_fwd(const T* x, T* y, const Geometry& g, const Taps3& t, bool nearest) {
  const auto& tw = t.dim[2];
  const int64_t W = g.in[2], OW = g.out[2], kw = tw.k;
  std::vector<T> ww(tw.weight.begin(), tw.weight.end());
  const std::vector<int64_t>& pw = tw.pos;
  const int64_t rows = g.planes * g.out[0] * g.out[1];
  parallel_for(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, OW)), [&](int64_t r0, int64_t r1) {
    std::vector<T> tmp(W), rw(t.dim[0].k * t.dim[1].k);
    std::vector<int64_t> rr(rw.size());
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t p = r / (g.out[0] * g.out[1]), od = (r / g.out[1]) % g.out[0], oh = r % g.out[1];
      const T* plane = x + p * g.in_len();
      T* out = y + r * OW;
      const int64_t nr = row_taps(t, g.in[1], W, od, oh, rr.data(), rw.data());
      if (nearest) {
        const T* src = plane + rr[0];
        for (int64_t o = 0; o < OW; ++o) out[o] = src[pw[o]];
        continue;
      }
      const T* s0 = plane + rr[0];
      const T w0 = rw[0];
      for (int64_t i = 0; i < W; ++i) tmp[i] = w0 * s0[i];
      for (int64_t j = 1; j < nr; ++j) {
        const T* s = plane + rr[j];
        const T wj = rw[j];
        for (int64_t i = 0; i < W; ++i) tmp[i] += wj * s[i];
      }
      if (kw == 2) {
        for (int64_t o = 0; o < OW; ++o) out[o] = ww[2 * o] * tmp[pw[2 * o]] + ww[2 * o + 1] * tmp[pw[2 * o + 1]];
      } else {
        for (int64_t o = 0; o < OW; ++o) {
          T acc = 0;
          for (int64_t j = 0; j < kw; ++j) acc += ww[o * kw + j] * tmp[pw[o * kw + j]];
          out[o] = acc;
        }
      }
    }
  });
}

template <typename T>
void interp_bwd(const T* go, T* gi, const Geometry& g, const Taps3& t) {
  const auto& tw = t.dim[2];
  const int64_t W = g.in[2], OW = g.out[2], kw = tw.k;
  std::vector<T> ww(tw.weight.begin(), tw.weight.end());
  parallel_for(g.planes, 1, [&](int64_t p0, int64_t p1) {
    std::vector<T> tmp(W), rw(t.dim[0].k * t.dim[1].k);
    std::vector<int64_t> rr(rw.size());
    for (int64_t p = p0; p < p1; ++p) {
      T* plane = gi + p * g.in_len();
      std::fill(plane, plane + g.in_len(), T(0));
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const T* grow = go + ((p * g.out[0] + od) * g.out[1] + oh) * OW;
          std::fill(tmp.begin(), tmp.end(), T(0));
          for (int64_t o = 0; o < OW; ++o)
            for (int64_t j = 0; j < kw; ++j) tmp[tw.pos[o * kw + j]] += ww[o * kw + j] * grow[o];
          const int64_t nr = row_taps(t, g.in[1], W, od, oh, rr.data(), rw.data());
          for (int64_t j = 0; j < nr; ++j) {
            T* dst = plane + rr[j];
            const T wj = rw[j];
            for (int64_t i = 0; i < W; ++i) dst[i] += wj * tmp[i];
          }
        }
    }
  });
}

// Pixel (un)shuffle as a byte-typed copy: U is an unsigned type of the element's size.
template <typename U>
void shuffle_copy(const U* x, U* y, int64_t batch, int64_t c, int64_t h, int64_t w, int64_t r, bool un) {
  if (!un) {  // x [B, c*r*r, h, w] -> y [B, c, h*r, w*r]
    const int64_t rows = batch * c * h * r;
    parallel_for(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, w * r)), [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        const int64_t oh = row % (h * r), bc = row / (h * r);
        const int64_t i = oh % r, ih = oh / r;
        U* dst = y + row * w * r;
        for (int64_t j = 0; j < r; ++j) {
          const U* src = x + ((bc * r * r + i * r + j) * h + ih) * w;
          for (int64_t q = 0; q < w; ++q) dst[q * r + j] = src[q];
        }
      }
    });
  } else {  // x [B, c, h*r, w*r] -> y [B, c*r*r, h, w]
    const int64_t rows = batch * c * r * r * h;
    parallel_for(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, w)), [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        const int64_t oh = row % h, oc = (row / h) % (c * r * r), b = row / (h * c * r * r);
        const int64_t ci = oc / (r * r), i = (oc / r) % r, j = oc % r;
        const U* src = x + ((b * c + ci) * h * r + oh * r + i) * w * r;
        U* dst = y + row * w;
        for (int64_t q = 0; q < w; ++q) dst[q] = src[q * r + j];
      }
    });
  }
}

Prim shuffle(Prim x, int64_t r, bool un, const char* op) {
  const CpuPtr xc = contiguous(as_cpu(x, op));
  const Shape& s = xc->shape();
  const size_t n = s.rank();
  const Shape os = un ? shape_rules::pixel_unshuffle(s, r, op) : shape_rules::pixel_shuffle(s, r, op);
  int64_t batch = 1;
  for (size_t i = 0; i + 3 < n; ++i) batch *= s[i];
  // The kernel's (c, h, w): the channels of the side with the large plane, the plane of the other.
  const Shape& wide = un ? s : os;
  const Shape& narrow = un ? os : s;
  const int64_t c = wide[n - 3], h = narrow[n - 2], w = narrow[n - 1];
  CpuPtr out = alloc(os, xc->dtype());
  if (out->shape().num_elements() == 0) return out;  // else batch * c * h * r rows of width 0 could be 2^62
  switch (dtype_size(xc->dtype())) {
    case 1:
      shuffle_copy(static_cast<const uint8_t*>(xc->raw()), static_cast<uint8_t*>(out->raw()), batch, c, h, w, r, un);
      break;
    case 2:
      shuffle_copy(static_cast<const uint16_t*>(xc->raw()), static_cast<uint16_t*>(out->raw()), batch, c, h, w, r, un);
      break;
    case 4:
      shuffle_copy(static_cast<const uint32_t*>(xc->raw()), static_cast<uint32_t*>(out->raw()), batch, c, h, w, r, un);
      break;
    default:
      shuffle_copy(static_cast<const uint64_t*>(xc->raw()), static_cast<uint64_t*>(out->raw()), batch, c, h, w, r, un);
      break;
  }
  return out;
}

}  // namespace

Prim CpuBackend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) {
  if (!accepts<Dtypes::Float>(x->dtype())) return Backend::interpolate(std::move(x), output_size, options);
  const CpuPtr xc = contiguous(as_cpu(x, "interpolate"));
  const Shape os = shape_rules::interpolate(xc->shape(), output_size.dims(), options);
  const Geometry g = geometry(xc->shape(), os);
  const Taps3 t = taps3(xc->shape(), os, options);
  CpuPtr out = alloc(os, xc->dtype());
  const bool nearest = options.mode == InterpolateMode::Nearest;
  if (xc->dtype() == DType::F32)
    interp_fwd(xc->data<float>(), out->data<float>(), g, t, nearest);
  else
    interp_fwd(xc->data<double>(), out->data<double>(), g, t, nearest);
  return out;
}

Prim CpuBackend::interpolate_backward(Prim x, Prim grad_out, const Shape& output_size,
                                      const InterpolateOptions& options) {
  if (!accepts<Dtypes::Float>(x->dtype()))
    return Backend::interpolate_backward(std::move(x), std::move(grad_out), output_size, options);
  const CpuPtr xc = as_cpu(x, "interpolate_backward");
  const CpuPtr gc = contiguous(as_cpu(grad_out, "interpolate_backward"));
  const Shape os = shape_rules::interpolate(xc->shape(), output_size.dims(), options, "interpolate_backward");
  const Geometry g = geometry(xc->shape(), os);
  const Taps3 t = taps3(xc->shape(), os, options);
  CpuPtr out = alloc(xc->shape(), xc->dtype());
  if (xc->dtype() == DType::F32)
    interp_bwd(gc->data<float>(), out->data<float>(), g, t);
  else
    interp_bwd(gc->data<double>(), out->data<double>(), g, t);
  return out;
}

Prim CpuBackend::pixel_shuffle(Prim x, int64_t factor) { return shuffle(std::move(x), factor, false, "pixel_shuffle"); }

Prim CpuBackend::pixel_unshuffle(Prim x, int64_t factor) {
  return shuffle(std::move(x), factor, true, "pixel_unshuffle");
}

}  // namespace burn::cpu
