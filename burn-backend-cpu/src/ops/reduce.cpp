// Reductions, scans and sorting on the cpu backend: sum/mean/prod/max/min/any/all over one dim or the
// whole tensor, argmax/argmin, var, cumsum/cumprod/cummax/cummin, sort/argsort/topk.
// Every kernel sees its input as contiguous outer x n x inner lanes: inner == 1 is a row reduction
// (vectorised with 16 independent accumulators), inner > 1 a column reduction (vectorised across columns).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "convert.hpp"
#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "half_convert.hpp"
#include "ops/math_util.hpp"
#include "ops/reduce_kernels.hpp"
#include "ops/simd_avx2.hpp"

namespace burn::cpu {
namespace {

using namespace reducek;

// A source (DenseSource: a contiguous input read in place; Bf16Source below) whose row folds run compiled for AVX2
// where the CPU has it: this file is built for the x86-64 baseline (and for bf16 the conversions make the SSE2 loop
// the bound at 1 thread). The same 16 lanes are folded in the same order (no operator multiplies, so nothing
// contracts into an FMA): the same bits as the baseline fold and the fused executor's. reduce_lanes' call finds
// these through AvxFold's namespace (more specialised than the generic fold).
template <class Source>
struct AvxFold : Source {};

template <class Op, typename T, class Source>
[[gnu::flatten]] BURN_AVX2_FMA typename Op::A reduce_row_avx2(AvxFold<Source>& src, Lanes l, int64_t o, int64_t k0,
                                                              int64_t len) {
  return reducek::reduce_row<Op, T, Source>(src, l, o, k0, len);
}
template <class Op, typename T, class Source>
typename Op::A reduce_row(AvxFold<Source>& src, Lanes l, int64_t o, int64_t k0, int64_t len) {
  if (cpu_has_avx2_fma()) return reduce_row_avx2<Op, T>(src, l, o, k0, len);
  return reducek::reduce_row<Op, T, Source>(src, l, o, k0, len);
}

template <template <typename> class OpT, bool kOutBool = false>
Prim reduce_dim(const char* op, const Prim& xp, size_t dim, bool any_dtype = false) {
  const CpuPtr x = contiguous(as_cpu(xp, op));
  const Shape out_shape = shape_rules::reduce_dim(x->shape(), dim, false, op);
  const Lanes l = lanes_of(x->shape(), dim);
  auto run = [&]<typename T>() -> Prim {
    using Op = OpT<T>;
    const CpuPtr out = alloc(out_shape, kOutBool ? DType::Bool : x->dtype());
    reduce_lanes<Op, T>([&](int64_t) { return AvxFold<DenseSource<T>>{{x->data<T>()}}; }, out->data<typename Op::O>(),
                        l);
    return out;
  };
  if (any_dtype) return dispatch<Dtypes::Computing>(x->dtype(), op, run);
  return dispatch<Dtypes::Numeric>(x->dtype(), op, run);
}

template <template <typename> class OpT, bool kOutBool = false>
Prim reduce_all(const char* op, const Prim& xp, bool any_dtype = false) {
  const CpuPtr x = contiguous(as_cpu(xp, op));
  const Lanes l{1, x->shape().num_elements(), 1};
  auto run = [&]<typename T>() -> Prim {
    using Op = OpT<T>;
    const CpuPtr out = alloc(shape_rules::reduce_all(x->shape(), false, op), kOutBool ? DType::Bool : x->dtype());
    reduce_lanes<Op, T>([&](int64_t) { return AvxFold<DenseSource<T>>{{x->data<T>()}}; }, out->data<typename Op::O>(),
                        l);
    return out;
  };
  if (any_dtype) return dispatch<Dtypes::Computing>(x->dtype(), op, run);
  return dispatch<Dtypes::Numeric>(x->dtype(), op, run);
}

// ---- argmax / argmin, optionally with the values ----

template <bool kMax>
PrimPair arg_reduce(const char* op, const Prim& xp, size_t dim, bool with_values) {
  const CpuPtr x = contiguous(as_cpu(xp, op));
  const Shape out_shape = shape_rules::reduce_dim(x->shape(), dim, true, op);
  const Lanes l = lanes_of(x->shape(), dim);
  return dispatch<Dtypes::Numeric>(x->dtype(), op, [&]<typename T>() {
    const CpuPtr idx = alloc(out_shape, DType::I64);
    CpuPtr vals = with_values ? alloc(out_shape, x->dtype()) : nullptr;
    // No output: no lane (inner may be 2^63 - 1 next to a zero dim, and its column chunks overflow).
    if (out_shape.num_elements() == 0) return PrimPair{vals, idx};
    arg_lanes<kMax, T>([&](int64_t) { return DenseSource<T>{x->data<T>()}; }, vals ? vals->data<T>() : nullptr,
                       idx->data<int64_t>(), l);
    return PrimPair{vals, idx};
  });
}

// ---- var: two passes per lane (mean, then squared deviations) ----

template <typename T>
void var_lanes(const T* x, T* out, Lanes l, int64_t correction) {
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const T divisor = static_cast<T>(std::max<int64_t>(0, n - correction));
  const int64_t col_chunks = (inner + kCols - 1) / kCols;
  const int64_t width = std::min(inner, kCols);
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, 2 * n * width));
  parallel_for(outer * col_chunks, grain, [&](int64_t b, int64_t e) {
    T mean[kCols], ss[kCols];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / col_chunks, j0 = (t % col_chunks) * kCols;
      const int64_t w = std::min(kCols, inner - j0);
      const T* base = x + o * n * inner + j0;
      if (inner == 1) {
        const T m = reducek::reduce_row<SumOp<T>>(base, n) / static_cast<T>(n);
        T lane[kLanes] = {};
        int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes)
          for (int j = 0; j < kLanes; ++j) lane[j] += (base[i + j] - m) * (base[i + j] - m);
        for (; i < n; ++i) lane[0] += (base[i] - m) * (base[i] - m);
        T s = 0;
        for (int j = 0; j < kLanes; ++j) s += lane[j];
        out[o] = s / divisor;
        continue;
      }
      reduce_cols<SumOp<T>>(base, 0, n, inner, w, mean, ss);
      for (int64_t j = 0; j < w; ++j) mean[j] /= static_cast<T>(n), ss[j] = 0;
      for (int64_t k = 0; k < n; ++k) {
        const T* r = base + k * inner;
        for (int64_t j = 0; j < w; ++j) ss[j] += (r[j] - mean[j]) * (r[j] - mean[j]);
      }
      for (int64_t j = 0; j < w; ++j) out[o * inner + j0 + j] = ss[j] / divisor;
    }
  });
}

