// CPU kernels of the conv module ops (convolution, transposed and deformable convolution, im2col/col2im,
// and their backward). f32 convs on a CPU with AVX2 and FMA take the blocked kernels of conv_blocked_*.cpp
// (an implicit GEMM over L2-sized tiles with an FMA micro-kernel, one tile per pool task), and the
// forward of large 3x3 stride-1 ones the Winograd F(2x2, 3x3) kernel of conv_winograd.cpp. The forward
// takes every such conv but 1x1 ones with padding (blocked_conv_forward_fits): weights of any size, cut
// into panels of output channels, and 1x1 convs as plain GEMMs; the backward keeps to kernels larger
// than 1x1 with small weights per group (blocked_conv_fits). Measured with 2 threads against the path
// below: 1.2x (ResNet body 64->64 3x3) and 1.3x (stem 3->64 7x7 s2) forward, 1.3x forward + backward,
// 1.2-6x on grouped, 1-D, 3-D, dilated and few-output-channel convs; with 1 thread on ResNet-18's
// layer2-4 (min of 40 calls alternated in one process, load 7.5): 0.9-1.2x per 3x3 conv (the stride-2
// ones at batch 8 the slowest, 0.97x and 0.98x summed over the network at batch 1 and 8), and
// 0.85-1.05x per 1x1 stride-2 downsample; none of them wakes OpenBLAS's threads any more (their
// sched_yield was 12% of ResNet-18 inference at batch 1).
// Otherwise (f64, older CPUs, those shapes): im2col + OpenBLAS GEMM per (image, group), the columns
// skipped for 1x1 convs; big products run one after another with OpenBLAS on the pool's thread count
// and a parallel im2col/col2im, small ones are spread over the pool with single-threaded GEMMs.
#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/blas.hpp"
#include "ops/conv_blocked.hpp"
#include "ops/conv_util.hpp"
#include "ops/conv_winograd.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {
namespace {

using conv_detail::col2im_channel;
using conv_detail::Dims;
using conv_detail::Geo3;

// Elements per pool task for im2col/col2im and bias loops.
constexpr int64_t kCopyGrain = 1 << 14;

// A rows x cols workspace: overflow-checked and refused (OutOfMemory naming the op) past
// max_alloc_bytes or when the system has no memory, never a std::bad_alloc or a wrapped size.
template <typename T>
std::unique_ptr<T[]> scratch(int64_t rows, int64_t cols) {
  const size_t bytes = checked_bytes(Shape{rows, cols}, sizeof(T), alloc_op());
  try {
    return std::unique_ptr<T[]>(new T[std::max<size_t>(bytes / sizeof(T), 1)]);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(alloc_op(), "the system refused " + std::to_string(bytes) + " bytes of workspace");
  }
}

std::vector<int64_t> spatial(const Shape& s) { return {s.dims().begin() + 2, s.dims().end()}; }

const Shape* shape_of(const CpuPtr& p) { return p ? &p->shape() : nullptr; }

// Runs task(i, parallel_inner) for i in [0, tasks): spread over the pool when each task is small
// (then each runs single-threaded), else one after another with parallel inner loops.
template <typename F>
void run_tasks(int64_t tasks, int64_t work_per_task, F&& task) {
  if (tasks > 1 && work_per_task < kBlasSerialWork) {
    parallel_for(tasks, std::max<int64_t>(1, kBlasSerialWork / std::max<int64_t>(work_per_task, 1)),
                 [&](int64_t s, int64_t e) {
                   for (int64_t i = s; i < e; ++i) task(i, false);
                 });
  } else {
    for (int64_t i = 0; i < tasks; ++i) task(i, true);
  }
}

template <typename T>
void add_bias(T* y, const T* bias, int64_t n, int64_t c, int64_t l) {
  parallel_for(n * c, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(l, 1)), [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      const T b = bias[r % c];
      T* row = y + r * l;
      for (int64_t i = 0; i < l; ++i) row[i] += b;
    }
  });
}

template <typename T>
void channel_sums(const T* g, T* out, int64_t n, int64_t c, int64_t l) {
  parallel_for(c, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(n * l, 1)), [&](int64_t s, int64_t e) {
    for (int64_t ch = s; ch < e; ++ch) {
      double acc = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T* row = g + (i * c + ch) * l;
        T part = 0;
        for (int64_t j = 0; j < l; ++j) part += row[j];
        acc += part;
      }
      out[ch] = static_cast<T>(acc);
    }
  });
}

