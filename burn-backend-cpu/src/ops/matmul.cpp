// Batched matmul on the cpu backend (torch.matmul semantics for operands of equal rank >= 2): f32/f64
// through OpenBLAS GEMM (ops/blas.hpp), reading strided and transposed views in place; i64/i32 with a blocked loop.
// f32 products with one right operand for all rows run the packed GEMM (ops/gemm_packed.hpp) instead: a right
// operand that comes back unchanged (a layer's weight at inference) is packed once and kept, any other is packed
// for its call, so a product's bits never depend on whether its operand was cached (a resumed run equals a
// straight one).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "ops/blas.hpp"
#include "ops/gemm_packed.hpp"
#include "ops/math_util.hpp"
#include "ops/pack_cache.hpp"

namespace burn::cpu {
namespace {

// Multiply-adds per pool task when looping over a batch.
constexpr int64_t kMatmulGrain = 1 << 16;

// How GEMM can read the last two dims of a view in place: row-major with leading dim `ld`,
// transposed or not. nullopt when it needs a copy.
struct GemmLayout {
  bool trans = false;
  int64_t ld = 0;
};

std::optional<GemmLayout> gemm_layout(const CpuTensor& t) {
  const size_t r = t.shape().rank();
  const int64_t rows = t.shape()[r - 2], cols = t.shape()[r - 1];
  const int64_t rs = t.strides()[r - 2], cs = t.strides()[r - 1];
  // A dim of size 1 may carry any stride; it never steps.
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1)))
    return GemmLayout{false, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1)))
    return GemmLayout{true, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
  return std::nullopt;
}

PackCache<PackedRhs>& packed_rhs_cache() {
  static PackCache<PackedRhs> cache(PackWhen::SecondCall, pack_cache_budget());
  return cache;
}

// Whether f32 products may take the packed GEMM: the CPU has its kernels and BURN_CPU_PACKED_MATMUL is not
// "off" (read once).
bool packed_matmul_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("BURN_CPU_PACKED_MATMUL");
    return packed_gemm_available() && !(env && std::strcmp(env, "off") == 0);
  }();
  return on;
}

// The packed form of b (k x n, as `lb` reads it): the cache's, or one made for this call when it keeps none.
std::shared_ptr<const PackedRhs> packed_rhs(const CpuPtr& b, const GemmLayout& lb, int64_t k, int64_t n) {
  const auto pack = [&](const CpuPtr& v) { return pack_rhs(v->data<float>(), lb.ld, lb.trans, k, n); };
  if (auto cached = packed_rhs_cache().get(b, pack, [](const PackedRhs& p) { return p.bytes(); })) return cached;
  return std::make_shared<const PackedRhs>(pack(b));
}

template <typename T>
void gemm(const GemmLayout& la, const GemmLayout& lb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  blas_gemm(la.trans, lb.trans, m, n, k, T(1), a, la.ld, b, lb.ld, T(0), c, n);
}

// C (m x n) = A (m x k) * B (k x n), all contiguous row-major; wrapping int arithmetic.
// Blocked over k and n so one C row segment and a panel of B rows stay in cache.
template <typename T>
void int_gemm_rows(const T* a, const T* b, T* c, int64_t row0, int64_t row1, int64_t n, int64_t k) {
  using U = std::make_unsigned_t<T>;
  constexpr int64_t kNb = 512, kKb = 128;
  for (int64_t i = row0; i < row1; ++i) std::fill(c + i * n, c + (i + 1) * n, T(0));
  for (int64_t j0 = 0; j0 < n; j0 += kNb) {
    const int64_t j1 = std::min(n, j0 + kNb);
    for (int64_t p0 = 0; p0 < k; p0 += kKb) {
      const int64_t p1 = std::min(k, p0 + kKb);
      for (int64_t i = row0; i < row1; ++i) {
        U* crow = reinterpret_cast<U*>(c + i * n);
        for (int64_t p = p0; p < p1; ++p) {
          const U av = static_cast<U>(a[i * k + p]);
          const U* brow = reinterpret_cast<const U*>(b + p * n);
          for (int64_t j = j0; j < j1; ++j) crow[j] += av * brow[j];
        }
      }
    }
  }
}

}  // namespace

uint64_t packed_matmul_packs() { return packed_rhs_cache().packs(); }
size_t packed_matmul_cached() { return packed_rhs_cache().cached(); }

