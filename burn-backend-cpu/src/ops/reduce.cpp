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

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu {
namespace {

template <typename T>
constexpr bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

// Ints accumulate in uint64 so that overflow wraps (as in PyTorch) instead of being undefined.
template <typename T>
using wide_t = std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>;

template <typename T, typename A>
constexpr T narrow(A a) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(a);
  else
    return static_cast<T>(static_cast<int64_t>(a));
}

// ---- reduction operators: init, step (fold one element), merge (fold two partials), finish ----

template <typename T>
struct SumOp {
  using A = wide_t<T>;
  using O = T;
  static A init() { return A(0); }
  static A step(A a, T v) { return a + static_cast<A>(v); }
  static A merge(A a, A b) { return a + b; }
  static O finish(A a, int64_t) { return narrow<T>(a); }
};

// Int mean is the truncating integer division of the sum, as in Burn.
template <typename T>
struct MeanOp : SumOp<T> {
  static T finish(typename SumOp<T>::A a, int64_t n) {
    if constexpr (std::is_floating_point_v<T>)
      return static_cast<T>(a / static_cast<T>(n));
    else
      return n == 0 ? T(0) : static_cast<T>(static_cast<int64_t>(a) / n);
  }
};

template <typename T>
struct ProdOp {
  using A = wide_t<T>;
  using O = T;
  static A init() { return A(1); }
  static A step(A a, T v) { return a * static_cast<A>(v); }
  static A merge(A a, A b) { return a * b; }
  static O finish(A a, int64_t) { return narrow<T>(a); }
};

// NaN propagates: once the accumulator is NaN it stays NaN, and a NaN element replaces it.
template <typename T>
struct MaxOp {
  using A = T;
  using O = T;
  static A init() {
    if constexpr (std::is_floating_point_v<T>)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  static A step(A a, T v) { return ((a > v) | is_nan(a)) ? a : v; }
  static A merge(A a, A b) { return step(a, b); }
  static O finish(A a, int64_t) { return a; }
};

template <typename T>
struct MinOp {
  using A = T;
  using O = T;
  static A init() {
    if constexpr (std::is_floating_point_v<T>)
      return std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  static A step(A a, T v) { return ((a < v) | is_nan(a)) ? a : v; }
  static A merge(A a, A b) { return step(a, b); }
  static O finish(A a, int64_t) { return a; }
};

template <typename T>
struct AnyOp {
  using A = uint8_t;
  using O = uint8_t;
  static A init() { return 0; }
  static A step(A a, T v) { return a | static_cast<A>(v != T(0)); }
  static A merge(A a, A b) { return a | b; }
  static O finish(A a, int64_t) { return a; }
};

template <typename T>
struct AllOp {
  using A = uint8_t;
  using O = uint8_t;
  static A init() { return 1; }
  static A step(A a, T v) { return a & static_cast<A>(v != T(0)); }
  static A merge(A a, A b) { return a & b; }
  static O finish(A a, int64_t) { return a; }
};

constexpr int64_t kCols = 256;  // columns per task in the column (inner > 1) kernels
// Columns per task in reduce_lanes: whole rows of up to 16 KB (f32), so each task streams memory
// contiguously instead of reading 1 KB per row at a row stride (a new page per row).
constexpr int64_t kWideCols = 4096;
constexpr int64_t kRowBlock = 4096;  // elements folded into 16 lanes before a merge (cascade summation)
constexpr int64_t kColBlock = 512;   // rows folded per partial in the column kernels (cascade summation)
constexpr int kLanes = 16;

// Folds p[0, len) with 16 independent accumulators so the compiler vectorises without reassociating.
template <class Op, typename T>
typename Op::A reduce_row(const T* p, int64_t len) {
  using A = typename Op::A;
  A total = Op::init();
  for (int64_t b0 = 0; b0 < len; b0 += kRowBlock) {
    const int64_t b1 = std::min(len, b0 + kRowBlock);
    A lane[kLanes];
    for (int j = 0; j < kLanes; ++j) lane[j] = Op::init();
    int64_t i = b0;
    for (; i + kLanes <= b1; i += kLanes)
      for (int j = 0; j < kLanes; ++j) lane[j] = Op::step(lane[j], p[i + j]);
    for (; i < b1; ++i) lane[0] = Op::step(lane[0], p[i]);
    A blk = lane[0];
    for (int j = 1; j < kLanes; ++j) blk = Op::merge(blk, lane[j]);
    total = Op::merge(total, blk);
  }
  return total;
}

// Folds rows [k0, k1) of `w` adjacent columns (row stride `inner`) into acc[0, w); `part` is scratch
// of w elements.
template <class Op, typename T>
void reduce_cols(const T* base, int64_t k0, int64_t k1, int64_t inner, int64_t w, typename Op::A* acc,
                 typename Op::A* part) {
  for (int64_t j = 0; j < w; ++j) acc[j] = Op::init();
  for (int64_t kb = k0; kb < k1; kb += kColBlock) {
    const int64_t ke = std::min(k1, kb + kColBlock);
    for (int64_t j = 0; j < w; ++j) part[j] = Op::init();
    for (int64_t k = kb; k < ke; ++k) {
      const T* r = base + k * inner;
      for (int64_t j = 0; j < w; ++j) part[j] = Op::step(part[j], r[j]);
    }
    for (int64_t j = 0; j < w; ++j) acc[j] = Op::merge(acc[j], part[j]);
  }
}

// Reduces contiguous x (outer x n x inner) along n into out (outer x inner). When there are fewer
// lanes than threads the reduced dim is split too and the partials merged afterwards.
template <class Op, typename T>
void reduce_lanes(const T* x, typename Op::O* out, Lanes l) {
  using A = typename Op::A;
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  if (outer * inner == 0) return;
  const int64_t col_chunks = (inner + kWideCols - 1) / kWideCols;
  const int64_t width = std::min(inner, kWideCols);
  const int64_t tasks = outer * col_chunks;
  const int64_t threads = static_cast<int64_t>(num_threads());
  int64_t splits = 1;
  if (outer * n * inner >= 2 * kGrain && tasks < threads && threads > 1)
    splits = std::max<int64_t>(1, std::min<int64_t>((2 * threads + tasks - 1) / tasks, n / 2048));
  const int64_t span = (n + splits - 1) / std::max<int64_t>(splits, 1);
  std::vector<A> partial(splits > 1 ? static_cast<size_t>(tasks * splits * width) : 0);
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, span * width));
  parallel_for(tasks * splits, grain, [&](int64_t b, int64_t e) {
    // On the heap: one chunk per thread per call, and up to 2 x 32 KB would crowd small thread stacks.
    std::vector<A> acc_buf(static_cast<size_t>(width)), part_buf(inner == 1 ? 0 : static_cast<size_t>(width));
    A* acc = acc_buf.data();
    for (int64_t t = b; t < e; ++t) {
      const int64_t task = t / splits, s = t % splits;
      const int64_t o = task / col_chunks, j0 = (task % col_chunks) * kWideCols;
      const int64_t w = std::min(kWideCols, inner - j0);
      const int64_t k0 = std::min(n, s * span), k1 = std::min(n, k0 + span);
      const T* base = x + o * n * inner + j0;
      if (inner == 1)
        acc[0] = reduce_row<Op>(base + k0, k1 - k0);
      else
        reduce_cols<Op>(base, k0, k1, inner, w, acc, part_buf.data());
      if (splits == 1) {
        for (int64_t j = 0; j < w; ++j) out[o * inner + j0 + j] = Op::finish(acc[j], n);
      } else {
        std::copy(acc, acc + w, partial.begin() + (task * splits + s) * width);
      }
    }
  });
  if (splits == 1) return;
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t o = task / col_chunks, j0 = (task % col_chunks) * kWideCols;
    const int64_t w = std::min(kWideCols, inner - j0);
    for (int64_t j = 0; j < w; ++j) {
      A a = partial[static_cast<size_t>(task * splits * width + j)];
      for (int64_t s = 1; s < splits; ++s)
        a = Op::merge(a, partial[static_cast<size_t>((task * splits + s) * width + j)]);
      out[o * inner + j0 + j] = Op::finish(a, n);
    }
  }
}