// im2col of channels [c0, c0 + count) of one image into rows of `cols`.
// Parallel over (channel, tap) rows so that few-channel inputs (an RGB stem) still split evenly.
template <typename T>
void im2col_channels(const T* x, T* cols, int64_t count, const Geo3& g, bool parallel) {
  const auto body = [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r)
      conv_detail::im2col_tap(x + (r / g.ksize) * g.in_size, cols + r * g.out_size, g, r % g.ksize);
  };
  if (parallel)
    parallel_for(count * g.ksize, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(g.out_size, 1)), body);
  else
    body(0, count * g.ksize);
}

template <typename T>
void col2im_channels(const T* cols, T* x, int64_t count, const Geo3& g, bool parallel) {
  const auto body = [&](int64_t s, int64_t e) {
    for (int64_t c = s; c < e; ++c) col2im_channel(cols + c * g.ksize * g.out_size, x + c * g.in_size, g);
  };
  if (parallel)
    parallel_for(count, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(g.ksize * g.out_size, 1)), body);
  else
    body(0, count);
}

// Whether the blocked f32 kernels take this conv (see the note at the top of this file).
bool blocked(const Dims& m, const Geo3& g) {
  return conv_detail::blocked_conv_enabled() && conv_detail::blocked_conv_fits(m, g);
}
bool blocked_forward(const Dims& m, const Geo3& g) {
  return conv_detail::blocked_conv_enabled() && conv_detail::blocked_conv_forward_fits(m, g);
}

// The f32 forward on the AVX2 kernels (blocked_forward(m, g) holds): Winograd where it fits, else direct.
// `weight`: the tensor w points into when it is a layer's weight (the key of Winograd's cached transform), or null.
void fast_conv_forward(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                       const conv_detail::ConvEpilogue& ep = {}, const CpuPtr& weight = nullptr) {
  if (conv_detail::winograd_conv_fits(m, g)) return conv_detail::winograd_conv_forward(x, w, bias, y, m, g, ep, weight);
  conv_detail::blocked_conv_forward(x, w, bias, y, m, g, ep);
}

// y [N, Cout, L] = conv(x [N, C, in], w [Cout, Cg, K]) + bias (bias [Cout] or null).
template <typename T>
void conv_forward(const T* x, const T* w, const T* bias, T* y, const Dims& m, const Geo3& g,
                  const CpuPtr& weight = nullptr) {
  if constexpr (std::is_same_v<T, float>)
    if (blocked_forward(m, g)) return fast_conv_forward(x, w, bias, y, m, g, {}, weight);
  const int64_t L = g.out_size;
  run_tasks(m.n * m.groups, m.mo * L * m.kc, [&](int64_t t, bool par) {
    const int64_t n = t / m.groups, gi = t % m.groups;
    const T* xg = x + (n * m.c + gi * m.cg) * g.in_size;
    std::unique_ptr<T[]> buf;
    const T* cols = xg;
    if (!g.pointwise) {
      buf = scratch<T>(m.kc, L);
      im2col_channels(xg, buf.get(), m.cg, g, par);
      cols = buf.get();
    }
    blas_gemm(false, false, m.mo, L, m.kc, T(1), w + gi * m.mo * m.kc, m.kc, cols, L, T(0),
              y + (n * m.cout + gi * m.mo) * L, L);
  });
  if (bias) add_bias<T>(y, bias, m.n, m.cout, L);
}

