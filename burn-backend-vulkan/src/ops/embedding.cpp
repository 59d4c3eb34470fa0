// Embedding ops on the indexing kernels: the lookup is a gather of weight rows, the backward a scatter
// of gradient rows into zeros with one invocation per column, summing repeated indices in order (as the
// cpu backend does, so results match it exactly).
#include <string>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "ops/indexing.hpp"

namespace burn::vulkan {

namespace {

const char* const kRows = "the embedding rows";

// The indices as a 1-D view of n entries (a copy only when they are a view that cannot be flattened).
VkPtr flat_indices(VulkanBackend& be, const Prim& indices, const char* op) {
  const VkPtr idx = be.vk(indices, op);
  check_index_dtype(*idx, op);
  const int64_t n = idx->shape().num_elements();
  return be.vk(be.reshape(idx, Shape{n}), op);
}

}  // namespace

Prim VulkanBackend::embedding(Prim weight, Prim indices) {
  const VkPtr w = vk(weight, "embedding");
  const Shape out = shape_rules::embedding(w->shape(), indices->shape());
  const VkPtr idx = flat_indices(*this, indices, "embedding");
  const int64_t n = idx->shape()[0], e = w->shape()[1];
  // Row i of the result is weight row idx[i]: a gather along dim 0 with the index repeated along dim 1.
  const VkPtr rows =
      run_gather(*this, w, 0, make_view(idx, Shape{n, e}, {idx->strides()[0], 0}, idx->offset()), "embedding", kRows);
  return make_view(rows, out, contiguous_strides(out), 0);
}

Prim VulkanBackend::embedding_backward(Prim weight, Prim grad_out, Prim indices) {
  const VkPtr w = vk(weight, "embedding_backward");
  const Shape want = shape_rules::embedding(w->shape(), indices->shape(), "embedding_backward");
  const Shape ws = w->shape();
  const DType dt = w->dtype();
  const VkPtr g = vk(grad_out, "embedding_backward");
  if (g->dtype() != dt)
    throw DTypeError("embedding_backward", "weight " + std::string(dtype_name(dt)) + " and grad_out " +
                                               std::string(dtype_name(g->dtype())) + " differ");
  if (dt == DType::Bool) throw DTypeError("embedding_backward", "weight must be numeric, got bool");
  const VkPtr idx = flat_indices(*this, indices, "embedding_backward");
  const int64_t n = idx->shape()[0], e = ws[1];
  if (g->shape() != want)
    throw ShapeError("embedding_backward",
                     "grad_out has shape " + g->shape().to_string() + ", expected " + want.to_string());
  const VkPtr out = vk(full(ws, Scalar(0.0), dt), "embedding_backward");
  const VkPtr rows = vk(reshape(g, Shape{n, e}), "embedding_backward");
  run_scatter(*this, out, 0, make_view(idx, Shape{n, e}, {idx->strides()[0], 0}, idx->offset()), rows,
              "embedding_backward", kRows);
  return out;
}

}  // namespace burn::vulkan
