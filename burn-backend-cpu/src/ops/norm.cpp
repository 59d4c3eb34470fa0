// CPU kernels of the norm module ops (layer, group, batch and RMS normalisation, and their backward),
// f32 and f64, NC<spatial> layout. Semantics and return conventions: burn-tensor/src/defaults/norm.cpp.
// Statistics are two-pass (mean, then the mean of squared deviations) over rows held in cache; batch-norm
// per-channel sums are summed per (n, c) plane in parallel and combined in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/norm_kernels.hpp"
#include "ops/norm_util.hpp"

namespace burn::cpu {
namespace {

// Elements per parallel task.
constexpr int64_t kNormGrain = 1 << 15;

CpuPtr cont(const Prim& p, const char* op) { return p ? contiguous(as_cpu(p, op)) : nullptr; }

template <typename T>
const T* ptr(const CpuPtr& t) {
  return t ? t->data<T>() : nullptr;
}

// Mean and 1/sqrt(var + eps) of a row; rms: mean 0, var = mean(x^2).
template <typename T>
[[gnu::always_inline]] inline void row_stats(const T* x, int64_t n, T eps, bool rms, T& mean, T& rstd) {
  mean = rms ? T(0) : rowk::sum<T>(n, [&](int64_t j) { return x[j]; }) / T(n);
  const T m = mean;
  const T var = rowk::sum<T>(n,
                             [&](int64_t j) {
                               const T d = x[j] - m;
                               return d * d;
                             }) /
                T(n);
  rstd = T(1) / std::sqrt(var + eps);
}

// y = (x - mean) * rstd * w + b over `rows` rows of n (layer norm; rms norm with rms = true).
template <typename T>
[[gnu::always_inline]] inline void rows_forward(const T* x, T* y, int64_t rows, int64_t n, const T* w, const T* b,
                                                T eps, bool rms) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    T mean, rstd;
    row_stats(xr, n, eps, rms, mean, rstd);
    if (w && b)
      for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
    else if (w)
      for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mean) * rstd * w[j];
    else if (b)
      for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mean) * rstd + b[j];
    else
      for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mean) * rstd;
  }
}

// grad_x of rows; accumulates grad_w (when w) and grad_b partial sums into gw/gb (length n).
// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w (rms: no mean(g) term).
template <typename T>
[[gnu::always_inline]] inline void rows_backward(const T* x, const T* go, const T* w, T* gx, T* gw, T* gb, int64_t rows,
                                                 int64_t n, T eps, bool rms) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    const T* gr = go + r * n;
    T* dx = gx + r * n;
    T mean, rstd;
    row_stats(xr, n, eps, rms, mean, rstd);
    T sg, sgx;
    if (w) {
      sg = rms ? T(0) : rowk::sum<T>(n, [&](int64_t j) { return gr[j] * w[j]; });
      sgx = rowk::sum<T>(n, [&](int64_t j) { return gr[j] * w[j] * (xr[j] - mean); }) * rstd;
    } else {
      sg = rms ? T(0) : rowk::sum<T>(n, [&](int64_t j) { return gr[j]; });
      sgx = rowk::sum<T>(n, [&](int64_t j) { return gr[j] * (xr[j] - mean); }) * rstd;
    }
    const T mg = sg / T(n), mgx = sgx / T(n);
    if (w) {
      for (int64_t j = 0; j < n; ++j) {
        const T xh = (xr[j] - mean) * rstd;
        dx[j] = rstd * (gr[j] * w[j] - mg - xh * mgx);
        gw[j] += gr[j] * xh;
        gb[j] += gr[j];
      }
    } else {
      for (int64_t j = 0; j < n; ++j) {
        const T xh = (xr[j] - mean) * rstd;
        dx[j] = rstd * (gr[j] - mg - xh * mgx);
        gb[j] += gr[j];
      }
    }
  }
}

