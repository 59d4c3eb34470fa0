// Default composite bodies of the resample module ops (interpolation and pixel (un)shuffle).
// Placeholders until written: each throws Unsupported naming the op.
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn {

Prim Backend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) {
  throw Unsupported("interpolate", "not implemented yet");
}

Prim Backend::interpolate_backward(Prim x, Prim grad_out, const Shape& output_size, const InterpolateOptions& options) {
  throw Unsupported("interpolate_backward", "not implemented yet");
}

Prim Backend::pixel_shuffle(Prim x, int64_t factor) {
  throw Unsupported("pixel_shuffle", "not implemented yet");
}

Prim Backend::pixel_unshuffle(Prim x, int64_t factor) {
  throw Unsupported("pixel_unshuffle", "not implemented yet");
}

}  // namespace burn