template <template <typename> class OpT, bool kOutBool = false>
Prim reduce_dim(const char* op, const Prim& xp, size_t dim, bool any_dtype = false) {
  const CpuPtr x = contiguous(as_cpu(xp, op));
  check_dim(op, x->shape(), dim);
  const Lanes l = lanes_of(x->shape(), dim);
  auto run = [&]<typename T>() -> Prim {
    using Op = OpT<T>;
    const CpuPtr out = alloc(with_dim(x->shape(), dim, 1), kOutBool ? DType::Bool : x->dtype());
    reduce_lanes<Op>(x->data<T>(), out->data<typename Op::O>(), l);
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
    const CpuPtr out = alloc(Shape{1}, kOutBool ? DType::Bool : x->dtype());
    reduce_lanes<Op>(x->data<T>(), out->data<typename Op::O>(), l);
    return out;
  };
  if (any_dtype) return dispatch<Dtypes::Computing>(x->dtype(), op, run);
  return dispatch<Dtypes::Numeric>(x->dtype(), op, run);
}

void require_nonempty(const char* op, const CpuPtr& x, int64_t n) {
  if (n == 0) throw ValueError(op, "cannot reduce over an empty dim of a tensor of shape " + x->shape().to_string());
}

// ---- argmax / argmin, optionally with the values ----

