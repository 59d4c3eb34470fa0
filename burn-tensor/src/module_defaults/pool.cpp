// Default composite bodies of the pool module ops (max, average and adaptive pooling, and their backward).
// Placeholders until written: each throws Unsupported naming the op.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Prim Backend::max_pool(Prim x, const PoolOptions& options) {
  throw Unsupported("max_pool", "not implemented yet");
}

PrimPair Backend::max_pool_with_indices(Prim x, const PoolOptions& options) {
  throw Unsupported("max_pool_with_indices", "not implemented yet");
}

Prim Backend::max_pool_backward(Prim x, Prim grad_out, Prim indices, const PoolOptions& options) {
  throw Unsupported("max_pool_backward", "not implemented yet");
}

Prim Backend::avg_pool(Prim x, const PoolOptions& options) {
  throw Unsupported("avg_pool", "not implemented yet");
}

Prim Backend::avg_pool_backward(Prim x, Prim grad_out, const PoolOptions& options) {
  throw Unsupported("avg_pool_backward", "not implemented yet");
}

Prim Backend::adaptive_avg_pool(Prim x, const Shape& output_size) {
  throw Unsupported("adaptive_avg_pool", "not implemented yet");
}

Prim Backend::adaptive_avg_pool_backward(Prim x, Prim grad_out) {
  throw Unsupported("adaptive_avg_pool_backward", "not implemented yet");
}

PrimPair Backend::adaptive_max_pool(Prim x, const Shape& output_size) {
  throw Unsupported("adaptive_max_pool", "not implemented yet");
}

Prim Backend::adaptive_max_pool_backward(Prim x, Prim grad_out, Prim indices) {
  throw Unsupported("adaptive_max_pool_backward", "not implemented yet");
}

}  // namespace burn