// ---- scans ----

template <class Op, typename T>
void scan_lanes(const T* x, T* y, Lanes l) {
  using A = typename Op::A;
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const int64_t col_chunks = (inner + kCols - 1) / kCols;
  const int64_t width = std::min(inner, kCols);
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n * width));
  parallel_for(outer * col_chunks, grain, [&](int64_t b, int64_t e) {
    A acc[kCols];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / col_chunks, j0 = (t % col_chunks) * kCols;
      const int64_t w = std::min(kCols, inner - j0);
      const int64_t off = o * n * inner + j0;
      for (int64_t j = 0; j < w; ++j) acc[j] = Op::init();
      for (int64_t k = 0; k < n; ++k) {
        const T* r = x + off + k * inner;
        T* q = y + off + k * inner;
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = Op::step(acc[j], r[j]);
          q[j] = narrow<T>(acc[j]);
        }
      }
    }
  });
}

template <template <typename> class OpT>
Prim scan(const char* op, const Prim& xp, size_t dim) {
  const CpuPtr x = contiguous(as_cpu(xp, op));
  const Lanes l = lanes_of(shape_rules::along_dim(x->shape(), dim, op), dim);
  return dispatch<Dtypes::Numeric>(x->dtype(), op, [&]<typename T>() -> Prim {
    const CpuPtr out = alloc(x->shape(), x->dtype());
    // No elements: nothing to scan, though outer * inner lanes (of length 0) may number 2^62.
    if (x->shape().num_elements() > 0) scan_lanes<OpT<T>>(x->data<T>(), out->data<T>(), l);
    return out;
  });
}

