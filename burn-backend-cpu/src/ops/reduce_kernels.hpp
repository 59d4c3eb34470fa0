// The reduction kernels shared by the eager reductions (reduce.cpp) and the fused executor's reduce
// instructions (fused_executor.cpp): the same operators, lane blocking and task split, so a fused
// reduction folds the same values in the same order as the eager one and gives the same bits.
// A kernel sees its input as contiguous outer x n x inner lanes and reads it through a source:
// span(a, b) returns the elements [a, b) of that flat index space. The eager source points into the
// input (DenseSource); a FilledSource computes its spans into a buffer first (f16/bf16 widened to f32, the
// fused program's prologue). reduce_lanes also takes a source whose spans are views of another element type,
// read through [] and +, converting as they are read (bf16 in place, reduce.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu_tensor.hpp"
#include "ops/math_util.hpp"

namespace burn::cpu::reducek {

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

inline constexpr int64_t kCols = 256;  // columns per task in the column (inner > 1) kernels
// Columns per task in reduce_lanes: whole rows of up to 16 KB (f32), so each task streams memory
// contiguously instead of reading 1 KB per row at a row stride (a new page per row).
inline constexpr int64_t kWideCols = 4096;
inline constexpr int64_t kRowBlock = 4096;  // elements folded into 16 lanes before a merge (cascade summation)
inline constexpr int64_t kColBlock = 512;   // rows folded per partial in the column kernels (cascade summation)
inline constexpr int kLanes = 16;
// Elements per piece of work a thread claims in reduce_lanes: 1 MB of f32, so claiming (one atomic) costs
// nothing next to reading it, and a thread held up elsewhere leaves at most that much to the other.
inline constexpr int64_t kClaim = int64_t{1} << 18;

// The eager source: the contiguous input itself; every span is in place.
template <typename T>
struct DenseSource {
  static constexpr int64_t kMaxSpan = std::numeric_limits<int64_t>::max();
  const T* x;
  const T* span(int64_t a, int64_t) const { return x + a; }
};

// A source whose spans are computed into a buffer by fill(start, count, dst): each span is read ahead up
// to the claim's end, so that short lanes share one fill. make_filled_source<T>(end, fill) makes one.
template <typename T, typename Fill>
struct FilledSource {
  static constexpr int64_t kMaxSpan = 4096;
  Fill fill;
  int64_t end;  // the claim's last flat index + 1 when its spans are contiguous, else -1
  std::vector<T> buf{};
  int64_t ws = 0, we = 0;  // the flat range held in buf