// Group norm over rows (n, g) of Cg channels x S: stats per row, affine per channel.
template <typename T>
[[gnu::always_inline]] inline void groups_forward(const T* x, T* y, int64_t r0, int64_t r1, int64_t groups, int64_t cg,
                                                  int64_t s, const T* w, const T* b, T eps) {
  const int64_t k = cg * s;
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * k;
    T* yr = y + r * k;
    T mean, rstd;
    row_stats(xr, k, eps, false, mean, rstd);
    const int64_t c0 = (r % groups) * cg;
    for (int64_t c = 0; c < cg; ++c) {
      const T scale = w ? rstd * w[c0 + c] : rstd, shift = b ? b[c0 + c] : T(0);
      const T* xc = xr + c * s;
      T* yc = yr + c * s;
      for (int64_t j = 0; j < s; ++j) yc[j] = (xc[j] - mean) * scale + shift;
    }
  }
}

// Group norm backward over rows (n, g); per-(n, c) sums go to gwp (rstd * sum(go * (x - mean))) and
// gbp (sum(go)), reduced over n by the caller.
template <typename T>
[[gnu::always_inline]] inline void groups_backward(const T* x, const T* go, const T* w, T* gx, T* gwp, T* gbp,
                                                   int64_t r0, int64_t r1, int64_t groups, int64_t cg, int64_t s,
                                                   T eps) {
  const int64_t k = cg * s;
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * k;
    const T* gr = go + r * k;
    T* dx = gx + r * k;
    T mean, rstd;
    row_stats(xr, k, eps, false, mean, rstd);
    const int64_t c0 = (r % groups) * cg;
    const int64_t pc = (r / groups) * groups * cg + c0;  // index of (n, c0) in [N, C]
    T sg = 0, sgx = 0;
    for (int64_t c = 0; c < cg; ++c) {
      const T* xc = xr + c * s;
      const T* gc = gr + c * s;
      const T bsum = rowk::sum<T>(s, [&](int64_t j) { return gc[j]; });
      const T asum = rowk::sum<T>(s, [&](int64_t j) { return gc[j] * (xc[j] - mean); });
      const T wc = w ? w[c0 + c] : T(1);
      sg += wc * bsum;
      sgx += wc * asum * rstd;
      gwp[pc + c] = asum * rstd;
      gbp[pc + c] = bsum;
    }
    const T mg = sg / T(k), mgx = sgx / T(k);
    for (int64_t c = 0; c < cg; ++c) {
      const T wc = w ? w[c0 + c] : T(1);
      const T* xc = xr + c * s;
      const T* gc = gr + c * s;
      T* dc = dx + c * s;
      for (int64_t j = 0; j < s; ++j) dc[j] = rstd * (gc[j] * wc - mg - (xc[j] - mean) * rstd * mgx);
    }
  }
}