// ---- sorting ----

// Ascending order with NaN last; descending with NaN first (NaN sorts as the largest, as PyTorch).
template <typename T>
struct SortLess {
  bool descending;
  bool operator()(T a, T b) const {
    if (descending) return a > b || (is_nan(a) && !is_nan(b));
    return a < b || (is_nan(b) && !is_nan(a));
  }
};

// Sorts every lane of contiguous x along n; `keep` (<= n) elements go to vals/idx (either may be null).
// Ties keep their original order, so the result is stable whatever `keep` is.
template <typename T>
void sort_lanes(const T* x, T* vals, int64_t* idx, Lanes l, int64_t keep, bool descending) {
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const SortLess<T> less{descending};
  using Item = std::pair<T, int64_t>;
  const auto by_value = [&](const Item& a, const Item& b) { return less(a.first, b.first); };
  const auto total_order = [&](const Item& a, const Item& b) {
    return less(a.first, b.first) || (!less(b.first, a.first) && a.second < b.second);
  };
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n * 8));
  parallel_for(outer * inner, grain, [&](int64_t b, int64_t e) {
    std::vector<Item> buf(static_cast<size_t>(n));
    for (int64_t lane = b; lane < e; ++lane) {
      const int64_t o = lane / inner, j = lane % inner;
      const T* src = x + o * n * inner + j;
      for (int64_t k = 0; k < n; ++k) buf[k] = {src[k * inner], k};
      if (keep * 4 < n)
        std::partial_sort(buf.begin(), buf.begin() + keep, buf.end(), total_order);
      else
        std::stable_sort(buf.begin(), buf.end(), by_value);
      const int64_t dst = o * keep * inner + j;
      for (int64_t k = 0; k < keep; ++k) {
        if (vals) vals[dst + k * inner] = buf[k].first;
        if (idx) idx[dst + k * inner] = buf[k].second;
      }
    }
  });
}

PrimPair sort_impl(const char* op, const Prim& xp, size_t dim, int64_t keep, bool descending, bool values,
                   bool indices) {
  const CpuPtr x = contiguous(as_cpu(xp, op));
  const Shape out_shape =
      keep < 0 ? shape_rules::along_dim(x->shape(), dim, op) : shape_rules::topk(x->shape(), keep, dim, op);
  const Lanes l = lanes_of(x->shape(), dim);
  if (keep < 0) keep = l.n;
  return dispatch<Dtypes::Numeric>(x->dtype(), op, [&]<typename T>() {
    CpuPtr v = values ? alloc(out_shape, x->dtype()) : nullptr;
    CpuPtr i = indices ? alloc(out_shape, DType::I64) : nullptr;
    if (out_shape.num_elements() == 0) return PrimPair{v, i};  // no lane to sort, however many of length 0
    sort_lanes<T>(x->data<T>(), v ? v->data<T>() : nullptr, i ? i->data<int64_t>() : nullptr, l, keep, descending);
    return PrimPair{v, i};
  });
}

// ---- f16/bf16 input: the f32 kernels over widened spans ----

// A reduction kernel's source over a contiguous f16/bf16 input: its spans widened to f32.
auto widened_source(const uint16_t* x, DType h, int64_t end) {
  return make_filled_source<float>(end, [x, h](int64_t s, int64_t n, float* dst) { widen_to_f32(h, x + s, dst, n); });
}

// A span of a bf16 input read in place, each element widened as the kernel reads it (bfloat_to_float: a shift), so
// the f32 kernel's loops fold straight from the 16-bit data: no buffer to write and read back, the same folds.
struct Bf16View {
  const uint16_t* p;
  float operator[](int64_t i) const { return bfloat_to_float(p[i]); }
  Bf16View operator+(int64_t k) const { return {p + k}; }
};
struct Bf16Source {
  static constexpr int64_t kMaxSpan = std::numeric_limits<int64_t>::max();
  const uint16_t* x;
  Bf16View span(int64_t a, int64_t) const { return {x + a}; }
};