// gx [N, C, in] = the input gradient of conv_forward for gy [N, Cout, L].
template <typename T>
void conv_grad_input(const T* gy, const T* w, T* gx, const Dims& m, const Geo3& g) {
  if constexpr (std::is_same_v<T, float>) {
    // A stride-1 input gradient the Winograd forward takes (as a forward of gy), whatever its weights' size.
    if (conv_detail::blocked_conv_enabled() && conv_detail::grad_input_as_forward(g)) {
      const Geo3 g2 = conv_detail::grad_input_geometry(g);
      const Dims m2(m.n, m.cout, m.c, m.groups, g2);
      if (conv_detail::blocked_conv_forward_fits(m2, g2) && conv_detail::winograd_conv_fits(m2, g2))
        return conv_detail::winograd_conv_forward(gy, conv_detail::grad_input_weights(w, m, g).data(), nullptr, gx, m2,
                                                  g2);
    }
    if (blocked(m, g)) return conv_detail::blocked_conv_grad_input(gy, w, gx, m, g);
  }
  const int64_t L = g.out_size;
  run_tasks(m.n * m.groups, m.mo * L * m.kc, [&](int64_t t, bool par) {
    const int64_t n = t / m.groups, gi = t % m.groups;
    T* gxg = gx + (n * m.c + gi * m.cg) * g.in_size;
    const T* gyg = gy + (n * m.cout + gi * m.mo) * L;
    const T* wg = w + gi * m.mo * m.kc;
    if (g.pointwise) {
      blas_gemm(true, false, m.kc, L, m.mo, T(1), wg, m.kc, gyg, L, T(0), gxg, L);
      return;
    }
    std::unique_ptr<T[]> cols = scratch<T>(m.kc, L);
    blas_gemm(true, false, m.kc, L, m.mo, T(1), wg, m.kc, gyg, L, T(0), cols.get(), L);
    col2im_channels(cols.get(), gxg, m.cg, g, par);
  });
}

// gw [Cout, Cg, K] = sum over images of gy_g [Mo, L] x cols_g^T [L, Kc]; gb [Cout] = sums of gy per
// channel when not null (gw may be null then: only gb, the same sums). Small groups run in parallel (each
// owns its slice of gw); one big group accumulates image after image.
template <typename T>
void conv_grad_weight(const T* x, const T* gy, T* gw, T* gb, const Dims& m, const Geo3& g) {
  if constexpr (std::is_same_v<T, float>)
    if (blocked(m, g)) return conv_detail::blocked_conv_grad_weight(x, gy, gw, gb, m, g);
  const int64_t L = g.out_size;
  if (gb) channel_sums<T>(gy, gb, m.n, m.cout, L);
  if (!gw) return;
  const auto group = [&](int64_t gi, int64_t n0, int64_t n1, T* out, bool par) {
    std::unique_ptr<T[]> buf = g.pointwise ? nullptr : scratch<T>(m.kc, L);
    for (int64_t n = n0; n < n1; ++n) {
      const T* xg = x + (n * m.c + gi * m.cg) * g.in_size;
      const T* cols = xg;
      if (!g.pointwise) {
        im2col_channels(xg, buf.get(), m.cg, g, par);
        cols = buf.get();
      }
      blas_gemm(false, true, m.mo, m.kc, L, T(1), gy + (n * m.cout + gi * m.mo) * L, L, cols, L, n == n0 ? T(0) : T(1),
                out, m.kc);
    }
    if (n1 == n0) std::fill(out, out + m.mo * m.kc, T(0));
  };
  const int64_t work = m.mo * L * m.kc;
  if (work >= kBlasSerialWork || m.n == 0 || (m.groups == 1 && m.n == 1)) {
    for (int64_t gi = 0; gi < m.groups; ++gi) group(gi, 0, m.n, gw + gi * m.mo * m.kc, true);
  } else if (m.groups > 1) {
    parallel_for(m.groups, 1, [&](int64_t s, int64_t e) {
      for (int64_t gi = s; gi < e; ++gi) group(gi, 0, m.n, gw + gi * m.mo * m.kc, false);
    });
  } else {
    // One small group over many images: fixed image chunks with their own partial sums, added in order.
    const int64_t chunks = std::min<int64_t>(m.n, static_cast<int64_t>(num_threads()));
    const int64_t size = m.mo * m.kc;
    std::unique_ptr<T[]> part = scratch<T>(chunks, size);
    parallel_for(chunks, 1, [&](int64_t s, int64_t e) {
      for (int64_t ch = s; ch < e; ++ch)
        group(0, m.n * ch / chunks, m.n * (ch + 1) / chunks, part.get() + ch * size, false);
    });
    std::copy(part.get(), part.get() + size, gw);
    for (int64_t ch = 1; ch < chunks; ++ch)
      for (int64_t i = 0; i < size; ++i) gw[i] += part[ch * size + i];
  }
}

CpuPtr cpu_in(const Prim& p, const char* op) { return contiguous(as_cpu(p, op)); }

