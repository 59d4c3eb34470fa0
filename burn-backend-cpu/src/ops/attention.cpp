// CPU kernel of scaled dot-product attention, flash-attention style: for each (batch, head, block of
// queries), in parallel, walk the keys in blocks with an online softmax (running max and sum per query
// row), so the [Lq, Lk] score matrix is never materialised: extra memory is one kQ x block_k score tile
// per task, whatever the sequence lengths. Block products go through single-threaded OpenBLAS GEMMs.
// Semantics (mask true = masked out, causal j > i top-left, fully masked row = NaN):
// burn-tensor/src/defaults/attention.cpp.

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/blas.hpp"
#include "ops/math_util.hpp"
#include "ops/norm_util.hpp"

namespace burn::cpu {
namespace {

// Queries per task.
constexpr int64_t kQ = 32;
// A [B, H, L, D] operand read in place when its rows are unit-stride, else a contiguous copy.
struct Operand {
  CpuPtr t;
  int64_t sb = 0, sh = 0, ld = 0;  // element strides of batch, head and row
};

Operand operand(const Prim& p, const char* op) {
  CpuPtr t = as_cpu(p, op);
  const Shape s = t->shape();  // a copy: t may be replaced by a contiguous copy below
  const auto& st = t->strides();
  const bool rows_ok = s[3] <= 1 || st[3] == 1;
  const bool ld_ok = s[2] <= 1 || st[2] >= s[3];
  if (!rows_ok || !ld_ok) t = contiguous(t);
  const auto& ss = t->strides();
  const int64_t ld = s[2] <= 1 ? std::max<int64_t>(s[3], 1) : std::max<int64_t>(ss[2], 1);
  return {t, s[0] == 1 ? 0 : ss[0], s[1] == 1 ? 0 : ss[1], ld};
}

// exp(v - m) for the probabilities: exactly 0 for masked (-inf) scores.
[[gnu::always_inline]] inline float exp_shifted(float v, float m) {
  return vselect(v == -std::numeric_limits<float>::infinity(), 0.0f, vexp(v - m));
}
[[gnu::always_inline]] inline double exp_shifted(double v, double m) { return std::exp(v - m); }

// One row of a score tile: masks, updates the running max m and sum l, turns scores into
// probabilities, and returns the factor by which the row's accumulated output must be rescaled.
template <typename T>
[[gnu::always_inline]] inline T online_softmax_row(T* s, int64_t n, T& m, T& l) {
  const T bmax = rowk::max<T>(s, n);
  if (bmax == -std::numeric_limits<T>::infinity()) {  // every key of this block masked
    for (int64_t j = 0; j < n; ++j) s[j] = T(0);
    return T(1);
  }
  const T mnew = m > bmax ? m : bmax;
  const T corr = m == -std::numeric_limits<T>::infinity() ? T(0) : static_cast<T>(std::exp(m - mnew));
  for (int64_t j = 0; j < n; ++j) s[j] = exp_shifted(s[j], mnew);
  const T sum = rowk::sum<T>(n, [&](int64_t j) { return s[j]; });
  l = l * corr + sum;
  m = mnew;
  return corr;
}

#define BURN_CPU_ATTN_ROW(T, SUFFIX)                                                                      \
  __attribute__((target_clones("avx2", "default"))) T softmax_row_##SUFFIX(T* s, int64_t n, T& m, T& l) { \
    return online_softmax_row<T>(s, n, m, l);                                                             \
  }
BURN_CPU_ATTN_ROW(float, f32)
BURN_CPU_ATTN_ROW(double, f64)
#undef BURN_CPU_ATTN_ROW
inline float softmax_row(float* s, int64_t n, float& m, float& l) { return softmax_row_f32(s, n, m, l); }
inline double softmax_row(double* s, int64_t n, double& m, double& l) { return softmax_row_f64(s, n, m, l); }

template <typename T>
Prim attention_kernel(const Prim& qp, const Prim& kp, const Prim& vp, const Prim& mp, bool causal, double scale_d,
                      const Shape& out_shape) {
  static constexpr const char* op = "attention";
  const Operand q = operand(qp, op), k = operand(kp, op), v = operand(vp, op);
  const Shape& qs = q.t->shape();
  const int64_t nb = qs[0], nh = qs[1], lq = qs[2], e = qs[3];
  const int64_t lk = k.t->shape()[2], ev = v.t->shape()[3];
  const CpuPtr out = alloc(out_shape, q.t->dtype());
  if (nb * nh * lq * ev == 0) return out;

  // The mask read in place through its (broadcast) strides.
  CpuPtr mask = mp ? as_cpu(mp, op) : nullptr;
  int64_t mst[4] = {0, 0, 0, 0};
  if (mask)
    for (int d = 0; d < 4; ++d) mst[d] = mask->shape()[d] == 1 ? 0 : mask->strides()[d];
  const uint8_t* pm = mask ? mask->data<uint8_t>() : nullptr;

  // Keys per block: the largest multiple of 16 keeping both block GEMMs below OpenBLAS's threading threshold.
  const int64_t widest = std::max<int64_t>({e, ev, 1});
  const int64_t kb = std::clamp<int64_t>((kBlasSerialWork - 1) / (kQ * widest) / 16 * 16, 16, 512);
  const int64_t qblocks = (lq + kQ - 1) / kQ;
  const T scale = static_cast<T>(scale_d);
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const T* pq = q.t->data<T>();
  const T* pk = k.t->data<T>();
  const T* pv = v.t->data<T>();
  T* po = out->data<T>();

  // Cost per task ~ kQ * Lk * (E + Ev) multiply-adds: one task per chunk is plenty.
  parallel_for(nb * nh * qblocks, 1, [&](int64_t t0, int64_t t1) {
    std::vector<T> tile(static_cast<size_t>(kQ * kb));
    T row_max[kQ], row_sum[kQ];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bh = t / qblocks, b = bh / nh, h = bh % nh;
      const int64_t i0 = (t % qblocks) * kQ, rows = std::min(kQ, lq - i0);
      const T* qb = pq + b * q.sb + h * q.sh + i0 * q.ld;
      const T* kbase = pk + b * k.sb + h * k.sh;
      const T* vbase = pv + b * v.sb + h * v.sh;
      T* ob = po + ((b * nh + h) * lq + i0) * ev;
      const uint8_t* mb = pm ? pm + b * mst[0] + h * mst[1] : nullptr;
      std::fill(ob, ob + rows * ev, T(0));
      std::fill(row_max, row_max + rows, kNegInf);
      std::fill(row_sum, row_sum + rows, T(0));
      // Causal: keys past the block's last query are masked for every row; stop there.
      const int64_t kend = causal ? std::min(lk, i0 + rows) : lk;
      for (int64_t j0 = 0; j0 < kend; j0 += kb) {
        const int64_t cols = std::min(kb, kend - j0);
        T* s = tile.data();
        if (e > 0)
          blas_gemm(false, true, rows, cols, e, scale, qb, q.ld, kbase + j0 * k.ld, k.ld, T(0), s, kb);
        else
          std::fill(s, s + rows * kb, T(0));
        for (int64_t r = 0; r < rows; ++r) {
          T* sr = s + r * kb;
          const int64_t i = i0 + r;
          if (causal)
            for (int64_t j = std::max<int64_t>(i + 1 - j0, 0); j < cols; ++j) sr[j] = kNegInf;
          if (mb) {
            const uint8_t* mr = mb + i * mst[2] + j0 * mst[3];
            if (mst[3] == 1) {
              for (int64_t j = 0; j < cols; ++j) {
                const T v = sr[j];  // loaded before the select, so the loop vectorises
                sr[j] = mr[j] ? kNegInf : v;
              }
            } else {
              for (int64_t j = 0; j < cols; ++j) sr[j] = mr[j * mst[3]] ? kNegInf : sr[j];
            }
          }
          const T corr = softmax_row(sr, cols, row_max[r], row_sum[r]);
          if (corr != T(1)) {
            T* orow = ob + r * ev;
            for (int64_t c = 0; c < ev; ++c) orow[c] *= corr;
          }
        }
        blas_gemm(false, false, rows, ev, cols, T(1), s, kb, vbase + j0 * v.ld, v.ld, T(1), ob, ev);
      }
      for (int64_t r = 0; r < rows; ++r) {
        // A row with every key masked has l = 0: NaN, as softmax over all -inf in the reference math.
        const T inv = row_sum[r] > T(0) ? T(1) / row_sum[r] : std::numeric_limits<T>::quiet_NaN();
        T* orow = ob + r * ev;
        for (int64_t c = 0; c < ev; ++c) orow[c] *= inv;
      }
    }
  });
  return out;
}

}  // namespace

Prim CpuBackend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) {
  static constexpr const char* op = "attention";
  const DType dt = query->dtype();
  require_float(dt, op);
  const Shape out =
      shape_rules::attention(query->shape(), key->shape(), value->shape(), mask ? &mask->shape() : nullptr, op);
  const int64_t e = query->shape()[3];
  const double scale = options.scale ? *options.scale : 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(e, 1)));
  // The api gives rank 4; a direct caller's lower rank broadcasts from the right.
  if (mask && mask->shape().rank() < 4) {
    const Shape m4 = shape_rules::attention_mask_4d(mask->shape());
    mask = reshape(std::move(mask), m4);
  }
  return dispatch<Dtypes::Float>(dt, op, [&]<typename T>() -> Prim {
    return attention_kernel<T>(query, key, value, mask, options.causal, scale, out);
  });
}

}  // namespace burn::cpu
