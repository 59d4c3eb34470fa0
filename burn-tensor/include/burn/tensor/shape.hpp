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

}  // namespace burn
