// Backward of the reductions: sums and means spread the gradient back over the reduced elements.
#include "op_helpers.hpp"

namespace burn::autodiff {

Prim AutodiffBackend::sum(Prim x) {
  return record_unary(*this, OpId::sum, std::move(x), &Backend::sum, false, false, [](Step& s, const H& g) -> Hs {
    const Shape& shape = s.input_shape(0);
    return {T(g).reshape(Shape(std::vector<int64_t>(shape.rank(), 1))).expand(shape)};
  });
}

Prim AutodiffBackend::mean(Prim x) {
  return record_unary(*this, OpId::mean, std::move(x), &Backend::mean, false, false, [](Step& s, const H& g) -> Hs {
    const Shape& shape = s.input_shape(0);
    const double n = static_cast<double>(shape.num_elements());
    return {(T(g) / n).reshape(Shape(std::vector<int64_t>(shape.rank(), 1))).expand(shape)};
  });
}

Prim AutodiffBackend::sum_dim(Prim x, size_t dim) {
  return record1({OpId::sum_dim}, {std::move(x)}, [dim](Backend& b, Prims p) { return b.sum_dim(std::move(p[0]), dim); },
                 [](Step& s, const H& g) -> Hs { return {T(g).expand(s.input_shape(0))}; });
}

Prim AutodiffBackend::mean_dim(Prim x, size_t dim) {
  return record1({OpId::mean_dim}, {std::move(x)}, [dim](Backend& b, Prims p) { return b.mean_dim(std::move(p[0]), dim); },
                 [dim](Step& s, const H& g) -> Hs {
                   const Shape& shape = s.input_shape(0);
                   return {(T(g) / static_cast<double>(shape[dim])).expand(shape)};
                 });
}

}  // namespace burn::autodiff