template <template <typename> class OpT>
Prim reduce_widened_lanes(const CpuPtr& x, const Shape& out_shape, Lanes l) {
  const CpuPtr out = alloc(out_shape, DType::F32);
  const uint16_t* p = x->data<uint16_t>();
  const DType h = x->dtype();
  if (h == DType::BF16) {
    reduce_lanes<OpT<float>, float>([p](int64_t) { return AvxFold<Bf16Source>{{p}}; }, out->data<float>(), l);
    return out;
  }
  auto src = [&](int64_t end) { return widened_source(p, h, end); };
  reduce_lanes<OpT<float>, float>(src, out->data<float>(), l);
  return out;
}

template <bool kMax>
Prim arg_widened(const CpuPtr& x, size_t dim, const char* op) {
  const Shape out_shape = shape_rules::reduce_dim(x->shape(), dim, true, op);
  const CpuPtr idx = alloc(out_shape, DType::I64);
  if (out_shape.num_elements() == 0) return idx;
  const uint16_t* p = x->data<uint16_t>();
  const DType h = x->dtype();
  auto src = [&](int64_t end) { return widened_source(p, h, end); };
  arg_lanes<kMax, float>(src, nullptr, idx->data<int64_t>(), lanes_of(x->shape(), dim));
  return idx;
}

}  // namespace

Prim reduce_widened(OpId op, const Prim& xp, size_t dim) {
  const char* name = op_info(op).name;
  switch (op) {
    case OpId::sum:
    case OpId::mean:
    case OpId::prod:
    case OpId::max:
    case OpId::min:
    case OpId::sum_dim:
    case OpId::mean_dim:
    case OpId::prod_dim:
    case OpId::max_dim:
    case OpId::min_dim:
    case OpId::argmax:
    case OpId::argmin: break;
    default: return nullptr;
  }
  const CpuTensor* t = xp ? dynamic_cast<const CpuTensor*>(xp.get()) : nullptr;
  if (!t || !is_half(t->dtype())) return nullptr;
  const CpuPtr x = contiguous(as_cpu(xp, name));
  const Shape& s = x->shape();
  const Lanes all{1, s.num_elements(), 1};
  switch (op) {
    case OpId::sum: return reduce_widened_lanes<SumOp>(x, shape_rules::reduce_all(s, false, name), all);
    case OpId::mean: return reduce_widened_lanes<MeanOp>(x, shape_rules::reduce_all(s, false, name), all);
    case OpId::prod: return reduce_widened_lanes<ProdOp>(x, shape_rules::reduce_all(s, false, name), all);
    case OpId::max: return reduce_widened_lanes<MaxOp>(x, shape_rules::reduce_all(s, true, name), all);
    case OpId::min: return reduce_widened_lanes<MinOp>(x, shape_rules::reduce_all(s, true, name), all);
    case OpId::sum_dim:
      return reduce_widened_lanes<SumOp>(x, shape_rules::reduce_dim(s, dim, false, name), lanes_of(s, dim));
    case OpId::mean_dim:
      return reduce_widened_lanes<MeanOp>(x, shape_rules::reduce_dim(s, dim, false, name), lanes_of(s, dim));
    case OpId::prod_dim:
      return reduce_widened_lanes<ProdOp>(x, shape_rules::reduce_dim(s, dim, false, name), lanes_of(s, dim));
    case OpId::max_dim:
      return reduce_widened_lanes<MaxOp>(x, shape_rules::reduce_dim(s, dim, true, name), lanes_of(s, dim));
    case OpId::min_dim:
      return reduce_widened_lanes<MinOp>(x, shape_rules::reduce_dim(s, dim, true, name), lanes_of(s, dim));
    case OpId::argmax: return arg_widened<true>(x, dim, name);
    case OpId::argmin: return arg_widened<false>(x, dim, name);
    default: return nullptr;
  }
}

// ---- overrides ----

