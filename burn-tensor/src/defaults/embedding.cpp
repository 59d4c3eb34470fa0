// Default composite bodies of the embedding module ops: a row select of the weight and, for the
// backward, a row select_add of the gradient into zeros.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"

namespace burn {

Prim Backend::embedding(Prim weight, Prim indices) {
  const Shape out = shape_rules::embedding(weight->shape(), indices->shape());
  const int64_t n = indices->shape().num_elements();
  Prim rows = select(std::move(weight), 0, reshape(std::move(indices), Shape{n}));
  return reshape(std::move(rows), out);
}

Prim Backend::embedding_backward(Prim weight, Prim grad_out, Prim indices) {
  const Shape ws = weight->shape();
  const DType dt = weight->dtype();
  weight.reset();
  const int64_t n = indices->shape().num_elements();
  Prim acc = full(ws, Scalar(0.0), dt);
  return select_add(std::move(acc), 0, reshape(std::move(indices), Shape{n}),
                    reshape(std::move(grad_out), Shape{n, ws[1]}));
}

}  // namespace burn
