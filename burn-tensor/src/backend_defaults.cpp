// Default bodies of the DEFAULT-tier ops of the creation, layout, indexing, numeric, compare and
// boolean groups, composed only from other ops of `this` so that a backend implementing the CORE
// ops gets every op, and a faster backend may override any of them. Also the Backend basics.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Primitive::~Primitive() = default;

Backend::~Backend() = default;

bool Backend::supports(OpId /*op*/, DType /*dtype*/) const { return true; }

void* Backend::query_interface(std::string_view /*name*/) { return nullptr; }

void Backend::sync() {}

void Backend::seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(rng_mutex_);
  rng_.seed(seed);
}

namespace {

std::string num(double v) {
  // Shortest form that reads back exactly keeps messages readable ("0.1", not "0.100000").
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

Shape ones_shape(size_t rank) { return Shape(std::vector<int64_t>(rank, 1)); }

void check_dim(const Prim& x, size_t dim, const char* op) {
  if (dim >= x->shape().rank()) {
    throw IndexError(op, "dim " + std::to_string(dim) + " out of range for shape " + x->shape().to_string());
  }
}

void check_same_dtype(const Prim& a, const Prim& b, const char* op) {
  if (a->dtype() != b->dtype()) {
    throw DTypeError(op, "lhs " + std::string(dtype_name(a->dtype())) + " and rhs " +
                             std::string(dtype_name(b->dtype())) + ": dtypes differ");
  }
}

void check_index_dtype(const Prim& idx, const char* op) {
  if (idx->dtype() != DType::I64 && idx->dtype() != DType::I32) {
    throw DTypeError(op, "indices must be i64 or i32, got " + std::string(dtype_name(idx->dtype())));
  }
}

// Representable range of an integer dtype (Bool as 0..1).
std::pair<int64_t, int64_t> int_range(DType d) {
  switch (d) {
    case DType::I32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::I8: return {-128, 127};
    case DType::U8: return {0, 255};
    case DType::Bool: return {0, 1};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

bool fits_int64(double v) { return v >= -9223372036854775808.0 && v < 9223372036854775808.0; }

// A scalar operand converted to x's dtype. For int tensors a float scalar is truncated toward zero
// (Burn's elem conversion) rather than promoting the result to float as torch does: the op's
// result keeps x's dtype. Int tensors with int scalars match torch exactly.
Scalar scalar_as(Scalar s, DType dtype, const char* op) {
  if (is_float(dtype)) return Scalar(s.as_double());
  if (is_bool(dtype)) return Scalar(s.as_bool());
  if (s.kind == Scalar::Kind::Float && !(std::isfinite(s.f) && fits_int64(s.f))) {
    throw ValueError(op, "scalar " + num(s.f) + " cannot be converted to " + std::string(dtype_name(dtype)));
  }
  return Scalar(s.as_int());
}

// Whether s converts to dtype without changing its value (float dtypes: always, up to rounding).
bool exact_in(Scalar s, DType dtype) {
  if (is_float(dtype)) return true;
  auto [lo, hi] = int_range(dtype);
  if (s.kind == Scalar::Kind::Float) {
    if (!std::isfinite(s.f) || std::trunc(s.f) != s.f || !fits_int64(s.f)) return false;
    auto v = static_cast<int64_t>(s.f);
    return v >= lo && v <= hi;
  }
  return s.i >= lo && s.i <= hi;
}

// A tensor of x's rank with every dim 1 holding s in x's dtype: broadcasts against x.
Prim scalar_like(Backend& b, const Prim& x, Scalar s, const char* op) {
  return b.full(ones_shape(x->shape().rank()), scalar_as(s, x->dtype(), op), x->dtype());
}

// x broadcast (view) to `shape`, adding leading dims of size 1 first when its rank is smaller.
Prim broadcast_to(Backend& b, Prim x, const Shape& shape) {
  if (x->shape() == shape) return x;
  if (x->shape().rank() < shape.rank()) {
    std::vector<int64_t> dims(shape.rank() - x->shape().rank(), 1);
    dims.insert(dims.end(), x->shape().begin(), x->shape().end());
    x = b.reshape(std::move(x), Shape(std::move(dims)));
  }
  return b.expand(std::move(x), shape);
}

Slices full_slices(const Shape& s) {
  Slices r(s.rank());
  for (size_t i = 0; i < s.rank(); ++i) r[i] = SliceRange{0, s[i], 1};
  return r;
}

using CompareOp = Prim (Backend::*)(Prim, Prim);

// x <op> s. When s is not exactly representable in x's dtype (an int tensor against 2.5, a u8
// tensor against 300, a bool tensor against 2) the comparison runs in f64 so that the answer is
// torch's rather than that of a truncated scalar.
Prim compare_elem(Backend& b, Prim x, Scalar s, CompareOp cmp, const char* op) {
  if (!exact_in(s, x->dtype())) {
    x = b.cast(std::move(x), DType::F64);
    Prim rhs = b.full(ones_shape(x->shape().rank()), Scalar(s.as_double()), DType::F64);
    return (b.*cmp)(std::move(x), std::move(rhs));
  }
  Prim rhs = scalar_like(b, x, s, op);
  return (b.*cmp)(std::move(x), std::move(rhs));
}

// ---- host-side sampling for `random` -------------------------------------------------------

// [0, 1) with 53 random bits: fixed arithmetic, so identical on every platform.
double unit(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

// Uniform integer in [0, range) without modulo bias (rejects the short top bucket).
uint64_t below(std::mt19937_64& g, uint64_t range) {
  uint64_t threshold = (0 - range) % range;  // 2^64 mod range
  for (;;) {
    uint64_t r = g();
    if (r >= threshold) return r % range;
  }
}

// The value of v after rounding to a float dtype.
double round_to(DType d, double v) {
  switch (d) {
    case DType::F64: return v;
    case DType::F32: return static_cast<float>(v);
    case DType::F16: return f16_to_f32(f32_to_f16(static_cast<float>(v)));
    case DType::BF16: return bf16_to_f32(f32_to_bf16(static_cast<float>(v)));
    default: return v;
  }
}

// The largest value of float dtype d that is below b (b finite).
double below_in(DType d, double b) {
  auto step16 = [](uint16_t h) -> uint16_t {
    if ((h & 0x7fff) == 0) return 0x8001;           // +-0 -> smallest negative subnormal
    return (h & 0x8000) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h - 1);
  };
  switch (d) {
    case DType::F64: return std::nextafter(b, -INFINITY);
    case DType::F32: {
      float f = static_cast<float>(b);
      return f < b ? f : std::nextafter(f, -INFINITY);
    }
    case DType::F16: {
      uint16_t h = f32_to_f16(static_cast<float>(b));
      return f16_to_f32(h) < b ? f16_to_f32(h) : f16_to_f32(step16(h));
    }
    case DType::BF16: {
      uint16_t h = f32_to_bf16(static_cast<float>(b));
      return bf16_to_f32(h) < b ? bf16_to_f32(h) : bf16_to_f32(step16(h));
    }
    default: return b;
  }
}

void store_i64(TensorData& d, int64_t i, int64_t v);

void store_f64(TensorData& d, int64_t i, double v) {
  auto* p = static_cast<uint8_t*>(d.raw());
  if (is_int(d.dtype())) {
    // Truncate, then saturate: an out-of-range float-to-int conversion is undefined in C++.
    auto [lo, hi] = int_range(d.dtype());
    double t = std::isnan(v) ? 0.0 : std::trunc(v);
    int64_t iv = t <= static_cast<double>(lo) ? lo : !fits_int64(t) || t >= static_cast<double>(hi) ? hi
                                                                                                      : static_cast<int64_t>(t);
    store_i64(d, i, iv);
    return;
  }
  switch (d.dtype()) {
    case DType::F64: reinterpret_cast<double*>(p)[i] = v; break;
    case DType::F32: reinterpret_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DType::F16: reinterpret_cast<uint16_t*>(p)[i] = f32_to_f16(static_cast<float>(v)); break;
    case DType::BF16: reinterpret_cast<uint16_t*>(p)[i] = f32_to_bf16(static_cast<float>(v)); break;
    case DType::Bool: p[i] = v != 0.0 ? 1 : 0; break;
    default: break;
  }
}

void store_i64(TensorData& d, int64_t i, int64_t v) {
  auto* p = static_cast<uint8_t*>(d.raw());
  switch (d.dtype()) {
    case DType::I64: reinterpret_cast<int64_t*>(p)[i] = v; break;
    case DType::I32: reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v); break;
    case DType::I8: reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
    case DType::U8: reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case DType::Bool: p[i] = v != 0 ? 1 : 0; break;
    default: store_f64(d, i, static_cast<double>(v)); break;
  }
}

std::string dist_text(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::Default: return "default(" + num(d.a) + ", " + num(d.b) + ")";
    case Distribution::Kind::Uniform: return "uniform(" + num(d.a) + ", " + num(d.b) + ")";
    case Distribution::Kind::Normal: return "normal(mean " + num(d.a) + ", std " + num(d.b) + ")";
    case Distribution::Kind::Bernoulli: return "bernoulli(p " + num(d.a) + ")";
  }
  return "?";
}

}  // namespace

// ---- creation --------------------------------------------------------------------------------

// Sampled on the host with our own transforms of mt19937_64 (which the standard fixes bit for
// bit), never std::*_distribution (implementation-defined), so a seed gives the same values on
// every platform. Float dtypes: Default = Uniform(0, 1). Int dtypes: Uniform draws integers in
// [ceil(a), ceil(b)), Default is refused (no natural range); Normal is truncated toward zero. Bool: Default is a fair coin,
// other kinds store value != 0. Bernoulli stores 0/1 in any dtype.
Prim Backend::random(const Shape& shape, const Distribution& dist, DType dtype) {
  using K = Distribution::Kind;
  const double a = dist.a, b = dist.b;
  const bool int_like = !is_float(dtype);
  K kind = dist.kind;
  // An all-zero "random" int tensor (Uniform [0, 1)) would be a silent surprise: ask for bounds.
  if (kind == K::Default && is_int(dtype))
    throw ValueError("random", "Distribution::Default has no range for " + std::string(dtype_name(dtype)) +
                                   "; use Distribution::uniform(low, high)");
  if (kind == K::Default) kind = dtype == DType::Bool ? K::Bernoulli : K::Uniform;
  const double p = dist.kind == K::Default ? 0.5 : a;

  switch (kind) {
    case K::Uniform:
      if (!std::isfinite(a) || !std::isfinite(b) || !(b > a)) {
        throw ValueError("random", dist_text(dist) + ": needs finite bounds with high > low");
      }
      break;
    case K::Normal:
      if (!std::isfinite(a) || !std::isfinite(b) || b < 0) {
        throw ValueError("random", dist_text(dist) + ": needs a finite mean and a finite std >= 0");
      }
      break;
    case K::Bernoulli:
      if (!(p >= 0.0 && p <= 1.0)) {
        throw ValueError("random", dist_text(dist) + ": probability must be in [0, 1]");
      }
      break;
    case K::Default: break;
  }

  int64_t lo = 0, hi = 0;
  if (kind == K::Uniform && int_like) {
    double cl = std::ceil(a), ch = std::ceil(b);
    auto [dmin, dmax] = int_range(dtype == DType::Bool ? DType::I64 : dtype);
    if (!fits_int64(cl) || !fits_int64(ch) || ch <= cl) {
      throw ValueError("random", dist_text(dist) + ": no integer in [low, high) for " +
                                     std::string(dtype_name(dtype)));
    }
    lo = static_cast<int64_t>(cl);
    hi = static_cast<int64_t>(ch);
    if (lo < dmin || hi - 1 > dmax) {
      throw ValueError("random", dist_text(dist) + ": integers in [" + std::to_string(lo) + ", " +
                                     std::to_string(hi) + ") do not fit " + std::string(dtype_name(dtype)));
    }
  }

  TensorData data(shape, dtype);
  const int64_t n = data.num_elements();
  {
    std::lock_guard<std::mutex> lock(rng_mutex());
    std::mt19937_64& g = rng();
    switch (kind) {
      case K::Uniform:
        if (int_like) {
          const auto range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
          for (int64_t i = 0; i < n; ++i) {
            store_i64(data, i, static_cast<int64_t>(static_cast<uint64_t>(lo) + below(g, range)));
          }
        } else {
          // a + (b - a) * u can round up to b in the target dtype; keep the interval half-open.
          const double top = below_in(dtype, b);
          for (int64_t i = 0; i < n; ++i) {
            double v = round_to(dtype, a + (b - a) * unit(g));
            store_f64(data, i, v >= b ? top : v);
          }
        }
        break;
      case K::Normal:
        // Box-Muller, both outputs of each pair used; u1 in (0, 1] so log(u1) is finite.
        for (int64_t i = 0; i < n; i += 2) {
          double u1 = 1.0 - unit(g), u2 = unit(g);
          double r = std::sqrt(-2.0 * std::log(u1));
          double t = 2.0 * std::numbers::pi * u2;
          store_f64(data, i, a + b * r * std::cos(t));
          if (i + 1 < n) store_f64(data, i + 1, a + b * r * std::sin(t));
        }
        break;
      case K::Bernoulli:
        for (int64_t i = 0; i < n; ++i) store_i64(data, i, unit(g) < p ? 1 : 0);
        break;
      case K::Default: break;
    }
  }
  return from_data(data);
}

Prim Backend::arange(int64_t start, int64_t end, int64_t step, DType dtype) {
  if (step == 0) throw ValueError("arange", "step must be nonzero (start " + std::to_string(start) +
                                                ", end " + std::to_string(end) + ")");
  // 128-bit so that spans like [INT64_MIN, INT64_MAX) do not overflow.
  __int128 span = static_cast<__int128>(end) - start;
  __int128 count = 0;
  if (step > 0 && span > 0) count = (span + step - 1) / step;
  if (step < 0 && span < 0) count = (-span + (-static_cast<__int128>(step)) - 1) / -static_cast<__int128>(step);
  const std::string what = "[" + std::to_string(start) + ", " + std::to_string(end) + ") step " +
                           std::to_string(step);
  if (count > (static_cast<__int128>(1) << 40)) throw ValueError("arange", what + ": too many elements");
  const auto n = static_cast<int64_t>(count);
  if (n > 0 && !is_float(dtype)) {
    auto [dmin, dmax] = int_range(dtype);
    int64_t last = static_cast<int64_t>(start + static_cast<__int128>(n - 1) * step);
    if (std::min(start, last) < dmin || std::max(start, last) > dmax) {
      throw ValueError("arange", what + ": values do not fit " + std::string(dtype_name(dtype)));
    }
  }
  TensorData data(Shape{n}, dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = static_cast<int64_t>(start + static_cast<__int128>(i) * step);
    if (is_float(dtype)) store_f64(data, i, static_cast<double>(v));
    else store_i64(data, i, v);
  }
  return from_data(data);
}

// ---- layout ----------------------------------------------------------------------------------

Prim Backend::cat(const Prims& xs, size_t dim) {
  if (xs.empty()) throw ValueError("cat", "needs at least one tensor");
  const Shape& first = xs[0]->shape();
  if (dim >= first.rank()) {
    throw IndexError("cat", "dim " + std::to_string(dim) + " out of range for input 0 of shape " + first.to_string());
  }
  Shape out = first;
  out[dim] = 0;
  for (size_t k = 0; k < xs.size(); ++k) {
    const Shape& s = xs[k]->shape();
    if (xs[k]->dtype() != xs[0]->dtype()) {
      throw DTypeError("cat", "input " + std::to_string(k) + " is " + std::string(dtype_name(xs[k]->dtype())) +
                                  " but input 0 is " + std::string(dtype_name(xs[0]->dtype())));
    }
    bool ok = s.rank() == first.rank();
    for (size_t d = 0; ok && d < s.rank(); ++d) ok = d == dim || s[d] == first[d];
    if (!ok) {
      throw ShapeError("cat", "input " + std::to_string(k) + " has shape " + s.to_string() + " but input 0 has shape " +
                                  first.to_string() + ": all dims but " + std::to_string(dim) + " must match");
    }
    out[dim] += s[dim];
  }
  if (xs.size() == 1) return xs[0];
  Prim result = empty(out, xs[0]->dtype());
  Slices ranges = full_slices(out);
  int64_t offset = 0;
  for (const Prim& x : xs) {
    int64_t len = x->shape()[dim];
    if (len == 0) continue;
    ranges[dim] = SliceRange{offset, offset + len, 1};
    result = slice_assign(std::move(result), ranges, x);
    offset += len;
  }
  return result;
}

// torch's repeat along one dim (tiling): [d0, ..., dk, ...] -> reshape [.., 1, dk, ..] -> expand
// [.., times, dk, ..] -> reshape [.., times * dk, ..]; the expand is a view, one copy in all.
Prim Backend::repeat_dim(Prim x, size_t dim, int64_t times) {
  check_dim(x, dim, "repeat_dim");
  if (times < 0) throw ValueError("repeat_dim", "times must be >= 0, got " + std::to_string(times));
  if (times == 1) return x;
  Shape out = x->shape();
  out[dim] *= times;
  if (times == 0 || out.num_elements() == 0) return empty(out, x->dtype());
  std::vector<int64_t> dims = x->shape().dims();
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(dim), 1);
  Shape tiled(dims);
  tiled[dim] = times;
  x = reshape(std::move(x), Shape(std::move(dims)));
  x = expand(std::move(x), tiled);
  return reshape(std::move(x), out);
}

