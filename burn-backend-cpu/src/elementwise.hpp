// Broadcasting elementwise loops shared by the cpu backend's op families (numeric, float_math,
// activation, compare, boolean, bitwise, indexing). Private to the plugin.
//
// HOW TO USE (for ops/*.cpp):
//
//   Prim CpuBackend::add(Prim lhs, Prim rhs) {
//     const DType dt = lhs->dtype();
//     return dispatch<Dtypes::Numeric>(dt, "add", [&]<typename T>() {
//       return binary_op<T, T>(std::move(lhs), std::move(rhs), dt, "add",
//                              [](T a, T b) { return static_cast<T>(a + b); });
//     });
//   }
//   Prim CpuBackend::exp(Prim x) {   // float-only ops: f32/f64, DTypeError otherwise
//     const DType dt = x->dtype();
//     return dispatch<Dtypes::Float>(dt, "exp", [&]<typename T>() {
//       return unary_op<T, T>(std::move(x), dt, "exp", [](T v) { return std::exp(v); });
//     });
//   }
//   (ops/math_util.hpp wraps these two patterns as float_map / numeric_map.)
//   Read dtype/shape BEFORE std::move(x) into the helper (the moved-from Prim is null).
//   An op with a scalar operand is a unary_op whose lambda captures the scalar converted to T
//   (scalar_as<T>(s)); comparisons pass R = uint8_t and out_dtype = DType::Bool.
//   dispatch (convert.hpp) is the plugin's one dtype dispatch: Dtypes::Float, Numeric, Int, Computing.
//
// binary_op<T, R>(lhs, rhs, out_dtype, op, f): out[i] = R(f(T lhs[i], T rhs[i])) with NumPy
//   broadcasting. Checks that lhs and rhs have the same dtype (DTypeError naming the op and both
//   dtypes) and that the shapes broadcast (ShapeError naming the op and both shapes). Fast paths:
//   both contiguous with the same shape (a flat loop GCC vectorises), one side a single element
//   (flat loop against a constant), else a strided loop over coalesced dims. Runs on the thread
//   pool. Writes the result into lhs's (or rhs's) buffer when that Prim was moved in as its only
//   handle and is contiguous with the output's shape and dtype (see reusable()).
// unary_op<T, R>(x, out_dtype, op, f): out[i] = R(f(T x[i])), same fast paths and reuse.
// LoopPlan / for_each_row: the strided engine itself, for ops with other arities (mask_where).
// `f` must be a cheap pure function of its arguments; it is inlined into every path.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "burn/tensor/shape_rules.hpp"
#include "convert.hpp"
#include "cpu_tensor.hpp"

namespace burn::cpu {

// Elements per parallel chunk for cheap elementwise work: below this a call runs inline.
inline constexpr int64_t kElementwiseGrain = 1 << 15;

// The scalar converted to the kernel's element type (ints stay exact, floats round as C++ casts do).
template <typename T>
inline T scalar_as(const Scalar& s) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(s.as_double());
  else if constexpr (std::is_same_v<T, uint8_t>)
    return static_cast<T>(s.as_bool() ? 1 : 0);
  // A float scalar saturates (Scalar::as_int): casting 1e300 or NaN to an int type is undefined.
  else
    return s.kind == Scalar::Kind::Float ? static_cast<T>(std::clamp<int64_t>(s.as_int(), std::numeric_limits<T>::min(),
                                                                              std::numeric_limits<T>::max()))
                                         : static_cast<T>(s.i);
}

// DTypeError naming `op` unless `dtype` is f32 or f64 (the float_math/activation dtypes); Unsupported for
// f16/bf16 (the kernels take f32; half_backend.cpp widens them first).
inline void require_float(DType dtype, const char* op) {
  if (!accepts<Dtypes::Float>(dtype)) throw_dtype(op, dtypes_name(Dtypes::Float), dtype);
}

// DTypeError naming `op` and both dtypes when they differ.
inline void require_same_dtype(DType lhs, DType rhs, const char* op) {
  if (lhs != rhs)
    throw DTypeError(op, "lhs " + std::string(dtype_name(lhs)) + " and rhs " + std::string(dtype_name(rhs)) +
                             ": operands must have the same dtype");
}

// Strides of `t` seen through a broadcast to `out` (right-aligned; 0 on broadcast dims); t's shape must
// broadcast to `out` (shape_rules::broadcast(t, out) == out).
inline std::vector<int64_t> broadcast_strides(const CpuTensor& t, const Shape& out) {
  std::vector<int64_t> s(out.rank(), 0);
  const size_t lead = out.rank() - t.shape().rank();
  for (size_t i = 0; i < t.shape().rank(); ++i) s[lead + i] = t.shape()[i] == 1 ? 0 : t.strides()[i];
  return s;
}