Prim CpuBackend::sum(Prim x) { return reduce_all<SumOp>("sum", x); }
Prim CpuBackend::sum_dim(Prim x, size_t dim) { return reduce_dim<SumOp>("sum_dim", x, dim); }
Prim CpuBackend::mean(Prim x) { return reduce_all<MeanOp>("mean", x); }
Prim CpuBackend::mean_dim(Prim x, size_t dim) { return reduce_dim<MeanOp>("mean_dim", x, dim); }
Prim CpuBackend::prod(Prim x) { return reduce_all<ProdOp>("prod", x); }
Prim CpuBackend::prod_dim(Prim x, size_t dim) { return reduce_dim<ProdOp>("prod_dim", x, dim); }

// Max and min have no value for an empty lane: the rule refuses those before the kernels run.
Prim CpuBackend::max(Prim x) {
  shape_rules::reduce_all(x->shape(), true, "max");
  return reduce_all<MaxOp>("max", x);
}
Prim CpuBackend::min(Prim x) {
  shape_rules::reduce_all(x->shape(), true, "min");
  return reduce_all<MinOp>("min", x);
}
Prim CpuBackend::max_dim(Prim x, size_t dim) {
  shape_rules::reduce_dim(x->shape(), dim, true, "max_dim");
  return reduce_dim<MaxOp>("max_dim", x, dim);
}
Prim CpuBackend::min_dim(Prim x, size_t dim) {
  shape_rules::reduce_dim(x->shape(), dim, true, "min_dim");
  return reduce_dim<MinOp>("min_dim", x, dim);
}
PrimPair CpuBackend::max_dim_with_indices(Prim x, size_t dim) {
  return arg_reduce<true>("max_dim_with_indices", x, dim, true);
}
PrimPair CpuBackend::min_dim_with_indices(Prim x, size_t dim) {
  return arg_reduce<false>("min_dim_with_indices", x, dim, true);
}
Prim CpuBackend::argmax(Prim x, size_t dim) { return arg_reduce<true>("argmax", x, dim, false).second; }
Prim CpuBackend::argmin(Prim x, size_t dim) { return arg_reduce<false>("argmin", x, dim, false).second; }

Prim CpuBackend::any(Prim x) { return reduce_all<AnyOp, true>("any", x, true); }
Prim CpuBackend::any_dim(Prim x, size_t dim) { return reduce_dim<AnyOp, true>("any_dim", x, dim, true); }
Prim CpuBackend::all(Prim x) { return reduce_all<AllOp, true>("all", x, true); }
Prim CpuBackend::all_dim(Prim x, size_t dim) { return reduce_dim<AllOp, true>("all_dim", x, dim, true); }

Prim CpuBackend::var(Prim xp, size_t dim, int64_t correction) {
  const CpuPtr x = contiguous(as_cpu(xp, "var"));
  const Shape out_shape = shape_rules::reduce_dim(x->shape(), dim, false, "var");
  const Lanes l = lanes_of(x->shape(), dim);
  return dispatch<Dtypes::Float>(x->dtype(), "var", [&]<typename T>() -> Prim {
    const CpuPtr out = alloc(out_shape, x->dtype());
    if (l.outer * l.inner > 0) var_lanes<T>(x->data<T>(), out->data<T>(), l, correction);
    return out;
  });
}

Prim CpuBackend::cumsum(Prim x, size_t dim) { return scan<SumOp>("cumsum", x, dim); }
Prim CpuBackend::cumprod(Prim x, size_t dim) { return scan<ProdOp>("cumprod", x, dim); }
Prim CpuBackend::cummax(Prim x, size_t dim) { return scan<MaxOp>("cummax", x, dim); }
Prim CpuBackend::cummin(Prim x, size_t dim) { return scan<MinOp>("cummin", x, dim); }

PrimPair CpuBackend::sort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_impl("sort", x, dim, -1, descending, true, true);
}
Prim CpuBackend::argsort(Prim x, size_t dim, bool descending, bool /*stable: always stable*/) {
  return sort_impl("argsort", x, dim, -1, descending, false, true).second;
}
PrimPair CpuBackend::topk(Prim x, int64_t k, size_t dim, bool largest) {
  shape_rules::topk(x->shape(), k, dim, "topk");  // a negative k too: sort_impl takes that as "all"
  return sort_impl("topk", x, dim, k, largest, true, true);
}

}  // namespace burn::cpu
