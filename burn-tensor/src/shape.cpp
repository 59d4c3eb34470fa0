// Shape printing, broadcasting and dim normalisation.
#include "burn/tensor/shape.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <sstream>

#include "burn/tensor/error.hpp"
#include "burn/tensor/primitive.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn {

int64_t Shape::num_elements() const { return checked_num_elements(*this, "shape"); }

int64_t checked_num_elements(const Shape& s, const char* op) {
  int64_t n = 1, strided = 1;
  for (int64_t d : s) {
    if (d < 0) throw ShapeError(op, "negative dim in shape " + s.to_string());
    // The product without zero dims bounds every stride, so it must fit as well.
    if (__builtin_mul_overflow(strided, std::max<int64_t>(d, 1), &strided))
      throw ShapeError(op, "shape " + s.to_string() + " has more elements than int64 can count");
    n *= d;  // <= strided, cannot overflow
  }
  return n;
}

namespace {

std::atomic<size_t> g_alloc_limit{0};  // 0: physical memory

size_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return SIZE_MAX;
  size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(pages), static_cast<size_t>(page), &bytes)) return SIZE_MAX;
  return bytes;
}

}  // namespace

size_t max_alloc_bytes() {
  const size_t set = g_alloc_limit.load(std::memory_order_relaxed);
  if (set) return set;
  static const size_t ram = physical_memory();
  return ram;
}

void set_max_alloc_bytes(size_t bytes) { g_alloc_limit.store(bytes, std::memory_order_relaxed); }

size_t checked_bytes(const Shape& s, size_t elem_size, const char* op) {
  const auto n = static_cast<size_t>(checked_num_elements(s, op));
  size_t bytes = 0;
  const bool wraps = __builtin_mul_overflow(n, elem_size, &bytes);
  const size_t limit = max_alloc_bytes();
  if (wraps || bytes > limit)
    throw OutOfMemory(op, "a tensor of shape " + s.to_string() + " needs " +
                              (wraps ? std::to_string(n) + " x " + std::to_string(elem_size) : std::to_string(bytes)) +
                              " bytes, more than the " + std::to_string(limit) +
                              " one buffer may take (the physical memory, or set_max_alloc_bytes)");
  return bytes;
}

int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw ShapeError(op, "size arithmetic overflows int64: " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}

int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw ShapeError(op, "size arithmetic overflows int64: " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}

std::string Shape::to_string() const {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < dims_.size(); ++i) os << (i ? ", " : "") << dims_[i];
  os << ']';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.to_string(); }

// The rule itself lives in shape_rules (numeric.cpp); this name stays for plugins built against it.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) { return shape_rules::broadcast(a, b, op); }

size_t normalize_dim(int64_t dim, size_t rank, const char* op) {
  int64_t r = static_cast<int64_t>(rank);
  int64_t d = dim < 0 ? dim + r : dim;
  if (d < 0 || d >= r)
    throw IndexError(op,
                     "dim " + std::to_string(dim) + " is out of range for a tensor of rank " + std::to_string(rank));
  return static_cast<size_t>(d);
}

std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.rank());
  int64_t acc = 1;
  for (size_t i = s.rank(); i-- > 0;) {
    st[i] = acc;
    // A zero-size dim must not zero the outer strides; the product is checked for overflow.
    acc = checked_mul(acc, std::max<int64_t>(s[i], 1), "contiguous_strides");
  }
  return st;
}

int64_t arange_length(int64_t start, int64_t end, int64_t step, DType dtype, const char* op) {
  const std::string what = "[" + std::to_string(start) + ", " + std::to_string(end) + ") step " + std::to_string(step);
  if (step == 0) throw ValueError(op, what + ": step must be non-zero");
  if (dtype == DType::Bool) throw DTypeError(op, what + ": cannot make a range of bool");
  // 128-bit: spans such as [INT64_MIN, INT64_MAX) and steps such as INT64_MIN do not overflow.
  const __int128 span = static_cast<__int128>(end) - start, st = step;
  __int128 count = 0;
  if (st > 0 && span > 0) count = (span - 1) / st + 1;
  if (st < 0 && span < 0) count = (-span - 1) / -st + 1;
  if (count > INT64_MAX) throw ShapeError(op, what + " has more elements than int64 can count");
  if (count > 0 && is_int(dtype) && dtype != DType::I64) {
    const __int128 last = start + (count - 1) * st;
    const int64_t lo = dtype == DType::I32 ? INT32_MIN : dtype == DType::I8 ? -128 : 0;
    const int64_t hi = dtype == DType::I32 ? INT32_MAX : dtype == DType::I8 ? 127 : 255;
    if (std::min<__int128>(start, last) < lo || std::max<__int128>(start, last) > hi)
      throw ValueError(op, what + ": values do not fit " + std::string(dtype_name(dtype)));
  }
  return static_cast<int64_t>(count);
}

}  // namespace burn