  const T* span(int64_t a, int64_t b) {
    if (a >= ws && b <= we) return buf.data() + (a - ws);
    ws = a;
    we = std::max(b, std::min(a + kMaxSpan, end));
    if (buf.size() < static_cast<size_t>(we - ws)) buf.resize(static_cast<size_t>(we - ws));
    fill(ws, we - ws, buf.data());
    return buf.data();
  }
};

template <typename T, typename Fill>
FilledSource<T, Fill> make_filled_source(int64_t end, Fill fill) {
  return {std::move(fill), end};
}

// Rows [k, k + count) of the lane block (o, columns j0..j0+w) at row stride `stride`; count <= k1 - k
// is what the source can hand out at once.
template <typename Src>
auto lane_rows(Src& src, Lanes l, int64_t o, int64_t j0, int64_t w, int64_t k, int64_t k1, int64_t& count,
               int64_t& stride) {
  const int64_t a = (o * l.n + k) * l.inner + j0;
  if (w == l.inner) {
    count = std::min(k1 - k, std::max<int64_t>(1, Src::kMaxSpan / std::max<int64_t>(w, 1)));
    stride = l.inner;
    return src.span(a, a + count * w);
  }
  count = Src::kMaxSpan == std::numeric_limits<int64_t>::max() ? k1 - k : 1;
  stride = l.inner;
  return src.span(a, a + (count - 1) * l.inner + w);
}

// Folds elements [k0, k0 + len) of lane o (inner == 1) with 16 independent accumulators so the
// compiler vectorises without reassociating.
template <class Op, typename T, typename Src>
typename Op::A reduce_row(Src& src, Lanes l, int64_t o, int64_t k0, int64_t len) {
  using A = typename Op::A;
  A total = Op::init();
  for (int64_t b0 = 0; b0 < len; b0 += kRowBlock) {
    const int64_t b1 = std::min(len, b0 + kRowBlock), m = b1 - b0;
    const auto p = src.span(o * l.n + k0 + b0, o * l.n + k0 + b1);
    A lane[kLanes];
    for (int j = 0; j < kLanes; ++j) lane[j] = Op::init();
    int64_t i = 0;
    for (; i + kLanes <= m; i += kLanes)
      for (int j = 0; j < kLanes; ++j) lane[j] = Op::step(lane[j], p[i + j]);
    for (; i < m; ++i) lane[0] = Op::step(lane[0], p[i]);
    A blk = lane[0];
    for (int j = 1; j < kLanes; ++j) blk = Op::merge(blk, lane[j]);
    total = Op::merge(total, blk);
  }
  return total;
}

// Folds p[0, len) (one contiguous lane).
template <class Op, typename T>
typename Op::A reduce_row(const T* p, int64_t len) {
  DenseSource<T> src{p};
  return reduce_row<Op, T>(src, Lanes{1, len, 1}, 0, 0, len);
}

// Folds rows [k0, k1) of the `w` adjacent columns j0.. of lane block o into acc[0, w); `part` is
// scratch of w elements.
template <class Op, typename T, typename Src>
void reduce_cols(Src& src, Lanes l, int64_t o, int64_t j0, int64_t w, int64_t k0, int64_t k1, typename Op::A* acc,
                 typename Op::A* part) {
  for (int64_t j = 0; j < w; ++j) acc[j] = Op::init();
  for (int64_t kb = k0; kb < k1; kb += kColBlock) {
    const int64_t ke = std::min(k1, kb + kColBlock);
    for (int64_t j = 0; j < w; ++j) part[j] = Op::init();
    for (int64_t k = kb; k < ke;) {
      int64_t count, stride;
      const auto r0 = lane_rows(src, l, o, j0, w, k, ke, count, stride);
      for (int64_t c = 0; c < count; ++c) {
        const auto r = r0 + c * stride;
        for (int64_t j = 0; j < w; ++j) part[j] = Op::step(part[j], r[j]);
      }
      k += count;
    }
    for (int64_t j = 0; j < w; ++j) acc[j] = Op::merge(acc[j], part[j]);
  }
}

// Folds rows [k0, k1) of `w` adjacent columns at `base` (row stride `inner`) into acc[0, w).
template <class Op, typename T>
void reduce_cols(const T* base, int64_t k0, int64_t k1, int64_t inner, int64_t w, typename Op::A* acc,
                 typename Op::A* part) {
  DenseSource<T> src{base};
  reduce_cols<Op, T>(src, Lanes{1, k1, inner}, 0, 0, w, k0, k1, acc, part);
}

// Reduces the lanes (outer x n x inner) along n into out (outer x inner). When there are fewer lanes
// than threads the reduced dim is split too and the partials merged afterwards, in a fixed order. The
// pieces (whole lanes or parts of one) are claimed by the threads about kClaim elements at a time from
// both ends (TaskClaims), not cut into one static half per thread: a thread that starts late (woken
// after the caller began) or reads slower takes fewer pieces instead of holding up the result. Which
// thread folds a piece never changes its bits. make_src(end) gives a claim's source; `end` is the flat
// index its claim stops at when its spans are contiguous, else -1.
template <class Op, typename T, typename MakeSrc>
void reduce_lanes(MakeSrc&& make_src, typename Op::O* out, Lanes l) {
  using A = typename Op::A;
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  if (outer * inner == 0) return;
  const int64_t col_chunks = (inner + kWideCols - 1) / kWideCols;
  const int64_t width = std::min(inner, kWideCols);
  const int64_t tasks = outer * col_chunks;
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t total = outer * n * inner;
  int64_t splits = 1;
  if (total >= 2 * kGrain && tasks < threads && threads > 1)
    splits = std::max<int64_t>(
        1, std::min<int64_t>(std::max((2 * threads + tasks - 1) / tasks, total / (kClaim * tasks)), n / 2048));
  const int64_t span = (n + splits - 1) / std::max<int64_t>(splits, 1);
  const int64_t units = tasks * splits, unit = std::max<int64_t>(1, span * width);
  // Units per claim: about kClaim elements, or a quarter of a thread's share when that is less, and at least
  // kGrain elements.
  const int64_t per_claim =
      std::max(std::max<int64_t>(1, kGrain / unit), std::min(kClaim / unit, (units + 4 * threads - 1) / (4 * threads)));
  const int64_t claims = (units + per_claim - 1) / per_claim;
  std::vector<A> partial(splits > 1 ? static_cast<size_t>(units * width) : 0);
  TaskClaims next(claims);
  parallel_for(std::min(claims, threads), 1, [&](int64_t b, int64_t) {
    // On the heap: one set per thread per call, and up to 2 x 32 KB would crowd small thread stacks.
    std::vector<A> acc_buf(static_cast<size_t>(width)), part_buf(inner == 1 ? 0 : static_cast<size_t>(width));
    A* acc = acc_buf.data();
    for (int64_t c; (c = next.next(b > 0)) >= 0;) {
      const int64_t u0 = c * per_claim, u1 = std::min(units, u0 + per_claim);
      int64_t end = -1;
      if (col_chunks == 1) {
        const int64_t last = u1 - 1, s = last % splits;
        end = (last / splits * n + std::min(n, std::min(n, s * span) + span)) * inner;
      }
      auto src = make_src(end);
      for (int64_t t = u0; t < u1; ++t) {
        const int64_t task = t / splits, s = t % splits;
        const int64_t o = task / col_chunks, j0 = (task % col_chunks) * kWideCols;
        const int64_t w = std::min(kWideCols, inner - j0);
        const int64_t k0 = std::min(n, s * span), k1 = std::min(n, k0 + span);
        if (inner == 1)
          acc[0] = reduce_row<Op, T>(src, l, o, k0, k1 - k0);
        else
          reduce_cols<Op, T>(src, l, o, j0, w, k0, k1, acc, part_buf.data());
        if (splits == 1) {
          for (int64_t j = 0; j < w; ++j) out[o * inner + j0 + j] = Op::finish(acc[j], n);
        } else {
          std::copy(acc, acc + w, partial.begin() + t * width);
        }
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

// ---- argmax / argmin, optionally with the values ----

// The first extreme wins; a NaN beats every number and the first NaN wins (as PyTorch).
template <bool kMax, typename T>
inline bool better(T v, T best) {
  if constexpr (kMax)
    return v > best || (is_nan(v) && !is_nan(best));
  else
    return v < best || (is_nan(v) && !is_nan(best));
}

// The extreme of p[0, kBlock) for float and double, and whether the block holds a NaN or an infinity (its sum is
// not finite: the caller then walks it element by element). GCC's vector extensions, because the lanes loop of
// reduce_row does not vectorise for max/min (the NaN test in MaxOp's step) and this must, at any baseline.
template <bool kMax, typename T, int64_t kBlock>
T block_extreme(const T* p, bool& unsure) {
  typedef T V __attribute__((vector_size(16)));  // SSE width: no AVX ABI question, and GCC fuses pairs under AVX
  constexpr int64_t kW = 16 / sizeof(T), kAcc = 4;
  static_assert(kBlock % (kAcc * kW) == 0);
  V m[kAcc], sum[kAcc];
  for (int64_t a = 0; a < kAcc; ++a) std::memcpy(&m[a], p + a * kW, sizeof(V)), sum[a] = m[a];
  for (int64_t i = kAcc * kW; i < kBlock; i += kAcc * kW)
    for (int64_t a = 0; a < kAcc; ++a) {
      V x;
      std::memcpy(&x, p + i + a * kW, sizeof(V));
      if constexpr (kMax)
        m[a] = x > m[a] ? x : m[a];
      else
        m[a] = x < m[a] ? x : m[a];
      sum[a] += x;
    }
  T best = m[0][0], total = 0;
  for (int64_t a = 0; a < kAcc; ++a)
    for (int64_t j = 0; j < kW; ++j) {
      best = kMax ? (m[a][j] > best ? m[a][j] : best) : (m[a][j] < best ? m[a][j] : best);
      total += sum[a][j];
    }
  unsure = !(total - total == 0);
  return best;
}

// Folds a lane's contiguous elements r[0, count) (positions k..) into (best, bi), floats a block at a time: a block
// with a NaN or an infinity is walked element by element; otherwise, when its extreme beats the best so far, the
// first element equal to it is where a walk would stop (+0 == -0). On random rows the best improves about log(n)
// times, so nearly every block costs one vector pass.
template <bool kMax, typename T>
void arg_row(const T* r, int64_t count, int64_t k, T& best, int64_t& bi) {
  int64_t c = 0;
  if constexpr (std::is_floating_point_v<T>) {
    constexpr int64_t kBlock = 256;
    for (; c + kBlock <= count; c += kBlock) {
      const T* p = r + c;
      bool unsure = false;
      const T m = block_extreme<kMax, T, kBlock>(p, unsure);
      if (unsure) {
        for (int64_t j = 0; j < kBlock; ++j)
          if (better<kMax>(p[j], best)) best = p[j], bi = k + c + j;
        continue;
      }
      if (!(kMax ? m > best : m < best)) continue;
      int64_t j = 0;
      while (!(p[j] == m)) ++j;
      best = p[j], bi = k + c + j;
    }
  }
  for (; c < count; ++c)
    if (better<kMax>(r[c], best)) best = r[c], bi = k + c;
}

// Lanes with n >= 1: the index (and value, when vals) of each lane's extreme.
template <bool kMax, typename T, typename MakeSrc>
void arg_lanes(MakeSrc&& make_src, T* vals, int64_t* idx, Lanes l) {
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const int64_t col_chunks = (inner + kCols - 1) / kCols;
  const int64_t width = std::min(inner, kCols);
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n * width));
  parallel_for(outer * col_chunks, grain, [&](int64_t b, int64_t e) {
    auto src = make_src(col_chunks == 1 ? e * n * inner : -1);
    T best[kCols];
    int64_t bi[kCols];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / col_chunks, j0 = (t % col_chunks) * kCols;
      const int64_t w = std::min(kCols, inner - j0);
      for (int64_t k = 0; k < n;) {
        int64_t count, stride;
        const T* r0 = lane_rows(src, l, o, j0, w, k, n, count, stride);
        if (inner == 1) {  // the lane is contiguous: its elements r0[0, count)
          if (k == 0) best[0] = r0[0], bi[0] = 0;
          arg_row<kMax>(r0, count, k, best[0], bi[0]);
          k += count;
          continue;
        }
        for (int64_t c = 0; c < count; ++c) {
          const T* r = r0 + c * stride;
          if (k + c == 0) {
            for (int64_t j = 0; j < w; ++j) best[j] = r[j], bi[j] = 0;
            continue;
          }
          for (int64_t j = 0; j < w; ++j)
            if (better<kMax>(r[j], best[j])) best[j] = r[j], bi[j] = k + c;
        }
        k += count;
      }
      for (int64_t j = 0; j < w; ++j) {
        if (vals) vals[o * inner + j0 + j] = best[j];
        idx[o * inner + j0 + j] = bi[j];
      }
    }
  });
}

}  // namespace burn::cpu::reducek
