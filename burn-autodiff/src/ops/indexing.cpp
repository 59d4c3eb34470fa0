// Backward of the indexing ops: a gather's gradient is scattered back to the indices it read, an
// add's gradient is gathered from where it wrote, and masks split g between the two sources. The
// index and mask inputs are recorded (so recomputation can rerun the op) but never differentiated.
#include "op_helpers.hpp"

namespace burn::autodiff {

Prim AutodiffBackend::gather(Prim x, size_t dim, Prim indices) {
  return record1(
      {OpId::gather, in(1)}, {std::move(x), std::move(indices)},
      [dim](Backend& b, Prims p) { return b.gather(std::move(p[0]), dim, std::move(p[1])); },
      [dim](Step& s, const H& g) -> Hs {
        T z = zeros(s, s.input_shape(0), s.input_dtype(0));
        return {api::scatter_add(z.h, sdim(dim), s.input(1), g), H{}};
      });
}

Prim AutodiffBackend::scatter_add(Prim x, size_t dim, Prim indices, Prim values) {
  const uint32_t save = tracked(values) ? in(1) : 0u;
  return record1(
      {OpId::scatter_add, save}, {std::move(x), std::move(indices), std::move(values)},
      [dim](Backend& b, Prims p) { return b.scatter_add(std::move(p[0]), dim, std::move(p[1]), std::move(p[2])); },
      [dim](Step& s, const H& g) -> Hs {
        Hs out(3);
        if (s.needs(0)) out[0] = g;
        if (s.needs(2)) out[2] = api::gather(g, sdim(dim), s.input(1));
        return out;
      });
}

Prim AutodiffBackend::select(Prim x, size_t dim, Prim indices) {
  return record1(
      {OpId::select, in(1)}, {std::move(x), std::move(indices)},
      [dim](Backend& b, Prims p) { return b.select(std::move(p[0]), dim, std::move(p[1])); },
      [dim](Step& s, const H& g) -> Hs {
        T z = zeros(s, s.input_shape(0), s.input_dtype(0));
        return {api::select_assign(z.h, sdim(dim), s.input(1), g), H{}};  // adds, like index_add
      });
}

Prim AutodiffBackend::select_add(Prim x, size_t dim, Prim indices, Prim values) {
  const uint32_t save = tracked(values) ? in(1) : 0u;
  return record1(
      {OpId::select_add, save}, {std::move(x), std::move(indices), std::move(values)},
      [dim](Backend& b, Prims p) { return b.select_add(std::move(p[0]), dim, std::move(p[1]), std::move(p[2])); },
      [dim](Step& s, const H& g) -> Hs {
        Hs out(3);
        if (s.needs(0)) out[0] = g;
        if (s.needs(2)) out[2] = api::select(g, sdim(dim), s.input(1));
        return out;
      });
}

// value where the mask is set, else x; either may have been broadcast, so each part is summed back.
Prim AutodiffBackend::mask_where(Prim x, Prim mask, Prim value) {
  const Shape x_shape = x ? x->shape() : Shape{};
  const Shape value_shape = value ? value->shape() : Shape{};
  return record1(
      {OpId::mask_where, in(1)}, {std::move(x), std::move(mask), std::move(value)},
      [](Backend& b, Prims p) { return b.mask_where(std::move(p[0]), std::move(p[1]), std::move(p[2])); },
      [x_shape, value_shape](Step& s, const H& g) -> Hs {
        Hs out(3);
        H mask = s.input(1);
        if (s.needs(0)) out[0] = sum_to(api::mask_fill(g, mask, 0), x_shape);
        if (s.needs(2)) out[2] = sum_to(where(mask, g, zeros(s, T(g).shape(), T(g).dtype())), value_shape);
        return out;
      });
}

Prim AutodiffBackend::mask_fill(Prim x, Prim mask, Scalar value) {
  return record1(
      {OpId::mask_fill, in(1)}, {std::move(x), std::move(mask)},
      [value](Backend& b, Prims p) { return b.mask_fill(std::move(p[0]), std::move(p[1]), value); },
      [](Step& s, const H& g) -> Hs {
        return {api::mask_fill(g, s.input(1), 0), H{}};
      });
}

}  // namespace burn::autodiff
