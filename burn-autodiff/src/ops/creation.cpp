// Backward of cast: the gradient cast back to the input's dtype.
#include "burn/tensor/module.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

Prim AutodiffBackend::cast(Prim x, DType dtype) {
  // Only float -> float keeps a gradient; a cast to int or bool gives an untracked result.
  if (!is_float(dtype)) {
    AdPrim& a = ad_prim(x, "cast");
    return wrap(inner()->cast(a.take_inner(x.use_count() == 1), dtype));
  }
  if (!any_tracked({&x})) return UnwrapBackend::cast(std::move(x), dtype);
  const DType from = x->dtype();
  return record1(
      {OpId::cast}, {std::move(x)}, [dtype](Backend& b, Prims p) { return b.cast(std::move(p[0]), dtype); },
      [from](Step&, const H& g) -> Hs { return {T(g).cast(from)}; });
}

}  // namespace burn::autodiff
