// Shape rule of the embedding group: a table lookup by index.
#include "check.hpp"

namespace burn::shape_rules {

Shape embedding(const Shape& weight, const Shape& indices, const char* op) {
  if (weight.rank() != 2) throw ShapeError(op, "weight must be [num_embeddings, dim], got " + weight.to_string());
  std::vector<int64_t> out = indices.dims();
  out.push_back(weight[1]);
  Shape shape(std::move(out));
  checked_num_elements(shape, op);
  return shape;
}

}  // namespace burn::shape_rules