// ---- indexing --------------------------------------------------------------------------------

// index_select as a gather: the 1-D indices become [1, .., n, .., 1] and are expanded (a view)
// to the output shape.
Prim Backend::select(Prim x, size_t dim, Prim indices) {
  check_dim(x, dim, "select");
  check_index_dtype(indices, "select");
  if (indices->shape().rank() != 1) {
    throw ShapeError("select", "indices must be 1-D, got shape " + indices->shape().to_string());
  }
  const int64_t n = indices->shape()[0];
  Shape out = x->shape();
  out[dim] = n;
  Shape view = ones_shape(out.rank());
  view[dim] = n;
  Prim idx = expand(reshape(std::move(indices), view), out);
  return gather(std::move(x), dim, std::move(idx));
}

// index_add as a scatter_add with the 1-D indices expanded to the values' shape.
Prim Backend::select_add(Prim x, size_t dim, Prim indices, Prim values) {
  check_dim(x, dim, "select_add");
  check_index_dtype(indices, "select_add");
  check_same_dtype(x, values, "select_add");
  if (indices->shape().rank() != 1) {
    throw ShapeError("select_add", "indices must be 1-D, got shape " + indices->shape().to_string());
  }
  const int64_t n = indices->shape()[0];
  Shape want = x->shape();
  want[dim] = n;
  if (values->shape() != want) {
    throw ShapeError("select_add", "values of shape " + values->shape().to_string() + " for x " +
                                       x->shape().to_string() + " and " + std::to_string(n) +
                                       " indices on dim " + std::to_string(dim) + ": expected " + want.to_string());
  }
  Shape view = ones_shape(want.rank());
  view[dim] = n;
  Prim idx = expand(reshape(std::move(indices), view), want);
  return scatter_add(std::move(x), dim, std::move(idx), std::move(values));
}

