// The DEFAULT ops of the layout (cat, repeat_dim) group: composite bodies built from other
// ops of the table, so a backend that implements only the core ops gets them all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace burn {
using namespace detail;

namespace {

Slices full_slices(const Shape& s) {
  Slices r(s.rank());
  for (size_t i = 0; i < s.rank(); ++i) r[i] = SliceRange{0, s[i], 1};
  return r;
}

}  // namespace

// ---- layout ----------------------------------------------------------------------------------

Prim Backend::cat(const Prims& xs, size_t dim) {
  std::vector<const Shape*> shapes;
  for (size_t k = 0; k < xs.size(); ++k) {
    if (xs[k]->dtype() != xs[0]->dtype()) {
      throw DTypeError("cat", "input " + std::to_string(k) + " is " + std::string(dtype_name(xs[k]->dtype())) +
                                  " but input 0 is " + std::string(dtype_name(xs[0]->dtype())));
    }
    shapes.push_back(&xs[k]->shape());
  }
  const Shape out = shape_rules::cat(shapes, dim);
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
  const Shape out = shape_rules::repeat_dim(x->shape(), dim, times);
  if (times == 1) return x;
  if (times == 0 || out.num_elements() == 0) return empty(out, x->dtype());
  std::vector<int64_t> dims = x->shape().dims();
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(dim), 1);
  Shape tiled(dims);
  tiled[dim] = times;
  x = reshape(std::move(x), Shape(std::move(dims)));
  x = expand(std::move(x), tiled);
  return reshape(std::move(x), out);
}

}  // namespace burn
