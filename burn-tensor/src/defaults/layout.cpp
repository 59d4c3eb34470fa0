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

}  // namespace burn