// Geometry of conv(x, w) whose output shape `ys` the conv rule gave (with `o` normalised).
Geo3 conv_geo(const Shape& xs, const Shape& ws, const ConvOptions& o, const Shape& ys) {
  return Geo3(spatial(xs), spatial(ys), spatial(ws), o.stride, o.padding, o.dilation);
}

// A transposed conv is the input gradient of the conv from its output `ys` (the conv_transpose
// rule's) to its input x.
Geo3 transpose_geo(const Shape& xs, const Shape& ws, const ConvTransposeOptions& o, const Shape& ys) {
  return Geo3(spatial(ys), spatial(xs), spatial(ws), o.stride, o.padding, o.dilation);
}

// im2col over `in` [H, W] with the unfold rule's blocks per dim (it normalises `o`).
Geo3 unfold_geo(const std::vector<int64_t>& in, UnfoldOptions& o) {
  const std::vector<int64_t> blocks = shape_rules::unfold_blocks(in, o);
  return Geo3(in, blocks, o.kernel, o.stride, o.padding, o.dilation);
}

// Bilinear sample of one plane at (y, x), zero outside (torchvision's deform_conv2d rule).
template <typename T>
T bilinear(const T* plane, int64_t h, int64_t w, T y, T x) {
  if (!(y > T(-1)) || !(y < T(h)) || !(x > T(-1)) || !(x < T(w))) return T(0);
  const T fy = std::floor(y), fx = std::floor(x);
  const int64_t y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
  const T ly = y - fy, lx = x - fx, hy = T(1) - ly, hx = T(1) - lx;
  const auto at = [&](int64_t yy, int64_t xx) -> T {
    return yy >= 0 && yy < h && xx >= 0 && xx < w ? plane[yy * w + xx] : T(0);
  };
  return hy * hx * at(y0, x0) + hy * lx * at(y0, x0 + 1) + ly * hx * at(y0 + 1, x0) + ly * lx * at(y0 + 1, x0 + 1);
}

}  // namespace

Prim CpuBackend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) {
  static constexpr const char* op = "conv";
  CpuPtr a = cpu_in(x, op), w = cpu_in(weight, op);
  CpuPtr b = bias ? cpu_in(bias, op) : nullptr;
  x.reset();
  const Shape &xs = a->shape(), &ws = w->shape();
  ConvOptions o = options;
  const Shape ys = shape_rules::conv(xs, ws, shape_of(b), o, op);
  const Geo3 g = conv_geo(xs, ws, o, ys);
  const Dims m(xs[0], xs[1], ws[0], o.groups, g);
  CpuPtr y = alloc(ys, a->dtype());
  if (y->shape().num_elements() == 0) return y;  // no output channels: no columns to build either
  return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prim {
    conv_forward<T>(a->data<T>(), w->data<T>(), b ? b->data<T>() : nullptr, y->data<T>(), m, g, w);
    return y;
  });
}

Prim conv_with_epilogue(const Prim& x, const Prim& weight, const Prim& bias, const ConvOptions& options,
                        const Prim& residual, bool relu) {
  static constexpr const char* op = "conv";
  if (x->dtype() != DType::F32 || weight->dtype() != DType::F32 || (bias && bias->dtype() != DType::F32))
    return nullptr;
  CpuPtr a = cpu_in(x, op), w = cpu_in(weight, op);
  CpuPtr b = bias ? cpu_in(bias, op) : nullptr;
  const Shape &xs = a->shape(), &ws = w->shape();
  ConvOptions o = options;
  const Shape ys = shape_rules::conv(xs, ws, shape_of(b), o, op);
  const Geo3 g = conv_geo(xs, ws, o, ys);
  const Dims m(xs[0], xs[1], ws[0], o.groups, g);
  if (!blocked_forward(m, g)) return nullptr;
  CpuPtr r = residual ? as_cpu(residual, op) : nullptr;
  if (r && (r->dtype() != DType::F32 || r->shape() != ys || !r->is_contiguous())) return nullptr;
  CpuPtr y = alloc(ys, DType::F32);
  const conv_detail::ConvEpilogue ep{r ? r->data<float>() : nullptr, relu};
  float* yd = y->data<float>();
  if (!ep.residual) {
    fast_conv_forward(a->data<float>(), w->data<float>(), b ? b->data<float>() : nullptr, yd, m, g, ep, w);
    return y;
  }
  // A residual is added (then relu) in one pass over the finished output, not per tile: inside the tiles its
  // reads competed with the packed panels for L2 and ResNet-50 at batch 1 ran 4 % slower fused than as three ops
  // (the pass: 6 % faster than them, interleaved A/B in the journal). The same operations per element: the same bits.
  fast_conv_forward(a->data<float>(), w->data<float>(), b ? b->data<float>() : nullptr, yd, m, g, {}, w);
  parallel_for(ys.num_elements(), kGrain,
               [&](int64_t s, int64_t e) { conv_detail::apply_conv_epilogue(yd, s, 0, 1, e - s, ep); });
  return y;
}