// An iteration over a contiguous output of `numel` elements with N strided inputs, with size-1 dims
// dropped and mergeable neighbour dims coalesced so the inner loop is as long as possible.
template <size_t N>
struct LoopPlan {
  std::vector<int64_t> dims;
  std::array<std::vector<int64_t>, N> strides;
  int64_t numel = 1;

  LoopPlan(const Shape& out, const std::array<std::vector<int64_t>, N>& in_strides) {
    numel = out.num_elements();
    for (size_t d = 0; d < out.rank(); ++d) {
      if (out[d] == 1) continue;
      if (!dims.empty()) {
        bool merge = true;  // dim d folds into the previous one when every operand walks both as one
        for (size_t k = 0; k < N; ++k)
          if (strides[k].back() != in_strides[k][d] * out[d]) {
            merge = false;
            break;
          }
        if (merge) {
          dims.back() *= out[d];
          for (size_t k = 0; k < N; ++k) strides[k].back() = in_strides[k][d];
          continue;
        }
      }
      dims.push_back(out[d]);
      for (size_t k = 0; k < N; ++k) strides[k].push_back(in_strides[k][d]);
    }
    if (dims.empty()) {
      dims.push_back(1);
      for (size_t k = 0; k < N; ++k) strides[k].push_back(0);
    }
  }
};

// Calls body(out_begin, len, offs, inner) for rows of the plan's innermost dim, in parallel:
// out_begin is the flat output index of the row, offs[k] operand k's element offset at the row
// start, inner[k] operand k's stride along the row. A long row may arrive as several pieces, so
// the body must treat each call independently (elementwise work, not a reduction along the row).
template <size_t N, typename Body>
void for_each_row(const LoopPlan<N>& plan, int64_t grain, Body&& body) {
  if (plan.numel == 0) return;
  const size_t rank = plan.dims.size();
  const int64_t len = plan.dims.back();
  const int64_t rows = plan.numel / len;
  std::array<int64_t, N> inner;
  for (size_t k = 0; k < N; ++k) inner[k] = plan.strides[k].back();
  if (len >= 2 * grain && rows < 4 * static_cast<int64_t>(num_threads())) {
    // Few long rows: split each row into pieces so every thread gets work (cat of two big tensors).
    const int64_t pieces = (len + grain - 1) / grain;
    parallel_for(rows * pieces, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t r = t / pieces, p0 = (t % pieces) * len / pieces, p1 = (t % pieces + 1) * len / pieces;
        std::array<int64_t, N> offs{};
        int64_t rem = r;
        for (size_t d = rank - 1; d-- > 0;) {
          const int64_t i = rem % plan.dims[d];
          rem /= plan.dims[d];
          for (size_t k = 0; k < N; ++k) offs[k] += i * plan.strides[k][d];
        }
        for (size_t k = 0; k < N; ++k) offs[k] += p0 * inner[k];
        body(r * len + p0, p1 - p0, offs.data(), inner.data());
      }
    });
    return;
  }
  parallel_for(rows, std::max<int64_t>(1, grain / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
    // Decompose the first row once, then step an odometer over the outer dims.
    std::vector<int64_t> idx(rank, 0);
    std::array<int64_t, N> offs{};
    int64_t rem = r0;
    for (size_t d = rank - 1; d-- > 0;) {
      idx[d] = rem % plan.dims[d];
      rem /= plan.dims[d];
      for (size_t k = 0; k < N; ++k) offs[k] += idx[d] * plan.strides[k][d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      body(r * len, len, offs.data(), inner.data());
      for (size_t d = rank - 1; d-- > 0;) {
        ++idx[d];
        for (size_t k = 0; k < N; ++k) offs[k] += plan.strides[k][d];
        if (idx[d] < plan.dims[d]) break;
        for (size_t k = 0; k < N; ++k) offs[k] -= idx[d] * plan.strides[k][d];
        idx[d] = 0;
      }
    }
  });
}

// Copies `src`, broadcast to dst's shape, into the (possibly strided) view `dst`; any dtype, same
// dtype on both sides. Defined in cpu_tensor.cpp. dst must not overlap itself (no stride-0 dims).
void copy_view(const CpuTensor& src, const CpuTensor& dst);

// The output of an elementwise op: `candidate` itself when its buffer may be overwritten, else new.
inline CpuPtr output_for(const Prim& candidate, const Shape& shape, DType dtype) {
  if (candidate && reusable(candidate, shape, dtype)) return std::static_pointer_cast<CpuTensor>(candidate);
  return nullptr;
}