// The per-type kernels, compiled for AVX2 and a baseline and picked at run time.
#define BURN_CPU_NORM_KERNELS(T, SUFFIX)                                                                               \
  __attribute__((target_clones("avx2", "default"))) void rows_fwd_##SUFFIX(const T* x, T* y, int64_t rows, int64_t n,  \
                                                                           const T* w, const T* b, T eps, bool rms) {  \
    rows_forward<T>(x, y, rows, n, w, b, eps, rms);                                                                    \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) void rows_bwd_##SUFFIX(                                            \
      const T* x, const T* go, const T* w, T* gx, T* gw, T* gb, int64_t rows, int64_t n, T eps, bool rms) {            \
    rows_backward<T>(x, go, w, gx, gw, gb, rows, n, eps, rms);                                                         \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) void groups_fwd_##SUFFIX(const T* x, T* y, int64_t r0, int64_t r1, \
                                                                             int64_t groups, int64_t cg, int64_t s,    \
                                                                             const T* w, const T* b, T eps) {          \
    groups_forward<T>(x, y, r0, r1, groups, cg, s, w, b, eps);                                                         \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) void groups_bwd_##SUFFIX(                                          \
      const T* x, const T* go, const T* w, T* gx, T* gwp, T* gbp, int64_t r0, int64_t r1, int64_t groups, int64_t cg,  \
      int64_t s, T eps) {                                                                                              \
    groups_backward<T>(x, go, w, gx, gwp, gbp, r0, r1, groups, cg, s, eps);                                            \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) T plane_sum_##SUFFIX(const T* x, int64_t n, T shift) {             \
    return rowk::sum<T>(n, [&](int64_t j) { return x[j] - shift; });                                                   \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) T plane_sq_##SUFFIX(const T* x, int64_t n, T mean) {               \
    return rowk::sum<T>(n, [&](int64_t j) {                                                                            \
      const T d = x[j] - mean;                                                                                         \
      return d * d;                                                                                                    \
    });                                                                                                                \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) T plane_dot_##SUFFIX(const T* g, const T* x, int64_t n, T mean) {  \
    return rowk::sum<T>(n, [&](int64_t j) { return g[j] * (x[j] - mean); });                                           \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) void plane_affine_##SUFFIX(const T* x, T* y, int64_t n, T mean,    \
                                                                               T scale, T shift) {                     \
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - mean) * scale + shift;                                              \
  }                                                                                                                    \
  __attribute__((target_clones("avx2", "default"))) void plane_bn_grad_##SUFFIX(const T* g, const T* x, T* dx,         \
                                                                                int64_t n, T mean, T a, T c, T k) {    \
    for (int64_t j = 0; j < n; ++j) dx[j] = a * (g[j] - c - (x[j] - mean) * k);                                        \
  }
BURN_CPU_NORM_KERNELS(float, f32)
BURN_CPU_NORM_KERNELS(double, f64)
#undef BURN_CPU_NORM_KERNELS

