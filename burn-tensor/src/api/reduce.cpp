// Tensor API, reduce group: full and per-dim reductions, variance, sorting and top-k.
#include "checks.hpp"
#include "dispatch.hpp"

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
  if (op_info(op).group != OpGroup::reduce)
    throw ValueError("reduce_all", std::string("op ") + name + " is not a reduction");
  if (op != OpId::any && op != OpId::all) require_numeric(h, name);
  if (op == OpId::mean || op == OpId::max || op == OpId::min) require_nonempty(h, name);
  std::optional<Prim> r = dispatch<Prim, Prim>(b, op, std::move(h.prim));
  if (!r) throw ValueError("reduce_all", std::string("op ") + name + " is not a full reduction");
  return with(h, std::move(*r));
}

H reduce_dim(OpId op, H h, int64_t dim) {
  const char* name = name_of(op);
  Backend& b = be(h, name);
  if (op_info(op).group != OpGroup::reduce)
    throw ValueError("reduce_dim", std::string("op ") + name + " is not a reduction");
  size_t d = normalize_dim(dim, rank(h), name);
  if (op != OpId::any_dim && op != OpId::all_dim) require_numeric(h, name);
  const bool needs_elements = op == OpId::max_dim || op == OpId::min_dim || op == OpId::argmax ||
                              op == OpId::argmin || op == OpId::mean_dim;
  if (needs_elements && shape(h)[d] == 0)
    throw ValueError(name, "cannot reduce dim " + std::to_string(d) + " of size 0 in shape " + shape(h).to_string());
  std::optional<Prim> r = dispatch<Prim, Prim, size_t>(b, op, std::move(h.prim), d);
  if (!r) throw ValueError("reduce_dim", std::string("op ") + name + " is not a reduction over a dim");
  return with(h, std::move(*r));
}

std::pair<H, H> reduce_dim_with_indices(OpId op, H h, int64_t dim) {
  const char* name = name_of(op);
  Backend& b = be(h, name);
  if (op_info(op).group != OpGroup::reduce)
    throw ValueError("reduce_dim_with_indices", std::string("op ") + name + " is not a reduction");
  require_numeric(h, name);
  size_t d = normalize_dim(dim, rank(h), name);
  if (shape(h)[d] == 0) throw ValueError(name, "cannot reduce dim " + std::to_string(d) + " of size 0");
  std::optional<PrimPair> p = dispatch<PrimPair, Prim, size_t>(b, op, std::move(h.prim), d);
  if (!p) throw ValueError("reduce_dim_with_indices", std::string("op ") + name + " has no indices form");
  return {with(h, std::move(p->first)), with(h, std::move(p->second))};
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

}  // namespace burn::api