// The kernels run only for the gradients `mask` asks for; the others come back null.
Prims CpuBackend::conv_backward(Prim x, Prim weight, Prim grad_out, const ConvOptions& options,
                                const ConvGradMask& mask) {
  static constexpr const char* op = "conv_backward";
  CpuPtr a = cpu_in(x, op), w = cpu_in(weight, op), gy = cpu_in(grad_out, op);
  const Shape &xs = a->shape(), &ws = w->shape();
  ConvOptions o = options;
  const Geo3 g = conv_geo(xs, ws, o, shape_rules::conv(xs, ws, nullptr, o, op));
  const Dims m(xs[0], xs[1], ws[0], o.groups, g);
  CpuPtr gx = mask.x ? alloc(xs, a->dtype()) : nullptr, gw = mask.weight ? alloc(ws, a->dtype()) : nullptr;
  CpuPtr gb = mask.bias ? alloc(Shape{ws[0]}, a->dtype()) : nullptr;
  return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prims {
    if (gx) conv_grad_input<T>(gy->data<T>(), w->data<T>(), gx->data<T>(), m, g);
    if (gw || gb)
      conv_grad_weight<T>(a->data<T>(), gy->data<T>(), gw ? gw->data<T>() : nullptr, gb ? gb->data<T>() : nullptr, m,
                          g);
    return Prims{gx, gw, gb};
  });
}

Prim CpuBackend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) {
  static constexpr const char* op = "conv_transpose";
  CpuPtr a = cpu_in(x, op), w = cpu_in(weight, op);
  CpuPtr b = bias ? cpu_in(bias, op) : nullptr;
  x.reset();
  const Shape &xs = a->shape(), &ws = w->shape();
  ConvTransposeOptions o = options;
  const Shape ys = shape_rules::conv_transpose(xs, ws, shape_of(b), o, op);
  const Geo3 g = transpose_geo(xs, ws, o, ys);
  const int64_t cout = ys[1];
  const Dims m(xs[0], cout, ws[0], o.groups, g);  // the conv from the output (cout) to x (C_in)
  CpuPtr y = alloc(ys, a->dtype());
  return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prim {
    conv_grad_input<T>(a->data<T>(), w->data<T>(), y->data<T>(), m, g);
    if (b) add_bias<T>(y->data<T>(), b->data<T>(), m.n, cout, g.in_size);
    return y;
  });
}

Prims CpuBackend::conv_transpose_backward(Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options,
                                          const ConvGradMask& mask) {
  static constexpr const char* op = "conv_transpose_backward";
  CpuPtr a = cpu_in(x, op), w = cpu_in(weight, op), gy = cpu_in(grad_out, op);
  const Shape &xs = a->shape(), &ws = w->shape();
  ConvTransposeOptions o = options;
  const Shape ys = shape_rules::conv_transpose(xs, ws, nullptr, o, op);
  const Geo3 g = transpose_geo(xs, ws, o, ys);
  const int64_t cout = ys[1];
  const Dims m(xs[0], cout, ws[0], o.groups, g);
  CpuPtr gx = mask.x ? alloc(xs, a->dtype()) : nullptr, gw = mask.weight ? alloc(ws, a->dtype()) : nullptr;
  CpuPtr gb = mask.bias ? alloc(Shape{cout}, a->dtype()) : nullptr;
  return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prims {
    if (gx) conv_forward<T>(gy->data<T>(), w->data<T>(), nullptr, gx->data<T>(), m, g);
    if (gw) conv_grad_weight<T>(gy->data<T>(), a->data<T>(), gw->data<T>(), nullptr, m, g);
    if (gb) channel_sums<T>(gy->data<T>(), gb->data<T>(), m.n, cout, g.in_size);
    return Prims{gx, gw, gb};
  });
}