Prim CpuBackend::matmul(Prim lhs, Prim rhs) {
  static constexpr const char* op = "matmul";
  CpuPtr a = as_cpu(lhs, op), b = as_cpu(rhs, op);
  lhs.reset();
  rhs.reset();
  require_same_dtype(a->dtype(), b->dtype(), op);
  require_numeric(op, a->dtype());
  // Copies: `a` and `b` may be replaced by contiguous copies below, freeing the views these came from.
  const Shape sa = a->shape();
  const Shape sb = b->shape();
  const Shape out_shape = shape_rules::matmul(sa, sb);
  const size_t rank = sa.rank();
  const int64_t m = sa[rank - 2], k = sa[rank - 1], n = sb[rank - 1];
  int64_t batch = 1;  // broadcast batch dims read with stride 0, so nothing is copied
  for (size_t d = 0; d + 2 < rank; ++d) batch *= out_shape[d];
  const CpuPtr out = alloc(out_shape, a->dtype());
  if (batch * m * n == 0) return out;

  const bool is_float = a->dtype() == DType::F32 || a->dtype() == DType::F64;
  std::optional<GemmLayout> la, lb;
  if (is_float) {
    la = gemm_layout(*a);
    lb = gemm_layout(*b);
  }
  if (!la) a = contiguous(a), la = GemmLayout{false, std::max<int64_t>(k, 1)};
  if (!lb) b = contiguous(b), lb = GemmLayout{false, std::max<int64_t>(n, 1)};

  // Element offsets of every batch's matrix, walking the broadcast batch dims as an odometer.
  const size_t nb = rank - 2;
  std::vector<int64_t> a_off(batch), b_off(batch);
  {
    std::vector<int64_t> idx(nb, 0);
    int64_t oa = 0, ob = 0;
    for (int64_t i = 0; i < batch; ++i) {
      a_off[i] = oa, b_off[i] = ob;
      for (size_t d = nb; d-- > 0;) {
        const int64_t sa_d = sa[d] == 1 ? 0 : a->strides()[d], sb_d = sb[d] == 1 ? 0 : b->strides()[d];
        ++idx[d], oa += sa_d, ob += sb_d;
        if (idx[d] < out_shape[d]) break;
        oa -= idx[d] * sa_d, ob -= idx[d] * sb_d, idx[d] = 0;
      }
    }
  }
  const int64_t work = m * n * std::max<int64_t>(k, 1);

  if (is_float) {
    return dispatch<Dtypes::Float>(a->dtype(), op, [&]<typename T>() -> Prim {
      const T* pa = a->data<T>();
      const T* pb = b->data<T>();
      T* pc = out->data<T>();
      if (k == 0) {
        std::fill(pc, pc + batch * m * n, T(0));
        return out;
      }
      // One shared rhs and lhs rows evenly spaced across the batch (e.g. [B, T, C] x [1, C, D]):
      // fold the batch into M for one big GEMM.
      bool fold = batch > 1 && !la->trans;
      for (int64_t i = 1; fold && i < batch; ++i) fold = b_off[i] == b_off[0] && a_off[i] - a_off[i - 1] == m * la->ld;
      // One right operand for every row (batch 1 or folded), A's rows in place, more than a vector product:
      // the packed GEMM, whether or not b was packed before (the same bits either way).
      if constexpr (std::is_same_v<T, float>) {
        const int64_t rows = fold ? batch * m : m;
        if ((fold || batch == 1) && !la->trans && rows > 1 && n > 1 && packed_matmul_enabled()) {
          packed_gemm(rows, pa + a_off[0], la->ld, *packed_rhs(b, *lb, k, n), pc, n);
          return out;
        }
      }
      // Many products: whole matrices per pool task (each GEMM then runs on its task's thread); a
      // few big ones: one after another, each split over the pool.
      if (fold) {
        gemm<T>(*la, *lb, batch * m, n, k, pa + a_off[0], pb + b_off[0], pc);
      } else if (batch > 1 && (work < kBlasSerialWork || batch >= 2 * static_cast<int64_t>(num_threads()))) {
        parallel_for(batch, std::max<int64_t>(1, kMatmulGrain / work), [&](int64_t s, int64_t e) {
          for (int64_t i = s; i < e; ++i) gemm<T>(*la, *lb, m, n, k, pa + a_off[i], pb + b_off[i], pc + i * m * n);
        });
      } else {
        for (int64_t i = 0; i < batch; ++i) gemm<T>(*la, *lb, m, n, k, pa + a_off[i], pb + b_off[i], pc + i * m * n);
      }
      return out;
    });
  }

  // Parallel over (batch, row) pairs; each row walks the whole rhs.
  const auto int_matmul = [&]<typename T>() -> Prim {
    const T* pa = a->data<T>();
    const T* pb = b->data<T>();
    T* pc = out->data<T>();
    parallel_for(batch * m, std::max<int64_t>(1, kMatmulGrain / std::max<int64_t>(1, n * k)),
                 [&](int64_t s, int64_t e) {
                   while (s < e) {
                     const int64_t bi = s / m, r0 = s % m, r1 = std::min(m, r0 + (e - s));
                     int_gemm_rows<T>(pa + a_off[bi], pb + b_off[bi], pc + bi * m * n, r0, r1, n, k);
                     s += r1 - r0;
                   }
                 });
    return out;
  };
  return a->dtype() == DType::I64 ? int_matmul.template operator()<int64_t>()
                                  : int_matmul.template operator()<int32_t>();
}

}  // namespace burn::cpu