Prim Backend::mask_fill(Prim x, Prim mask, Scalar value) {
  Prim v = scalar_like(*this, x, value, "mask_fill");
  return mask_where(std::move(x), std::move(mask), std::move(v));
}

// ---- numeric ---------------------------------------------------------------------------------

// The scalar becomes a [1, .., 1] tensor of x's dtype (see scalar_as for int tensors) that the
// binary op broadcasts.
Prim Backend::add_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "add_scalar");
  return add(std::move(lhs), std::move(r));
}
Prim Backend::sub_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "sub_scalar");
  return sub(std::move(lhs), std::move(r));
}
Prim Backend::mul_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "mul_scalar");
  return mul(std::move(lhs), std::move(r));
}
Prim Backend::div_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "div_scalar");
  return div(std::move(lhs), std::move(r));
}
Prim Backend::remainder_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "remainder_scalar");
  return remainder(std::move(lhs), std::move(r));
}
Prim Backend::powf_scalar(Prim lhs, Scalar rhs) {
  Prim r = scalar_like(*this, lhs, rhs, "powf_scalar");
  return powf(std::move(lhs), std::move(r));
}

// torch.maximum: rhs where rhs > lhs or rhs is NaN, else lhs; so NaN from either side wins.
Prim Backend::maximum(Prim lhs, Prim rhs) {
  check_same_dtype(lhs, rhs, "maximum");
  Shape out = broadcast_shapes(lhs->shape(), rhs->shape(), "maximum");
  lhs = broadcast_to(*this, std::move(lhs), out);
  Prim take = greater(rhs, lhs);
  if (is_float(rhs->dtype())) take = bool_or(std::move(take), not_equal(rhs, rhs));
  return mask_where(std::move(lhs), std::move(take), std::move(rhs));
}

