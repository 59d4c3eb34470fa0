// Shape rules of the layout ops: reshape, permute, flip, expand, slice, slice_assign, cat, repeat_dim.
#include <algorithm>

#include "check.hpp"

namespace burn::shape_rules {
using namespace detail;

namespace {

std::optional<Shape> reshape_rule(const Shape& x, const Shape& target, const Check& c) {
  int64_t known = 1;
  int64_t infer = -1;
  for (size_t i = 0; i < target.rank(); ++i) {
    if (target[i] == -1) {
      if (infer >= 0) return c.fail<ShapeError>([&] { return "only one dim may be -1, got " + target.to_string(); });
      infer = static_cast<int64_t>(i);
    } else if (target[i] < 0) {
      return c.fail<ShapeError>([&] { return "invalid dim " + str(target[i]) + " in " + target.to_string(); });
    } else if (!c.mul(known, target[i], known)) {
      return std::nullopt;
    }
  }
  const int64_t n = x.num_elements();
  const auto mismatch = [&] {
    return "cannot reshape " + x.to_string() + " (" + str(n) + " elements) to " + target.to_string();
  };
  Shape out = target;
  if (infer >= 0) {
    if (known == 0 || n % known != 0) return c.fail<ShapeError>(mismatch);
    out[static_cast<size_t>(infer)] = n / known;
  } else if (known != n) {
    return c.fail<ShapeError>(mismatch);
  }
  if (!c.countable(out)) return std::nullopt;  // {0, 2^62, 2^62} holds 0 elements but its strides overflow
  return out;
}

}  // namespace

Shape reshape(const Shape& x, const Shape& target, const char* op) {
  return raised(reshape_rule(x, target, {op, true}));
}

std::optional<Shape> try_reshape(const Shape& x, const Shape& target) {
  return reshape_rule(x, target, {"reshape", false});
}

Shape permute(const Shape& x, const Axes& axes, const char* op) {
  if (axes.size() != x.rank())
    throw ShapeError(op, "got " + str(static_cast<int64_t>(axes.size())) + " axes " + dims_text(axes) +
                             " for a tensor of rank " + str(static_cast<int64_t>(x.rank())));
  const Axes norm = normalize_axes(axes, x.rank(), op);
  std::vector<int64_t> dims(x.rank());
  for (size_t i = 0; i < norm.size(); ++i) dims[i] = x[static_cast<size_t>(norm[i])];
  return Shape(std::move(dims));
}

Axes inverse_permutation(const Axes& axes, const char* op) {
  const Axes norm = normalize_axes(axes, axes.size(), op);
  Axes inverse(norm.size());
  for (size_t i = 0; i < norm.size(); ++i) inverse[static_cast<size_t>(norm[i])] = static_cast<int64_t>(i);
  return inverse;
}

Shape flip(const Shape& x, const Axes& axes, const char* op) {
  normalize_axes(axes, x.rank(), op);
  return x;
}

Shape expand(const Shape& x, const Shape& target, const char* op) {
  if (target.rank() < x.rank())
    throw ShapeError(op, "cannot expand " + x.to_string() + " to fewer dims " + target.to_string());
  const size_t lead = target.rank() - x.rank();
  std::vector<int64_t> out(target.rank());
  for (size_t i = 0; i < target.rank(); ++i) {
    const int64_t have = i < lead ? 1 : x[i - lead], want = target[i];
    if (want == -1) {
      if (i < lead) throw ShapeError(op, "-1 is not allowed for the new leading dim " + str(static_cast<int64_t>(i)));
      out[i] = have;
    } else if (want < 0 || (i >= lead && have != 1 && have != want)) {
      throw ShapeError(op, "cannot expand " + x.to_string() + " to " + target.to_string() + ": dim " +
                               str(static_cast<int64_t>(i)) + " has size " + str(have));
    } else {
      out[i] = want;
    }
  }
  Shape s(std::move(out));
  checked_num_elements(s, op);  // a view, but its element count must still fit int64
  return s;
}

Shape slice(const Shape& x, const Slices& ranges, const char* op) {
  if (ranges.size() > x.rank())
    throw IndexError(op, str(static_cast<int64_t>(ranges.size())) + " ranges for a tensor of shape " + x.to_string());
  std::vector<int64_t> dims = x.dims();
  for (size_t d = 0; d < ranges.size(); ++d) {
    const SliceRange& r = ranges[d];
    if (r.step <= 0)
      throw ValueError(op, "step " + str(r.step) + " of dim " + str(static_cast<int64_t>(d)) + " must be positive");
    if (r.start < 0 || r.end < r.start || r.end > dims[d])
      throw IndexError(op, "range " + str(r.start) + ".." + str(r.end) + " of dim " + str(static_cast<int64_t>(d)) +
                               " is out of bounds for shape " + x.to_string());
    dims[d] = r.length();
  }
  return Shape(std::move(dims));
}

Shape slice_assign(const Shape& x, const Slices& ranges, const Shape& value, const char* op) {
  const Shape region = slice(x, ranges, op);
  bool ok = value.rank() <= region.rank();
  for (size_t i = 0; ok && i < value.rank(); ++i) {
    const int64_t vd = value[value.rank() - 1 - i], rd = region[region.rank() - 1 - i];
    ok = vd == rd || vd == 1;
  }
  if (!ok)
    throw ShapeError(op,
                     "value of shape " + value.to_string() + " does not broadcast to the region " + region.to_string());
  return x;
}

Shape cat(std::span<const Shape* const> xs, size_t dim, const char* op) {
  if (xs.empty()) throw ValueError(op, "needs at least one tensor");
  const Shape& first = *xs[0];
  check_dim(first, dim, op);
  Shape out = first;
  for (size_t i = 1; i < xs.size(); ++i) {
    const Shape& s = *xs[i];
    bool ok = s.rank() == first.rank();
    for (size_t k = 0; ok && k < s.rank(); ++k) ok = k == dim || s[k] == first[k];
    if (!ok)
      throw ShapeError(op, "tensor " + str(static_cast<int64_t>(i)) + " has shape " + s.to_string() +
                               ", tensor 0 has " + first.to_string() + " (they may differ only in dim " +
                               str(static_cast<int64_t>(dim)) + ")");
    out[dim] = checked_add(out[dim], s[dim], op);
  }
  checked_num_elements(out, op);
  return out;
}

Shape repeat_dim(const Shape& x, size_t dim, int64_t times, const char* op) {
  check_dim(x, dim, op);
  if (times < 0)
    throw ValueError(op, "negative repeat count " + str(times) + " for dim " + str(static_cast<int64_t>(dim)));
  Shape out = x;
  out[dim] = checked_mul(out[dim], times, op);
  checked_num_elements(out, op);
  return out;
}

}  // namespace burn::shape_rules
