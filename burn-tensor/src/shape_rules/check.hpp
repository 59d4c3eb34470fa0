// Private to src/shape_rules/*.cpp: how a rule reports a failed check (thrown house error, or
// std::nullopt for the try_ variants) and the option helpers the module-op rules share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn::shape_rules::detail {

// One run of a rule: raising (the throwing functions) or answering (try_: no message is built).
class Check {
 public:
  Check(const char* op, bool raise) : op_(op), raise_(raise) {}
  const char* op() const { return op_; }

  // Throws E(op, message()) when raising, else std::nullopt for the rule to return.
  template <typename E, typename F>
  std::nullopt_t fail(F&& message) const {
    if (raise_) throw E(op_, std::forward<F>(message)());
    return std::nullopt;
  }

  // fail() for a check that answers a bool: throws when raising, else false.
  template <typename E, typename F>
  bool refuse(F&& message) const {
    fail<E>(std::forward<F>(message));
    return false;
  }

  // r = a + b or a * b: false on int64 overflow, where raising throws checked_add/checked_mul's ShapeError.
  bool add(int64_t a, int64_t b, int64_t& r) const {
    if (raise_) return r = checked_add(a, b, op_), true;
    return !__builtin_add_overflow(a, b, &r);
  }
  bool mul(int64_t a, int64_t b, int64_t& r) const {
    if (raise_) return r = checked_mul(a, b, op_), true;
    return !__builtin_mul_overflow(a, b, &r);
  }
  // Whether s counts its elements in int64 (checked_num_elements' ShapeError when raising).
  bool countable(const Shape& s) const;

 private:
  const char* op_;
  bool raise_;
};

// The value of a raising run (which throws instead of answering nothing).
template <typename T>
T raised(std::optional<T> r) {
  return std::move(*r);
}

inline std::string dims_text(const std::vector<int64_t>& v) { return Shape(v).to_string(); }
inline std::string str(int64_t v) { return std::to_string(v); }

// IndexError unless dim < x.rank().
bool dim_in_range(const Shape& x, size_t dim, const Check& c);
// A per-spatial-dim option normalised in place: empty -> `fill` everywhere, one value -> every dim.
bool per_dim(std::vector<int64_t>& v, size_t n, int64_t fill, const char* what, const Check& c);
bool positive(const std::vector<int64_t>& v, const char* what, const Check& c);
bool non_negative(const std::vector<int64_t>& v, const char* what, const Check& c);
// The extent d * (k - 1) + 1 of a dilated kernel.
bool dilated_extent(int64_t dilation, int64_t kernel, int64_t& r, const Check& c);
// The spatial rank of an NC<spatial> shape with 1 to 3 spatial dims.
std::optional<size_t> spatial_rank(const Shape& x, const Check& c);
// [x[0], x[1], spatial...].
Shape nc_with(const Shape& x, const std::vector<int64_t>& spatial);
// An NC<spatial> input with 1 to 3 spatial dims and no empty dim; its spatial rank.
size_t nonempty_planes(const Shape& x, const char* op);
// x resized to one positive `size` per spatial dim (adaptive pools, interpolate): [N, C, size...].
Shape resized(const Shape& x, const std::vector<int64_t>& size, const char* op);

}  // namespace burn::shape_rules::detail