// The first extreme wins; a NaN beats every number and the first NaN wins (as PyTorch).
template <bool kMax, typename T>
inline bool better(T v, T best) {
  if constexpr (kMax)
    return v > best || (is_nan(v) && !is_nan(best));
  else
    return v < best || (is_nan(v) && !is_nan(best));
}

template <bool kMax, typename T>
void arg_lanes(const T* x, T* vals, int64_t* idx, Lanes l) {
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const int64_t col_chunks = (inner + kCols - 1) / kCols;
  const int64_t width = std::min(inner, kCols);
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n * width));
  parallel_for(outer * col_chunks, grain, [&](int64_t b, int64_t e) {
    T best[kCols];
    int64_t bi[kCols];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / col_chunks, j0 = (t % col_chunks) * kCols;
      const int64_t w = std::min(kCols, inner - j0);
      const T* base = x + o * n * inner + j0;
      for (int64_t j = 0; j < w; ++j) best[j] = base[j], bi[j] = 0;
      for (int64_t k = 1; k < n; ++k) {
        const T* r = base + k * inner;
        for (int64_t j = 0; j < w; ++j)
          if (better<kMax>(r[j], best[j])) best[j] = r[j], bi[j] = k;
      }
      for (int64_t j = 0; j < w; ++j) {
        if (vals) vals[o * inner + j0 + j] = best[j];
        idx[o * inner + j0 + j] = bi[j];
      }
    }
  });
}