// Overloads so the templated drivers below pick the right clone.
#define BURN_CPU_NORM_OVERLOADS(T, SUFFIX)                                                                            \
  inline void rows_fwd(const T* x, T* y, int64_t rows, int64_t n, const T* w, const T* b, T eps, bool rms) {          \
    rows_fwd_##SUFFIX(x, y, rows, n, w, b, eps, rms);                                                                 \
  }                                                                                                                   \
  inline void rows_bwd(const T* x, const T* go, const T* w, T* gx, T* gw, T* gb, int64_t rows, int64_t n, T eps,      \
                       bool rms) {                                                                                    \
    rows_bwd_##SUFFIX(x, go, w, gx, gw, gb, rows, n, eps, rms);                                                       \
  }                                                                                                                   \
  inline void groups_fwd(const T* x, T* y, int64_t r0, int64_t r1, int64_t groups, int64_t cg, int64_t s, const T* w, \
                         const T* b, T eps) {                                                                         \
    groups_fwd_##SUFFIX(x, y, r0, r1, groups, cg, s, w, b, eps);                                                      \
  }                                                                                                                   \
  inline void groups_bwd(const T* x, const T* go, const T* w, T* gx, T* gwp, T* gbp, int64_t r0, int64_t r1,          \
                         int64_t groups, int64_t cg, int64_t s, T eps) {                                              \
    groups_bwd_##SUFFIX(x, go, w, gx, gwp, gbp, r0, r1, groups, cg, s, eps);                                          \
  }                                                                                                                   \
  inline T plane_sum(const T* x, int64_t n, T shift) { return plane_sum_##SUFFIX(x, n, shift); }                      \
  inline T plane_sq(const T* x, int64_t n, T mean) { return plane_sq_##SUFFIX(x, n, mean); }                          \
  inline T plane_dot(const T* g, const T* x, int64_t n, T mean) { return plane_dot_##SUFFIX(g, x, n, mean); }         \
  inline void plane_affine(const T* x, T* y, int64_t n, T mean, T scale, T shift) {                                   \
    plane_affine_##SUFFIX(x, y, n, mean, scale, shift);                                                               \
  }                                                                                                                   \
  inline void plane_bn_grad(const T* g, const T* x, T* dx, int64_t n, T mean, T a, T c, T k) {                        \
    plane_bn_grad_##SUFFIX(g, x, dx, n, mean, a, c, k);                                                               \
  }
BURN_CPU_NORM_OVERLOADS(float, f32)
BURN_CPU_NORM_OVERLOADS(double, f64)
#undef BURN_CPU_NORM_OVERLOADS

}  // namespace

void norm_rows_forward(const float* x, float* y, int64_t rows, int64_t n, const float* w, const float* b, float eps,
                       bool rms) {
  rows_fwd(x, y, rows, n, w, b, eps, rms);
}
void norm_rows_forward(const double* x, double* y, int64_t rows, int64_t n, const double* w, const double* b,
                       double eps, bool rms) {
  rows_fwd(x, y, rows, n, w, b, eps, rms);
}

namespace {

// Rows per task for rows of n elements.
int64_t row_grain(int64_t n) { return std::max<int64_t>(1, kNormGrain / std::max<int64_t>(1, n)); }

// x made contiguous, and the output buffer: x's own when the caller handed over its only handle or x is
// a fresh copy (every kernel here reads a row or plane's statistics before writing it).
std::pair<CpuPtr, CpuPtr> in_out(Prim& xp, const char* op) {
  const Shape shape = xp->shape();
  const DType dt = xp->dtype();
  CpuPtr out = output_for(xp, shape, dt);
  CpuPtr x = out ? out : contiguous(as_cpu(xp, op));
  if (!out && x.get() != xp.get()) out = x;
  xp.reset();
  if (!out) out = alloc(shape, dt);
  return {x, out};
}

// [M, N] rows for layer/rms norm.
std::pair<int64_t, int64_t> rows_of(const Shape& s, size_t nd) {
  int64_t m = 1, n = 1;
  for (size_t i = 0; i < s.rank(); ++i) (i + nd < s.rank() ? m : n) *= s[i];
  return {m, n};
}

Prim rows_norm(Prim xp, Prim wp, Prim bp, size_t nd, double eps, bool rms, const char* op) {
  const DType dt = xp->dtype();
  require_float(dt, op);
  const CpuPtr w = cont(wp, op), b = cont(bp, op);
  shape_rules::layer_norm_params(xp->shape(), nd, op);
  const auto [x, out] = in_out(xp, op);
  const auto [m, n] = rows_of(x->shape(), nd);
  if (m * n == 0) return out;
  dispatch<Dtypes::Float>(dt, op, [&]<typename T>() {
    const T* px = x->data<T>();
    T* py = out->data<T>();
    const T* pw = ptr<T>(w);
    const T* pb = ptr<T>(b);
    parallel_for(m, row_grain(n), [&](int64_t r0, int64_t r1) {
      rows_fwd(px + r0 * n, py + r0 * n, r1 - r0, n, pw, pb, static_cast<T>(eps), rms);
    });
  });
  return out;
}

// Blocks of rows with their own grad_w/grad_b partial sums, reduced at the end (no shared writes).
Prims rows_norm_backward(Prim xp, Prim wp, Prim gp, size_t nd, double eps, bool rms, const char* op) {
  const DType dt = xp->dtype();
  require_float(dt, op);
  const Shape shape = xp->shape();
  const CpuPtr x = contiguous(as_cpu(xp, op)), go = contiguous(as_cpu(gp, op));
  const CpuPtr w = cont(wp, op);
  xp.reset();
  const Shape wshape = shape_rules::layer_norm_params(shape, nd, op);
  const auto [m, n] = rows_of(shape, nd);
  const CpuPtr gx = alloc(shape, dt);
  const CpuPtr gw = w ? alloc(wshape, dt) : nullptr;
  const CpuPtr gb = rms ? nullptr : alloc(wshape, dt);
  dispatch<Dtypes::Float>(dt, op, [&]<typename T>() {
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(m, 4 * static_cast<int64_t>(num_threads())));
    std::vector<T> pw(static_cast<size_t>(blocks * n), T(0)), pb(static_cast<size_t>(blocks * n), T(0));
    const T* px = x->data<T>();
    const T* pg = go->data<T>();
    const T* ww = ptr<T>(w);
    T* pdx = gx->data<T>();
    if (m * n > 0)
      parallel_for(blocks, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t bi = b0; bi < b1; ++bi) {
          const int64_t r0 = bi * m / blocks, r1 = (bi + 1) * m / blocks;
          rows_bwd(px + r0 * n, pg + r0 * n, ww, pdx + r0 * n, pw.data() + bi * n, pb.data() + bi * n, r1 - r0, n,
                   static_cast<T>(eps), rms);
        }
      });
    for (const auto& [dst, part] : {std::pair{gw, &pw}, std::pair{gb, &pb}}) {
      if (!dst) continue;
      T* d = dst->template data<T>();
      std::fill(d, d + n, T(0));
      for (int64_t bi = 0; bi < blocks; ++bi)
        for (int64_t j = 0; j < n; ++j) d[j] += (*part)[static_cast<size_t>(bi * n + j)];
    }
  });
  return {gx, gw, gb};
}

