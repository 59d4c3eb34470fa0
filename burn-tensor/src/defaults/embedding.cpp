// Default composite bodies of the embedding module ops: a row select of the weight and, for the
// backward, a row select_add of the gradient into zeros.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Prim Backend::embedding(Prim weight, Prim indices) {
  const int64_t e = weight->shape()[1];
  std::vector<int64_t> out = indices->shape().dims();
  out.push_back(e);
  const int64_t n = indices->shape().num_elements();
  Prim rows = select(std::move(weight), 0, reshape(std::move(indices), Shape{n}));
  return reshape(std::move(rows), Shape(out));
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
