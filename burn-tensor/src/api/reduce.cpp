// Tensor API, reduce group: full and per-dim reductions, variance, sorting, top-k and max_abs.
#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

void require_nonempty(const H& h, const char* op) {
  if (shape(h).num_elements() == 0)
    throw ValueError(op, "cannot reduce an empty tensor of shape " + shape(h).to_string());
}

}  // namespace

H reduce_all(OpId op, H h) {
  const char* name = name_of(op);
  Backend& b = be(h, name);
  Prim x = std::move(h.prim);
  switch (op) {
    case OpId::any: return with(h, b.any(std::move(x)));
    case OpId::all: return with(h, b.all(std::move(x)));
    default: break;
  }
  require_numeric(H{h.device, x}, name);
  switch (op) {
    case OpId::sum: return with(h, b.sum(std::move(x)));
    case OpId::mean: require_nonempty(H{h.device, x}, name); return with(h, b.mean(std::move(x)));
    case OpId::prod: return with(h, b.prod(std::move(x)));
    case OpId::max: require_nonempty(H{h.device, x}, name); return with(h, b.max(std::move(x)));
    case OpId::min: require_nonempty(H{h.device, x}, name); return with(h, b.min(std::move(x)));
    default: throw ValueError("reduce_all", std::string("op ") + name + " is not a full reduction");
  }
}

H reduce_dim(OpId op, H h, int64_t dim) {
  const char* name = name_of(op);
  Backend& b = be(h, name);
  size_t d = normalize_dim(dim, rank(h), name);
  if (op == OpId::any_dim) return with(h, b.any_dim(std::move(h.prim), d));
  if (op == OpId::all_dim) return with(h, b.all_dim(std::move(h.prim), d));
  require_numeric(h, name);
  bool needs_elements = op == OpId::max_dim || op == OpId::min_dim || op == OpId::argmax || op == OpId::argmin ||
                        op == OpId::mean_dim;
  if (needs_elements && shape(h)[d] == 0)
    throw ValueError(name, "cannot reduce dim " + std::to_string(d) + " of size 0 in shape " + shape(h).to_string());
  Prim x = std::move(h.prim);
  switch (op) {
#define BURN_DIM_CASE(n) case OpId::n: return with(h, b.n(std::move(x), d));
    BURN_DIM_CASE(sum_dim) BURN_DIM_CASE(mean_dim) BURN_DIM_CASE(prod_dim) BURN_DIM_CASE(max_dim)
    BURN_DIM_CASE(min_dim) BURN_DIM_CASE(argmax) BURN_DIM_CASE(argmin) BURN_DIM_CASE(cumsum)
    BURN_DIM_CASE(cumprod) BURN_DIM_CASE(cummax) BURN_DIM_CASE(cummin)
#undef BURN_DIM_CASE
    default: throw ValueError("reduce_dim", std::string("op ") + name + " is not a reduction over a dim");
  }
}

std::pair<H, H> reduce_dim_with_indices(OpId op, H h, int64_t dim) {
  const char* name = name_of(op);
  Backend& b = be(h, name);
  require_numeric(h, name);
  size_t d = normalize_dim(dim, rank(h), name);
  if (shape(h)[d] == 0) throw ValueError(name, "cannot reduce dim " + std::to_string(d) + " of size 0");
  PrimPair p = op == OpId::max_dim_with_indices ? b.max_dim_with_indices(std::move(h.prim), d)
                                                : b.min_dim_with_indices(std::move(h.prim), d);
  return {with(h, std::move(p.first)), with(h, std::move(p.second))};
}

H var(H h, int64_t dim, int64_t correction) {
  Backend& b = float_unary(h, "var");
  size_t d = normalize_dim(dim, rank(h), "var");
  if (correction < 0) throw ValueError("var", "correction must be non-negative, got " + std::to_string(correction));
  return with(h, b.var(std::move(h.prim), d, correction));
}

std::pair<H, H> var_mean(H h, int64_t dim, int64_t correction) {
  H v = var(h, dim, correction);
  H m = reduce_dim(OpId::mean_dim, std::move(h), dim);
  return {std::move(v), std::move(m)};
}

std::pair<H, H> sort_with_indices(H h, int64_t dim, bool descending, bool stable) {
  Backend& b = numeric_unary(h, "sort");
  size_t d = normalize_dim(dim, rank(h), "sort");
  PrimPair p = b.sort(std::move(h.prim), d, descending, stable);
  return {with(h, std::move(p.first)), with(h, std::move(p.second))};
}

H argsort(H h, int64_t dim, bool descending, bool stable) {
  Backend& b = numeric_unary(h, "argsort");
  size_t d = normalize_dim(dim, rank(h), "argsort");
  return with(h, b.argsort(std::move(h.prim), d, descending, stable));
}

std::pair<H, H> topk_with_indices(H h, int64_t k, int64_t dim, bool largest) {
  Backend& b = numeric_unary(h, "topk");
  size_t d = normalize_dim(dim, rank(h), "topk");
  if (k < 0 || k > shape(h)[d])
    throw IndexError("topk", "k = " + std::to_string(k) + " is out of range for dim " + std::to_string(d) +
                                 " of size " + std::to_string(shape(h)[d]));
  PrimPair p = b.topk(std::move(h.prim), k, d, largest);
  return {with(h, std::move(p.first)), with(h, std::move(p.second))};
}

// Burn's max_abs: max(|x|), NaN when any element is NaN (max propagates it). Int abs wraps, so the most
// negative value stays negative, as torch.abs.
H max_abs(H h) {
  Backend& b = numeric_unary(h, "max_abs");
  require_nonempty(h, "max_abs");
  return with(h, b.max(b.abs(std::move(h.prim))));
}

H max_abs_dim(H h, int64_t dim) {
  Backend& b = numeric_unary(h, "max_abs_dim");
  size_t d = normalize_dim(dim, rank(h), "max_abs_dim");
  if (shape(h)[d] == 0)
    throw ValueError("max_abs_dim", "cannot reduce dim " + std::to_string(d) + " of size 0 in shape " + shape(h).to_string());
  return with(h, b.max_dim(b.abs(std::move(h.prim)), d));
}

}  // namespace burn::api
