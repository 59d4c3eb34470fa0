// Default composite bodies of the attention module ops (scaled dot-product attention).
// Placeholders until written: each throws Unsupported naming the op.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Prim Backend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) {
  throw Unsupported("attention", "not implemented yet");
}

}  // namespace burn
