// Tensor API, pool group: max, average and adaptive pooling over 1 to 3 spatial dims, and their
// backward ops. Device and dtype checks, the pool rules (which normalise the options), the backend op.
#include <algorithm>
#include <string>

#include "burn/tensor/module.hpp"
#include "module_checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

// A float x, and the pool rule's output shape (it normalises `p`), allocatable.
Shape pooled(const H& x, PoolOptions& p, bool is_max, const char* op) {
  be(x, op);
  require_float(x, op);
  const Shape out = shape_rules::pool(shape(x), p, is_max, op);
  check_output(out, x, op);
  return out;
}

// A float x, and the adaptive pool rule's output shape for output_size, allocatable.
Shape adaptive(const H& x, const std::vector<int64_t>& output_size, const char* op) {
  be(x, op);
  require_float(x, op);
  const Shape out = shape_rules::adaptive_pool(shape(x), output_size, op);
  check_output(out, x, op);
  return out;
}

// The output size of an adaptive pool backward: grad_out's spatial dims.
std::vector<int64_t> grad_spatial(const H& x, const H& grad_out, const char* op) {
  be(x, op);
  if (rank(grad_out) != rank(x))
    throw ShapeError(
        op, "grad_out " + shape(grad_out).to_string() + " and input " + shape(x).to_string() + " differ in rank");
  if (rank(x) < 2) return {};  // the rule refuses x
  return {shape(grad_out).begin() + 2, shape(grad_out).end()};
}

void check_indices(const H& x, const H& g, const H& idx, const char* op) {
  same_device(x, idx, op);
  require_index(idx, op);
  if (shape(idx) != shape(g))
    throw ShapeError(op, "indices have shape " + shape(idx).to_string() + ", grad_out " + shape(g).to_string());
}

}  // namespace

// ---------------------------------------------------------------------------- pooling

H max_pool(H x, const PoolOptions& options) {
  PoolOptions p = options;
  pooled(x, p, true, "max_pool");
  return with(x, be(x, "max_pool").max_pool(std::move(x.prim), p));
}

std::pair<H, H> max_pool_with_indices(H x, const PoolOptions& options) {
  PoolOptions p = options;
  pooled(x, p, true, "max_pool_with_indices");
  H like = x;
  auto [v, i] = be(x, "max_pool_with_indices").max_pool_with_indices(std::move(x.prim), p);
  return {with(like, std::move(v)), with(like, std::move(i))};
}

H max_pool_backward(H x, const H& grad_out, const H& indices, const PoolOptions& options) {
  PoolOptions p = options;
  check_grad_out(x, grad_out, pooled(x, p, true, "max_pool_backward"), "max_pool_backward");
  check_indices(x, grad_out, indices, "max_pool_backward");
  return with(x, be(x, "max_pool_backward").max_pool_backward(std::move(x.prim), grad_out.prim, indices.prim, p));
}

H avg_pool(H x, const PoolOptions& options) {
  PoolOptions p = options;
  pooled(x, p, false, "avg_pool");
  return with(x, be(x, "avg_pool").avg_pool(std::move(x.prim), p));
}

H avg_pool_backward(H x, const H& grad_out, const PoolOptions& options) {
  PoolOptions p = options;
  check_grad_out(x, grad_out, pooled(x, p, false, "avg_pool_backward"), "avg_pool_backward");
  return with(x, be(x, "avg_pool_backward").avg_pool_backward(std::move(x.prim), grad_out.prim, p));
}

H adaptive_avg_pool(H x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_avg_pool";
  adaptive(x, output_size, op);
  return with(x, be(x, op).adaptive_avg_pool(std::move(x.prim), Shape(output_size)));
}

H adaptive_avg_pool_backward(H x, const H& grad_out) {
  const char* op = "adaptive_avg_pool_backward";
  check_grad_out(x, grad_out, adaptive(x, grad_spatial(x, grad_out, op), op), op);
  return with(x, be(x, op).adaptive_avg_pool_backward(std::move(x.prim), grad_out.prim));
}

std::pair<H, H> adaptive_max_pool(H x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_max_pool";
  adaptive(x, output_size, op);
  H like = x;
  auto [v, i] = be(x, op).adaptive_max_pool(std::move(x.prim), Shape(output_size));
  return {with(like, std::move(v)), with(like, std::move(i))};
}

H adaptive_max_pool_backward(H x, const H& grad_out, const H& indices) {
  const char* op = "adaptive_max_pool_backward";
  check_grad_out(x, grad_out, adaptive(x, grad_spatial(x, grad_out, op), op), op);
  check_indices(x, grad_out, indices, op);
  return with(x, be(x, op).adaptive_max_pool_backward(std::move(x.prim), grad_out.prim, indices.prim));
}

}  // namespace burn::api