template <bool kMax>
PrimPair arg_reduce(const char* op, const Prim& xp, size_t dim, bool with_values) {
  const CpuPtr x = contiguous(as_cpu(xp, op));
  check_dim(op, x->shape(), dim);
  const Lanes l = lanes_of(x->shape(), dim);
  require_nonempty(op, x, l.n);
  const Shape out_shape = with_dim(x->shape(), dim, 1);
  return dispatch<Dtypes::Numeric>(x->dtype(), op, [&]<typename T>() {
    const CpuPtr idx = alloc(out_shape, DType::I64);
    CpuPtr vals = with_values ? alloc(out_shape, x->dtype()) : nullptr;
    // No output: no lane (inner may be 2^63 - 1 next to a zero dim, and its column chunks overflow).
    if (out_shape.num_elements() == 0) return PrimPair{vals, idx};
    arg_lanes<kMax, T>(x->data<T>(), vals ? vals->data<T>() : nullptr, idx->data<int64_t>(), l);
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
        const T m = reduce_row<SumOp<T>>(base, n) / static_cast<T>(n);
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
  check_dim(op, x->shape(), dim);
  const Lanes l = lanes_of(x->shape(), dim);
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
  check_dim(op, x->shape(), dim);
  const Lanes l = lanes_of(x->shape(), dim);
  if (keep < 0) keep = l.n;
  const Shape out_shape = with_dim(x->shape(), dim, keep);
  return dispatch<Dtypes::Numeric>(x->dtype(), op, [&]<typename T>() {
    CpuPtr v = values ? alloc(out_shape, x->dtype()) : nullptr;
    CpuPtr i = indices ? alloc(out_shape, DType::I64) : nullptr;
    if (out_shape.num_elements() == 0) return PrimPair{v, i};  // no lane to sort, however many of length 0
    sort_lanes<T>(x->data<T>(), v ? v->data<T>() : nullptr, i ? i->data<int64_t>() : nullptr, l, keep, descending);
    return PrimPair{v, i};
  });
}

}  // namespace

// ---- overrides ----

Prim CpuBackend::sum(Prim x) { return reduce_all<SumOp>("sum", x); }
Prim CpuBackend::sum_dim(Prim x, size_t dim) { return reduce_dim<SumOp>("sum_dim", x, dim); }
Prim CpuBackend::mean(Prim x) { return reduce_all<MeanOp>("mean", x); }
Prim CpuBackend::mean_dim(Prim x, size_t dim) { return reduce_dim<MeanOp>("mean_dim", x, dim); }
Prim CpuBackend::prod(Prim x) { return reduce_all<ProdOp>("prod", x); }
Prim CpuBackend::prod_dim(Prim x, size_t dim) { return reduce_dim<ProdOp>("prod_dim", x, dim); }

Prim CpuBackend::max(Prim x) {
  if (x->shape().num_elements() == 0)
    throw ValueError("max", "cannot reduce an empty tensor of shape " + x->shape().to_string());
  return reduce_all<MaxOp>("max", x);
}
Prim CpuBackend::min(Prim x) {
  if (x->shape().num_elements() == 0)
    throw ValueError("min", "cannot reduce an empty tensor of shape " + x->shape().to_string());
  return reduce_all<MinOp>("min", x);
}
Prim CpuBackend::max_dim(Prim x, size_t dim) {
  check_dim("max_dim", x->shape(), dim);
  if (x->shape()[dim] == 0)
    throw ValueError("max_dim", "cannot reduce over an empty dim of a tensor of shape " + x->shape().to_string());
  return reduce_dim<MaxOp>("max_dim", x, dim);
}
Prim CpuBackend::min_dim(Prim x, size_t dim) {
  check_dim("min_dim", x->shape(), dim);
  if (x->shape()[dim] == 0)
    throw ValueError("min_dim", "cannot reduce over an empty dim of a tensor of shape " + x->shape().to_string());
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
  check_dim("var", x->shape(), dim);
  const Lanes l = lanes_of(x->shape(), dim);
  return dispatch<Dtypes::Float>(x->dtype(), "var", [&]<typename T>() -> Prim {
    const CpuPtr out = alloc(with_dim(x->shape(), dim, 1), x->dtype());
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
  check_dim("topk", x->shape(), dim);
  const int64_t n = x->shape()[dim];
  if (k < 0 || k > n)
    throw IndexError("topk", "k " + std::to_string(k) + " is out of range for dim " + std::to_string(dim) +
                                 " of size " + std::to_string(n));
  return sort_impl("topk", x, dim, k, largest, true, true);
}

}  // namespace burn::cpu
