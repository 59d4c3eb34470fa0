// Primitive: the type-erased tensor a backend creates. Immutable once made; shape and dtype live in
// the base so the tensor API can check them without a virtual call.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "burn/tensor/data.hpp"
#include "burn/tensor/dtype.hpp"
#include "burn/tensor/scalar.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

class BURN_TENSOR_API Primitive {
 public:
  Primitive(Shape shape, DType dtype) : shape_(std::move(shape)), dtype_(dtype) {}
  virtual ~Primitive();
  Primitive(const Primitive&) = delete;
  Primitive& operator=(const Primitive&) = delete;

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }

 private:
  Shape shape_;
  DType dtype_;
};

// A backend op takes primitives by value: when the caller moved in its only handle
// (use_count() == 1), the backend may write the result into that buffer.
using Prim = std::shared_ptr<Primitive>;
using Prims = std::vector<Prim>;
using PrimPair = std::pair<Prim, Prim>;
using Axes = std::vector<int64_t>;

// One dim of a slice: [start, end) with step > 0, already normalised by the tensor API.
struct SliceRange {
  int64_t start = 0, end = 0, step = 1;
  // Written so that no step, however large, overflows (end - start fits: both lie in [0, dim]).
  int64_t length() const { return end <= start ? 0 : (end - start - 1) / step + 1; }
};
using Slices = std::vector<SliceRange>;

// The element count of arange(start, end, step) in `dtype`, computed without overflow: ValueError
// naming `op` for step 0, bool, or int values that `dtype` cannot hold, ShapeError when the count
// exceeds int64 ([INT64_MIN, INT64_MAX) step 1). Element i is start + i * step, which fits int64.
BURN_TENSOR_API int64_t arange_length(int64_t start, int64_t end, int64_t step, DType dtype, const char* op);

struct Distribution {
  enum class Kind : uint8_t { Default, Uniform, Normal, Bernoulli } kind = Kind::Default;
  double a = 0.0;  // uniform low, normal mean, bernoulli probability
  double b = 1.0;  // uniform high, normal std
  static Distribution uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  static Distribution normal(double mean, double std) { return {Kind::Normal, mean, std}; }
  static Distribution bernoulli(double p) { return {Kind::Bernoulli, p, 0.0}; }
};

}  // namespace burn