// [N, C, S] of an NC<spatial> shape.
struct Ncs {
  int64_t n, c, s;
};
Ncs ncs_of(const Shape& sh) {
  int64_t s = 1;
  for (size_t i = 2; i < sh.rank(); ++i) s *= sh[i];
  return {sh[0], sh[1], s};
}

// Per-channel batch mean and biased variance of x [N, C, S], combined from per-plane sums in double.
template <typename T>
void channel_stats(const T* x, Ncs d, std::vector<double>& mean, std::vector<double>& var) {
  const int64_t planes = d.n * d.c;
  std::vector<double> part(static_cast<size_t>(planes));
  const double count = static_cast<double>(d.n * d.s);
  const int64_t grain = row_grain(d.s);
  mean.assign(static_cast<size_t>(d.c), 0.0);
  var.assign(static_cast<size_t>(d.c), 0.0);
  parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) part[p] = static_cast<double>(plane_sum(x + p * d.s, d.s, T(0)));
  });
  for (int64_t p = 0; p < planes; ++p) mean[p % d.c] += part[p];
  for (double& v : mean) v /= count;
  parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      part[p] = static_cast<double>(plane_sq(x + p * d.s, d.s, static_cast<T>(mean[p % d.c])));
  });
  for (int64_t p = 0; p < planes; ++p) var[p % d.c] += part[p];
  for (double& v : var) v /= count;
}

template <typename T>
std::vector<double> to_doubles(const CpuPtr& t, int64_t n, double fallback) {
  std::vector<double> v(static_cast<size_t>(n), fallback);
  if (t)
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(t->data<T>()[i]);
  return v;
}

}  // namespace

Prim CpuBackend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) {
  return rows_norm(std::move(x), std::move(weight), std::move(bias), normalized_dims, eps, false, "layer_norm");
}

Prims CpuBackend::layer_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  return rows_norm_backward(std::move(x), std::move(weight), std::move(grad_out), normalized_dims, eps, false,
                            "layer_norm_backward");
}

Prim CpuBackend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) {
  return rows_norm(std::move(x), std::move(weight), nullptr, normalized_dims, eps, true, "rms_norm");
}

Prims CpuBackend::rms_norm_backward(Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps) {
  return rows_norm_backward(std::move(x), std::move(weight), std::move(grad_out), normalized_dims, eps, true,
                            "rms_norm_backward");
}