Prim CpuBackend::deform_conv2d(Prim x, Prim offset, Prim weight, Prim mask, Prim bias, const DeformConvOptions& opts) {
  static constexpr const char* op = "deform_conv2d";
  CpuPtr a = cpu_in(x, op), off = cpu_in(offset, op), w = cpu_in(weight, op);
  CpuPtr mk = mask ? cpu_in(mask, op) : nullptr, b = bias ? cpu_in(bias, op) : nullptr;
  x.reset();
  const Shape &xs = a->shape(), &ws = w->shape();
  DeformConvOptions options = opts;
  const Shape ys = shape_rules::deform_conv2d(xs, off->shape(), ws, shape_of(mk), shape_of(b), options, op);
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], kh = ws[2], kw = ws[3], k = kh * kw;
  const int64_t ho = ys[2], wo = ys[3], l = ho * wo;
  const int64_t og = options.offset_groups, cpg = c / og, groups = options.weight_groups;
  const int64_t cout = ws[0], mo = cout / groups, kc = c / groups * k;
  CpuPtr y = alloc(ys, a->dtype());
  return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prim {
    const T* px = a->data<T>();
    const T* po = off->data<T>();
    const T* pm = mk ? mk->data<T>() : nullptr;
    std::unique_ptr<T[]> cols = scratch<T>(c * k, l);
    for (int64_t img = 0; img < n; ++img) {
      // Columns [C * K, L]: channel ch, tap (i, j) sampled at its offset-group's displaced position.
      parallel_for(c * k, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(l, 1)), [&](int64_t s, int64_t e) {
        for (int64_t r = s; r < e; ++r) {
          const int64_t ch = r / k, tap = r % k, i = tap / kw, j = tap % kw, grp = ch / cpg;
          const T* plane = px + (img * c + ch) * h * wd;
          const T* dy = po + ((img * og + grp) * 2 * k + 2 * tap) * l;
          const T* dx = dy + l;
          const T* mrow = pm ? pm + ((img * og + grp) * k + tap) * l : nullptr;
          T* dst = cols.get() + r * l;
          for (int64_t oy = 0; oy < ho; ++oy)
            for (int64_t ox = 0; ox < wo; ++ox) {
              const int64_t q = oy * wo + ox;
              const T yy = T(oy * options.stride[0] - options.padding[0] + i * options.dilation[0]) + dy[q];
              const T xx = T(ox * options.stride[1] - options.padding[1] + j * options.dilation[1]) + dx[q];
              T v = bilinear(plane, h, wd, yy, xx);
              dst[q] = mrow ? v * mrow[q] : v;
            }
        }
      });
      for (int64_t gi = 0; gi < groups; ++gi)
        blas_gemm(false, false, mo, l, kc, T(1), w->data<T>() + gi * mo * kc, kc, cols.get() + gi * kc * l, l, T(0),
                  y->data<T>() + (img * cout + gi * mo) * l, l);
    }
    if (b) add_bias<T>(y->data<T>(), b->data<T>(), n, cout, l);
    return y;
  });
}

Prim CpuBackend::unfold(Prim x, const UnfoldOptions& options) {
  static constexpr const char* op = "unfold";
  CpuPtr a = cpu_in(x, op);
  x.reset();
  const Shape& xs = a->shape();
  UnfoldOptions o = options;
  CpuPtr y = alloc(shape_rules::unfold(xs, o, op), a->dtype());
  const Geo3 g = unfold_geo(spatial(xs), o);
  return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prim {
    im2col_channels(a->data<T>(), y->data<T>(), xs[0] * xs[1], g, true);
    return y;
  });
}

Prim CpuBackend::fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) {
  static constexpr const char* op = "fold";
  CpuPtr a = cpu_in(cols, op);
  cols.reset();
  const Shape& cs = a->shape();
  UnfoldOptions o = options;
  CpuPtr y = alloc(shape_rules::fold(cs, output_size.dims(), o, op), a->dtype());
  const Geo3 g = unfold_geo(output_size.dims(), o);
  const int64_t c = y->shape()[1];
  return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prim {
    col2im_channels(a->data<T>(), y->data<T>(), cs[0] * c, g, true);
    return y;
  });
}

}  // namespace burn::cpu
