// Backward of embedding: the backend's embedding_backward kernel on the step's device.
#include "burn/tensor/module.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

// d/dweight only: the rows of g summed into the rows the indices picked. The kernel reads only the
// weight's shape, so a zero-stride stand-in is passed rather than keeping the weight alive.
Prim AutodiffBackend::embedding(Prim weight, Prim indices) {
  return record1(
      {OpId::embedding, in(1)}, {std::move(weight), std::move(indices)},
      [](Backend& b, Prims p) { return b.embedding(std::move(p[0]), std::move(p[1])); },
      [](Step& s, const H& g) -> Hs {
        return {on_step(s, s.device()->embedding_backward(shape_stand_in(s, 0).prim, g.prim, s.input(1).prim)), H{}};
      });
}

}  // namespace burn::autodiff
