// Shape printing, broadcasting and dim normalisation.
#include "burn/tensor/shape.hpp"

#include <algorithm>
#include <sstream>

#include "burn/tensor/error.hpp"

namespace burn {

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string Shape::to_string() const {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < dims_.size(); ++i) os << (i ? ", " : "") << dims_[i];
  os << ']';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.to_string(); }

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError(op, "shapes " + a.to_string() + " and " + b.to_string() +
                               " cannot be broadcast: dim " + std::to_string(i) + " is " +
                               std::to_string(da) + " vs " + std::to_string(db));
    out[i] = da == 1 ? db : da;
  }
  return Shape(std::move(out));
}

size_t normalize_dim(int64_t dim, size_t rank, const char* op) {
  int64_t r = static_cast<int64_t>(rank);
  int64_t d = dim < 0 ? dim + r : dim;
  if (d < 0 || d >= r)
    throw IndexError(op, "dim " + std::to_string(dim) + " is out of range for a tensor of rank " +
                             std::to_string(rank));
  return static_cast<size_t>(d);
}

std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.rank());
  int64_t acc = 1;
  for (size_t i = s.rank(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(s[i], 1);  // a zero-size dim must not zero the outer strides
  }
  return st;
}

}  // namespace burn