Prim Backend::minimum(Prim lhs, Prim rhs) {
  check_same_dtype(lhs, rhs, "minimum");
  Shape out = broadcast_shapes(lhs->shape(), rhs->shape(), "minimum");
  lhs = broadcast_to(*this, std::move(lhs), out);
  Prim take = lower(rhs, lhs);
  if (is_float(rhs->dtype())) take = bool_or(std::move(take), not_equal(rhs, rhs));
  return mask_where(std::move(lhs), std::move(take), std::move(rhs));
}

// Floats: x * -1 (gives -0 for 0, as torch). Ints: 0 - x (wraps for unsigned, as torch).
Prim Backend::neg(Prim x) {
  if (is_bool(x->dtype())) throw DTypeError("neg", "not defined for bool tensors; use bool_not");
  if (is_float(x->dtype())) return mul_scalar(std::move(x), Scalar(-1.0));
  Prim zero = scalar_like(*this, x, Scalar(int64_t{0}), "neg");
  return sub(std::move(zero), std::move(x));
}

// (x > 0) - (x < 0) in x's dtype: torch's formula, so sign(NaN) = 0 and sign(-0.0) = 0 as in torch.
Prim Backend::sign(Prim x) {
  if (is_bool(x->dtype())) return x;
  const DType d = x->dtype();
  Prim pos = cast(greater_elem(x, Scalar(int64_t{0})), d);
  Prim neg_part = cast(lower_elem(std::move(x), Scalar(int64_t{0})), d);
  return sub(std::move(pos), std::move(neg_part));
}

