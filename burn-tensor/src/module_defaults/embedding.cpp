// Default composite bodies of the embedding module ops (embedding lookup and its backward).
// Placeholders until written: each throws Unsupported naming the op.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Prim Backend::embedding(Prim weight, Prim indices) {
  throw Unsupported("embedding", "not implemented yet");
}

Prim Backend::embedding_backward(Prim weight, Prim grad_out, Prim indices) {
  throw Unsupported("embedding_backward", "not implemented yet");
}

}  // namespace burn
