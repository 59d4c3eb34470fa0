// TensorData: a tensor's values on the host, the currency between backends, files and tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/dtype.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

// Element type tags for typed access to f16/bf16 storage.
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

BURN_TENSOR_API float f16_to_f32(uint16_t bits);
BURN_TENSOR_API uint16_t f32_to_f16(float v);
BURN_TENSOR_API float bf16_to_f32(uint16_t bits);
BURN_TENSOR_API uint16_t f32_to_bf16(float v);

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::F32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::F64;
}
template <>
constexpr DType dtype_of<f16>() {
  return DType::F16;
}
template <>
constexpr DType dtype_of<bf16>() {
  return DType::BF16;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::I64;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::I32;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::I8;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::U8;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}

namespace detail {
// The memory behind TensorData (and the cpu plugin's mid-sized buffers): cached when freed, mapped 2 MiB-aligned
// for transparent huge pages from 2 MiB on, 64-byte aligned from 64 KiB on; the caches and their budgets are in
// detail/host_cache.hpp. OutOfMemory if refused.
BURN_TENSOR_API void* host_alloc(size_t bytes);
BURN_TENSOR_API void host_free(void* p, size_t bytes) noexcept;
}  // namespace detail

// The allocator of a tensor's bytes: host_alloc, and elements made without a value are left
// uninitialised (so a reader writes them once instead of after a zero-fill).
template <typename T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <typename U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(detail::host_alloc(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { detail::host_free(p, n * sizeof(T)); }
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  friend bool operator==(const HostAllocator&, const HostAllocator&) { return true; }
};
using HostBytes = std::vector<uint8_t, HostAllocator<uint8_t>>;

// Result of an approximate comparison: the worst element and where it is.
struct ApproxReport {
  bool ok = true;
  int64_t worst_index = -1;
  double worst_actual = 0, worst_expected = 0, worst_error = 0;
  std::string message;  // empty when ok
};

class BURN_TENSOR_API TensorData {
 public:
  TensorData() = default;  // no elements: shape [0], f32
  // Check the shape (ShapeError for a negative dim or a count beyond int64) and the bytes (OutOfMemory
  // beyond max_alloc_bytes()). Zero-filled, or a copy of `bytes`, which must hold exactly that many.
  TensorData(Shape shape, DType dtype);
  TensorData(Shape shape, DType dtype, const std::vector<uint8_t>& bytes);
  // Same checks, bytes left unspecified: for a producer that writes every byte (a file reader, a
  // backend's into_data), which then skips a zero-fill.
  static TensorData uninitialized(Shape shape, DType dtype);

  template <typename T>
  static TensorData from_vector(const std::vector<T>& values, Shape shape) {
    check_count(values.size(), shape);
    TensorData d = uninitialized(std::move(shape), dtype_of<T>());
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < values.size(); ++i) d.bytes_[i] = values[i] ? 1 : 0;
    } else if (!values.empty()) {  // memcpy from a null pointer is undefined even for 0 bytes
      std::memcpy(d.bytes_.data(), values.data(), values.size() * sizeof(T));
    }
    return d;
  }

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  const HostBytes& bytes() const { return bytes_; }
  HostBytes& bytes() { return bytes_; }
  const void* raw() const { return bytes_.data(); }
  void* raw() { return bytes_.data(); }

  // Typed values; throws DTypeError when T does not match dtype() (use convert first).
  template <typename T>
  std::vector<T> to_vec() const {
    check_dtype(dtype_of<T>(), "to_vec");
    check_size(sizeof(T), "to_vec");
    std::vector<T> out(static_cast<size_t>(num_elements()));
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < out.size(); ++i) out[i] = bytes_[i] != 0;
    } else if (!out.empty()) {
      std::memcpy(out.data(), bytes_.data(), out.size() * sizeof(T));
    }
    return out;
  }
  // Every element as double (any dtype), for comparisons and printing.
  std::vector<double> to_f64_vec() const;
  double value_f64(int64_t i) const;  // IndexError outside [0, num_elements())

  TensorData convert(DType to) const;
  TensorData reshape(Shape shape) const;

  // Elementwise |a - e| <= atol + rtol * |e| (NaN equals NaN); shapes must match.
  ApproxReport compare_approx(const TensorData& expected, double rtol = 1e-5, double atol = 1e-6) const;
  // Throws ValueError carrying the report's message when the comparison fails.
  void assert_approx_eq(const TensorData& expected, double rtol = 1e-5, double atol = 1e-6) const;
  bool operator==(const TensorData& o) const;

  // PyTorch-like printing; summarises with "..." past `threshold` elements.
  std::string to_string(int64_t threshold = 1000, int edge_items = 3) const;

 private:
  static void check_count(size_t n, const Shape& shape);
  void check_dtype(DType want, const char* op) const;
  void check_size(size_t elem_size, const char* op) const;

  Shape shape_{0};
  DType dtype_ = DType::F32;
  HostBytes bytes_;
};

}  // namespace burn
