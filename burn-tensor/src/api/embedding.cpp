// Tensor API, embedding group: table lookup by index and its backward op.
#include <algorithm>
#include <string>

#include "burn/tensor/module.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

// ---------------------------------------------------------------------------- embedding

H embedding(H weight, const H& indices) {
  const char* op = "embedding";
  be(weight, op);
  same_device(weight, indices, op);
  require_index(indices, op);
  if (rank(weight) != 2) throw ShapeError(op, "weight must be [num_embeddings, dim], got " + shape(weight).to_string());
  if (is_bool(weight.prim->dtype())) throw DTypeError(op, "weight must be numeric, got bool");
  std::vector<int64_t> out = shape(indices).dims();
  out.push_back(shape(weight)[1]);
  checked_bytes(Shape(out), dtype_size(weight.prim->dtype()), op);
  return with(weight, be(weight, op).embedding(std::move(weight.prim), indices.prim));
}

H embedding_backward(H weight, const H& grad_out, const H& indices) {
  const char* op = "embedding_backward";
  be(weight, op);
  same_device(weight, grad_out, op);
  same_device(weight, indices, op);
  require_index(indices, op);
  require_float(weight, op);
  same_dtype(weight, grad_out, op);
  if (rank(weight) != 2) throw ShapeError(op, "weight must be [num_embeddings, dim], got " + shape(weight).to_string());
  std::vector<int64_t> want = shape(indices).dims();
  want.push_back(shape(weight)[1]);
  if (shape(grad_out) != Shape(want))
    throw ShapeError(op, "grad_out has shape " + shape(grad_out).to_string() + ", expected " + Shape(want).to_string());
  return with(weight, be(weight, op).embedding_backward(std::move(weight.prim), grad_out.prim, indices.prim));
}

}  // namespace burn::api