// min(max(x, min), max) like torch: when min > max every element becomes max; NaN stays NaN.
Prim Backend::clamp(Prim x, Scalar min, Scalar max) {
  return clamp_max(clamp_min(std::move(x), min), max);
}

Prim Backend::clamp_min(Prim x, Scalar min) {
  Prim below_min = lower_elem(x, min);
  return mask_fill(std::move(x), std::move(below_min), min);
}

Prim Backend::clamp_max(Prim x, Scalar max) {
  Prim above_max = greater_elem(x, max);
  return mask_fill(std::move(x), std::move(above_max), max);
}

// ---- compare ---------------------------------------------------------------------------------

Prim Backend::not_equal(Prim lhs, Prim rhs) { return bool_not(equal(std::move(lhs), std::move(rhs))); }
Prim Backend::lower(Prim lhs, Prim rhs) { return greater(std::move(rhs), std::move(lhs)); }
Prim Backend::lower_equal(Prim lhs, Prim rhs) { return greater_equal(std::move(rhs), std::move(lhs)); }

Prim Backend::equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::equal, "equal_elem");
}
Prim Backend::not_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::not_equal, "not_equal_elem");
}
Prim Backend::greater_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::greater, "greater_elem");
}
Prim Backend::greater_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::greater_equal, "greater_equal_elem");
}
Prim Backend::lower_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::lower, "lower_elem");
}
Prim Backend::lower_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(*this, std::move(lhs), rhs, &Backend::lower_equal, "lower_equal_elem");
}

// ---- boolean ---------------------------------------------------------------------------------

Prim Backend::bool_xor(Prim lhs, Prim rhs) { return not_equal(std::move(lhs), std::move(rhs)); }

}  // namespace burn
