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
  if (is_bool(weight.prim->dtype())) throw DTypeError(op, "weight must be numeric, got bool");
  checked_bytes(shape_rules::embedding(shape(weight), shape(indices), op), dtype_size(weight.prim->dtype()), op);
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
  const Shape want = shape_rules::embedding(shape(weight), shape(indices), op);
  if (shape(grad_out) != want)
    throw ShapeError(op, "grad_out has shape " + shape(grad_out).to_string() + ", expected " + want.to_string());
  return with(weight, be(weight, op).embedding_backward(std::move(weight.prim), grad_out.prim, indices.prim));
}

}  // namespace burn::api