template <typename T, typename R, typename F>
Prim binary_op(Prim lhs, Prim rhs, DType out_dtype, const char* op, F f) {
  const CpuTensor* a = as_cpu(lhs, op).get();  // lhs/rhs keep them alive; no extra handle held
  const CpuTensor* b = as_cpu(rhs, op).get();
  require_same_dtype(a->dtype(), b->dtype(), op);
  // A reference to a's shape when the shapes agree: a copy would cost an allocation on every small op.
  const bool same_shape = a->shape() == b->shape();
  const Shape broadcast = same_shape ? Shape{} : shape_rules::broadcast(a->shape(), b->shape(), op);
  const Shape& out_shape = same_shape ? a->shape() : broadcast;
  CpuPtr out = output_for(lhs, out_shape, out_dtype);
  if (!out) out = output_for(rhs, out_shape, out_dtype);
  if (!out) out = alloc(out_shape, out_dtype);
  const int64_t n = out_shape.num_elements();
  if (n == 0) return out;
  R* o = out->data<R>();
  const T* x = a->data<T>();
  const T* y = b->data<T>();
  const bool a_flat = a->is_contiguous() && a->shape() == out_shape;
  const bool b_flat = b->is_contiguous() && b->shape() == out_shape;
  // Loops read pointers and f's state from locals: a u8 (bool) store may alias anything, and a
  // value reloaded through the closure every iteration stops GCC from vectorising.
  if (a_flat && b_flat) {
    parallel_for(n, kElementwiseGrain, [&](int64_t s, int64_t e) {
      R* op = o;
      const T* xp = x;
      const T* yp = y;
      const F fn = f;
#pragma GCC ivdep
      for (int64_t i = s; i < e; ++i) op[i] = static_cast<R>(fn(xp[i], yp[i]));
    });
  } else if (a_flat && b->shape().num_elements() == 1) {
    const T c0 = *y;
    parallel_for(n, kElementwiseGrain, [&](int64_t s, int64_t e) {
      R* op = o;
      const T* xp = x;
      const T c = c0;
      const F fn = f;
#pragma GCC ivdep
      for (int64_t i = s; i < e; ++i) op[i] = static_cast<R>(fn(xp[i], c));
    });
  } else if (b_flat && a->shape().num_elements() == 1) {
    const T c0 = *x;
    parallel_for(n, kElementwiseGrain, [&](int64_t s, int64_t e) {
      R* op = o;
      const T* yp = y;
      const T c = c0;
      const F fn = f;
#pragma GCC ivdep
      for (int64_t i = s; i < e; ++i) op[i] = static_cast<R>(fn(c, yp[i]));
    });
  } else {
    const LoopPlan<2> plan(out_shape, {broadcast_strides(*a, out_shape), broadcast_strides(*b, out_shape)});
    for_each_row(plan, kElementwiseGrain, [&](int64_t ob, int64_t len, const int64_t* offs, const int64_t* in) {
      const F fn = f;
      R* orow = o + ob;
      const T* xr = x + offs[0];
      const T* yr = y + offs[1];
      const int64_t sx = in[0], sy = in[1];
      if (sx == 1 && sy == 1) {
#pragma GCC ivdep
        for (int64_t j = 0; j < len; ++j) orow[j] = static_cast<R>(fn(xr[j], yr[j]));
      } else if (sx == 1 && sy == 0) {
        const T c = *yr;
#pragma GCC ivdep
        for (int64_t j = 0; j < len; ++j) orow[j] = static_cast<R>(fn(xr[j], c));
      } else if (sx == 0 && sy == 1) {
        const T c = *xr;
#pragma GCC ivdep
        for (int64_t j = 0; j < len; ++j) orow[j] = static_cast<R>(fn(c, yr[j]));
      } else {
        for (int64_t j = 0; j < len; ++j) orow[j] = static_cast<R>(fn(xr[j * sx], yr[j * sy]));
      }
    });
  }
  return out;
}

template <typename T, typename R, typename F>
Prim unary_op(Prim x, DType out_dtype, const char* op, F f) {
  const CpuTensor* a = as_cpu(x, op).get();
  const Shape shape = a->shape();
  CpuPtr out = output_for(x, shape, out_dtype);
  if (!out) out = alloc(shape, out_dtype);
  const int64_t n = shape.num_elements();
  if (n == 0) return out;
  R* o = out->data<R>();
  const T* in = a->data<T>();
  if (a->is_contiguous()) {
    parallel_for(n, kElementwiseGrain, [&](int64_t s, int64_t e) {
      R* op = o;
      const T* xp = in;
      const F fn = f;
#pragma GCC ivdep
      for (int64_t i = s; i < e; ++i) op[i] = static_cast<R>(fn(xp[i]));
    });
  } else {
    const LoopPlan<1> plan(shape, {broadcast_strides(*a, shape)});
    for_each_row(plan, kElementwiseGrain, [&](int64_t ob, int64_t len, const int64_t* offs, const int64_t* st) {
      const F fn = f;
      R* orow = o + ob;
      const T* xr = in + offs[0];
      const int64_t s0 = st[0];
      if (s0 == 1) {
#pragma GCC ivdep
        for (int64_t j = 0; j < len; ++j) orow[j] = static_cast<R>(fn(xr[j]));
      } else {
        for (int64_t j = 0; j < len; ++j) orow[j] = static_cast<R>(fn(xr[j * s0]));
      }
    });
  }
  return out;
}

}  // namespace burn::cpu