Prim CpuBackend::group_norm(Prim xp, Prim weight, Prim bias, int64_t num_groups, double eps) {
  static constexpr const char* op = "group_norm";
  const DType dt = xp->dtype();
  require_float(dt, op);
  const CpuPtr w = cont(weight, op), b = cont(bias, op);
  shape_rules::group_norm_params(xp->shape(), num_groups, op);
  const auto [x, out] = in_out(xp, op);
  const Ncs d = ncs_of(x->shape());
  const int64_t cg = d.c / num_groups, rows = d.n * num_groups;
  if (rows * cg * d.s == 0) return out;
  dispatch<Dtypes::Float>(dt, op, [&]<typename T>() {
    const T* px = x->data<T>();
    T* py = out->data<T>();
    parallel_for(rows, row_grain(cg * d.s), [&](int64_t r0, int64_t r1) {
      groups_fwd(px, py, r0, r1, num_groups, cg, d.s, ptr<T>(w), ptr<T>(b), static_cast<T>(eps));
    });
  });
  return out;
}

Prims CpuBackend::group_norm_backward(Prim xp, Prim weight, Prim grad_out, int64_t num_groups, double eps) {
  static constexpr const char* op = "group_norm_backward";
  const DType dt = xp->dtype();
  require_float(dt, op);
  const CpuPtr x = contiguous(as_cpu(xp, op)), go = contiguous(as_cpu(grad_out, op));
  const CpuPtr w = cont(weight, op);
  xp.reset();
  const Shape params = shape_rules::group_norm_params(x->shape(), num_groups, op);
  const Ncs d = ncs_of(x->shape());
  const int64_t cg = d.c / num_groups, rows = d.n * num_groups;
  const CpuPtr gx = alloc(x->shape(), dt);
  const CpuPtr gw = w ? alloc(params, dt) : nullptr;
  const CpuPtr gb = alloc(params, dt);
  dispatch<Dtypes::Float>(dt, op, [&]<typename T>() {
    std::vector<T> pw(static_cast<size_t>(d.n * d.c), T(0)), pb(static_cast<size_t>(d.n * d.c), T(0));
    if (rows * cg * d.s > 0)
      parallel_for(rows, row_grain(cg * d.s), [&](int64_t r0, int64_t r1) {
        groups_bwd(x->data<T>(), go->data<T>(), ptr<T>(w), gx->data<T>(), pw.data(), pb.data(), r0, r1, num_groups, cg,
                   d.s, static_cast<T>(eps));
      });
    T* db = gb->data<T>();
    T* dw = gw ? gw->data<T>() : nullptr;
    for (int64_t c = 0; c < d.c; ++c) {
      T sw = 0, sb = 0;
      for (int64_t n = 0; n < d.n; ++n) sw += pw[n * d.c + c], sb += pb[n * d.c + c];
      db[c] = sb;
      if (dw) dw[c] = sw;
    }
  });
  return {gx, gw, gb};
}

Prims CpuBackend::batch_norm(Prim xp, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training,
                             double momentum, double eps) {
  static constexpr const char* op = "batch_norm";
  const DType dt = xp->dtype();
  require_float(dt, op);
  const CpuPtr w = cont(weight, op), b = cont(bias, op), rm = cont(running_mean, op), rv = cont(running_var, op);
  const Shape params = shape_rules::batch_norm_params(xp->shape(), op);
  const auto [x, out] = in_out(xp, op);
  const Ncs d = ncs_of(x->shape());
  CpuPtr new_mean, new_var;
  dispatch<Dtypes::Float>(dt, op, [&]<typename T>() {
    std::vector<double> mean, var;
    if (training) {
      channel_stats<T>(x->data<T>(), d, mean, var);
      if (rm) {
        const double count = static_cast<double>(d.n * d.s), unbias = count / (count - 1.0);
        new_mean = alloc(params, dt);
        new_var = alloc(params, dt);
        for (int64_t c = 0; c < d.c; ++c) {
          new_mean->data<T>()[c] = static_cast<T>((1.0 - momentum) * rm->data<T>()[c] + momentum * mean[c]);
          new_var->data<T>()[c] = static_cast<T>((1.0 - momentum) * rv->data<T>()[c] + momentum * var[c] * unbias);
        }
      }
    } else {
      mean = to_doubles<T>(rm, d.c, 0.0);
      var = to_doubles<T>(rv, d.c, 1.0);
    }
    const std::vector<double> wv = to_doubles<T>(w, d.c, 1.0), bv = to_doubles<T>(b, d.c, 0.0);
    const T* px = x->data<T>();
    T* py = out->data<T>();
    parallel_for(d.n * d.c, row_grain(d.s), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % d.c;
        const double rstd = 1.0 / std::sqrt(var[c] + eps);
        plane_affine(px + p * d.s, py + p * d.s, d.s, static_cast<T>(mean[c]), static_cast<T>(rstd * wv[c]),
                     static_cast<T>(bv[c]));
      }
    });
  });
  return {out, new_mean, new_var};
}

