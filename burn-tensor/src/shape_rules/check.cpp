// The checks every family of rules shares: dims in range, option lists, NC<spatial> shapes.
#include "check.hpp"

namespace burn::shape_rules {
namespace detail {

bool Check::countable(const Shape& s) const {
  try {
    checked_num_elements(s, op_);
    return true;
  } catch (const ShapeError&) {  // only an uncountable shape gets here: the valid path throws nothing
    if (raise_) throw;
    return false;
  }
}

bool per_dim(std::vector<int64_t>& v, size_t n, int64_t fill, const char* what, const Check& c) {
  if (v.size() == n) return true;
  if (v.empty()) return v.assign(n, fill), true;
  if (v.size() == 1) {
    const int64_t one = v[0];
    return v.assign(n, one), true;
  }
  return c.refuse<ShapeError>([&] {
    return std::string(what) + " " + dims_text(v) + " has " + str(static_cast<int64_t>(v.size())) + " values for " +
           str(static_cast<int64_t>(n)) + " spatial dims; give 1 or " + str(static_cast<int64_t>(n));
  });
}

bool positive(const std::vector<int64_t>& v, const char* what, const Check& c) {
  for (int64_t e : v)
    if (e <= 0)
      return c.refuse<ValueError>([&] { return std::string(what) + " must be positive, got " + dims_text(v); });
  return true;
}

bool non_negative(const std::vector<int64_t>& v, const char* what, const Check& c) {
  for (int64_t e : v)
    if (e < 0)
      return c.refuse<ValueError>([&] { return std::string(what) + " must be non-negative, got " + dims_text(v); });
  return true;
}

bool dilated_extent(int64_t dilation, int64_t kernel, int64_t& r, const Check& c) {
  return c.mul(dilation, kernel - 1, r) && c.add(r, 1, r);
}

std::optional<size_t> spatial_rank(const Shape& x, const Check& c) {
  const size_t r = x.rank();
  if (r < 3 || r > 5)
    return c.fail<ShapeError>(
        [&] { return "expected an input of rank 3, 4 or 5 (N, C, spatial...), got shape " + x.to_string(); });
  return r - 2;
}

bool dim_in_range(const Shape& x, size_t dim, const Check& c) {
  if (dim < x.rank()) return true;
  return c.refuse<IndexError>([&] {
    return "dim " + std::to_string(dim) + " is out of range for a tensor of rank " + std::to_string(x.rank()) +
           " (shape " + x.to_string() + ")";
  });
}

Shape nc_with(const Shape& x, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims{x[0], x[1]};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  return Shape(std::move(dims));
}

size_t nonempty_planes(const Shape& x, const char* op) {
  const size_t n = *spatial_rank(x, {op, true});
  for (int64_t d : x)
    if (d <= 0) throw ShapeError(op, "input shape " + x.to_string() + " has an empty dim");
  return n;
}

Shape resized(const Shape& x, const std::vector<int64_t>& size, const char* op) {
  const size_t n = nonempty_planes(x, op);
  if (size.size() != n)
    throw ShapeError(op, "output size " + dims_text(size) + " needs " + str(static_cast<int64_t>(n)) +
                             " values for input " + x.to_string());
  for (int64_t s : size)
    if (s <= 0) throw ValueError(op, "output size must be positive, got " + dims_text(size));
  Shape shape = nc_with(x, size);
  checked_num_elements(shape, op);
  return shape;
}

}  // namespace detail

void check_dim(const Shape& x, size_t dim, const char* op) { detail::dim_in_range(x, dim, {op, true}); }

Axes normalize_axes(const Axes& axes, size_t rank, const char* op) {
  Axes out;
  out.reserve(axes.size());
  std::vector<bool> seen(rank, false);
  for (int64_t a : axes) {
    const size_t d = normalize_dim(a, rank, op);
    if (seen[d]) throw IndexError(op, "dim " + std::to_string(a) + " is repeated in " + detail::dims_text(axes));
    seen[d] = true;
    out.push_back(static_cast<int64_t>(d));
  }
  return out;
}

Shape along_dim(const Shape& x, size_t dim, const char* op) {
  check_dim(x, dim, op);
  return x;
}

}  // namespace burn::shape_rules
