// Shape: the dims of a tensor, plus the broadcasting and dim-normalising helpers every op needs.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "burn/tensor/export.hpp"

namespace burn {

class BURN_TENSOR_API Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  size_t rank() const { return dims_.size(); }
  // The product of the dims; ShapeError for a negative dim or a product beyond int64 (see
  // checked_num_elements), so a shape never silently claims a wrapped element count.
  int64_t num_elements() const;
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& dims() { return dims_; }
  auto begin() const { return dims_.begin(); }
  auto end() const { return dims_.end(); }
  bool operator==(const Shape& o) const = default;
  std::string to_string() const;  // "[2, 3]"

 private:
  std::vector<int64_t> dims_;
};

BURN_TENSOR_API std::ostream& operator<<(std::ostream& os, const Shape& s);

// NumPy broadcasting of two shapes; throws ShapeError naming `op` when they are incompatible.
BURN_TENSOR_API Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Maps a possibly negative dim into [0, rank); throws IndexError naming `op`.
BURN_TENSOR_API size_t normalize_dim(int64_t dim, size_t rank, const char* op);
// Contiguous row-major strides of a shape, in elements.
BURN_TENSOR_API std::vector<int64_t> contiguous_strides(const Shape& s);

// The element count of `s`. Throws ShapeError naming `op` when a dim is negative or when the dims
// (zero dims counted as 1, as the strides need) multiply beyond int64.
BURN_TENSOR_API int64_t checked_num_elements(const Shape& s, const char* op);
// The bytes of a contiguous `s` of `elem_size`-byte elements: checked_num_elements, then
// OutOfMemory naming `op` and the bytes when they exceed max_alloc_bytes(), so an absurd shape
// fails fast instead of overcommitting or wrapping.
BURN_TENSOR_API size_t checked_bytes(const Shape& s, size_t elem_size, const char* op);
// The largest single tensor buffer any backend or TensorData may ask for: the machine's physical
// memory unless set_max_alloc_bytes chose a limit (0 restores the default).
BURN_TENSOR_API size_t max_alloc_bytes();
BURN_TENSOR_API void set_max_alloc_bytes(size_t bytes);

// Size and index arithmetic on int64: a + b and a * b, ShapeError naming `op` on overflow.
BURN_TENSOR_API int64_t checked_add(int64_t a, int64_t b, const char* op);
BURN_TENSOR_API int64_t checked_mul(int64_t a, int64_t b, const char* op);

}  // namespace burn