Prims CpuBackend::batch_norm_backward(Prim xp, Prim weight, Prim running_mean, Prim running_var, Prim grad_out,
                                      bool training, double eps) {
  static constexpr const char* op = "batch_norm_backward";
  const DType dt = xp->dtype();
  require_float(dt, op);
  const CpuPtr x = contiguous(as_cpu(xp, op)), go = contiguous(as_cpu(grad_out, op));
  const CpuPtr w = cont(weight, op), rm = cont(running_mean, op), rv = cont(running_var, op);
  xp.reset();
  const Shape params = shape_rules::batch_norm_params(x->shape(), op);
  const Ncs d = ncs_of(x->shape());
  const CpuPtr gx = alloc(x->shape(), dt);
  const CpuPtr gw = w ? alloc(params, dt) : nullptr;
  const CpuPtr gb = alloc(params, dt);
  dispatch<Dtypes::Float>(dt, op, [&]<typename T>() {
    std::vector<double> mean, var;
    if (training)
      channel_stats<T>(x->data<T>(), d, mean, var);
    else
      mean = to_doubles<T>(rm, d.c, 0.0), var = to_doubles<T>(rv, d.c, 1.0);
    const std::vector<double> wv = to_doubles<T>(w, d.c, 1.0);
    const T* px = x->data<T>();
    const T* pg = go->data<T>();
    const int64_t planes = d.n * d.c;
    // A = sum(go * (x - mean)), B = sum(go) per channel.
    std::vector<double> pa(static_cast<size_t>(planes)), pbs(static_cast<size_t>(planes));
    parallel_for(planes, row_grain(2 * d.s), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        pa[p] = static_cast<double>(plane_dot(pg + p * d.s, px + p * d.s, d.s, static_cast<T>(mean[p % d.c])));
        pbs[p] = static_cast<double>(plane_sum(pg + p * d.s, d.s, T(0)));
      }
    });
    std::vector<double> a(static_cast<size_t>(d.c), 0.0), bsum(static_cast<size_t>(d.c), 0.0),
        rstd(static_cast<size_t>(d.c));
    for (int64_t p = 0; p < planes; ++p) a[p % d.c] += pa[p], bsum[p % d.c] += pbs[p];
    for (int64_t c = 0; c < d.c; ++c) {
      rstd[c] = 1.0 / std::sqrt(var[c] + eps);
      gb->data<T>()[c] = static_cast<T>(bsum[c]);
      if (gw) gw->data<T>()[c] = static_cast<T>(a[c] * rstd[c]);
    }
    // training: dx = rstd * w * (go - B/M - (x - mean) * rstd^2 * A/M); inference: dx = go * w * rstd.
    const double count = static_cast<double>(d.n * d.s);
    T* pdx = gx->data<T>();
    parallel_for(planes, row_grain(d.s), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % d.c;
        const double s = rstd[c];
        const double cterm = training ? bsum[c] / count : 0.0, kterm = training ? s * s * a[c] / count : 0.0;
        plane_bn_grad(pg + p * d.s, px + p * d.s, pdx + p * d.s, d.s, static_cast<T>(mean[c]),
                      static_cast<T>(s * wv[c]), static_cast<T>(cterm), static_cast<T>(kterm));
      }
    });
  });
  return {gx, gw, gb};
}

}  // namespace burn::cpu
