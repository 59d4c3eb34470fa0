// Tensor API, reduce group: full and per-dim reductions, variance, sorting, top-k, max_abs, median and cov.
#include "autocast.hpp"
#include "burn/tensor/autodiff.hpp"
#include "checks.hpp"
#include "dispatch.hpp"

namespace burn::api {
using namespace detail;

H reduce_all(OpId op, H h) {
  autocast(op, {&h});
  const char* name = name_of(op);
  Backend& b = be(h, name);
  if (op_info(op).group != OpGroup::reduce)
    throw ValueError("reduce_all", std::string("op ") + name + " is not a reduction");
  if (op != OpId::any && op != OpId::all) require_numeric(h, name);
  shape_rules::reduce_all(shape(h), op == OpId::mean || op == OpId::max || op == OpId::min, name);
  std::optional<Prim> r = dispatch<Prim, Prim>(b, op, std::move(h.prim));
  if (!r) throw ValueError("reduce_all", std::string("op ") + name + " is not a full reduction");
  return with(h, std::move(*r));
}

H reduce_dim(OpId op, H h, int64_t dim) {
  autocast(op, {&h});
  const char* name = name_of(op);
  Backend& b = be(h, name);
  if (op_info(op).group != OpGroup::reduce)
    throw ValueError("reduce_dim", std::string("op ") + name + " is not a reduction");
  size_t d = normalize_dim(dim, rank(h), name);
  if (op != OpId::any_dim && op != OpId::all_dim) require_numeric(h, name);
  const bool needs_elements =
      op == OpId::max_dim || op == OpId::min_dim || op == OpId::argmax || op == OpId::argmin || op == OpId::mean_dim;
  shape_rules::reduce_dim(shape(h), d, needs_elements, name);
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
  shape_rules::reduce_dim(shape(h), d, true, name);
  std::optional<PrimPair> p = dispatch<PrimPair, Prim, size_t>(b, op, std::move(h.prim), d);
  if (!p) throw ValueError("reduce_dim_with_indices", std::string("op ") + name + " has no indices form");
  return {with(h, std::move(p->first)), with(h, std::move(p->second))};
}

H var(H h, int64_t dim, int64_t correction) {
  autocast(OpId::var, {&h});
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
  shape_rules::topk(shape(h), k, d);
  PrimPair p = b.topk(std::move(h.prim), k, d, largest);
  return {with(h, std::move(p.first)), with(h, std::move(p.second))};
}

// Burn's max_abs: max(|x|), NaN when any element is NaN (max propagates it). Int abs wraps, so the most
// negative value stays negative, as torch.abs.
H max_abs(H h) {
  Backend& b = numeric_unary(h, "max_abs");
  shape_rules::reduce_all(shape(h), true, "max_abs");
  return with(h, b.max(b.abs(std::move(h.prim))));
}

H max_abs_dim(H h, int64_t dim) {
  Backend& b = numeric_unary(h, "max_abs_dim");
  size_t d = normalize_dim(dim, rank(h), "max_abs_dim");
  shape_rules::reduce_dim(shape(h), d, true, "max_abs_dim");
  return with(h, b.max_dim(b.abs(std::move(h.prim)), d));
}

// The lower median is element (n - 1) / 2 of a stable ascending sort, so ties resolve to the earliest
// of the equal elements at that rank. A slice holding NaN gives NaN at its first NaN (torch 1.13).
// The values are gathered from the input, so the gradient flows to the chosen element.
std::pair<H, H> median_dim(H h, int64_t dim) {
  numeric_unary(h, "median");
  const size_t d = normalize_dim(dim, rank(h), "median");
  shape_rules::reduce_dim(shape(h), d, true, "median");
  const int64_t n = shape(h)[d];
  const int64_t di = static_cast<int64_t>(d);
  H idx = narrow(argsort(h, di, false, true), di, (n - 1) / 2, 1);
  if (is_float(h.prim->dtype())) {
    H nan = unary(OpId::is_nan, h);
    H has_nan = reduce_dim(OpId::any_dim, nan, di);
    H first_nan = reduce_dim(OpId::argmax, cast(nan, DType::I64), di);  // argmax picks the first of equal maxima
    idx = mask_where(std::move(idx), has_nan, first_nan);
  }
  H values = gather(std::move(h), di, idx);
  return {std::move(values), std::move(idx)};
}

// torch.median() spreads the gradient evenly over the elements equal to the median (and over the
// NaNs when it is NaN): m + sum((x - m) * mask) / count has the value m and exactly that gradient.
H median(H h) {
  numeric_unary(h, "median");
  shape_rules::reduce_all(shape(h), true, "median");
  H flat = reshape(std::move(h), {-1});
  H m = detach(median_dim(flat, 0).first);
  if (!is_require_grad(flat)) return m;  // only float tensors are tracked
  H both_nan = bool_binary(OpId::bool_and, unary(OpId::is_nan, flat), unary(OpId::is_nan, m));
  H mask = bool_binary(OpId::bool_or, compare(OpId::equal, flat, m), both_nan);
  H weights = cast(mask, flat.prim->dtype());
  H count = reduce_all(OpId::sum, weights);
  H spread = div(reduce_all(OpId::sum, mul(sub(flat, m), weights)), count);
  return add(std::move(m), spread);
}

H cov(H h, int64_t correction, const std::optional<H>& fweights, const std::optional<H>& aweights) {
  numeric_unary(h, "cov");
  if (rank(h) == 0 || rank(h) > 2)
    throw ShapeError("cov", "expects a 1-D or 2-D tensor (rows are variables), got shape " + shape(h).to_string());
  if (!is_float(h.prim->dtype())) h = cast(std::move(h), DType::F32);  // torch: integer input gives the default float
  const DType t = h.prim->dtype();
  const bool one_var = rank(h) == 1;
  H x = one_var ? reshape(std::move(h), {1, -1}) : std::move(h);
  const int64_t obs = shape(x)[1];
  if (obs == 0) throw ValueError("cov", "needs at least one observation, got shape " + shape(x).to_string());
  auto check_weights = [&](const H& w, const char* what, bool want_int) {
    same_device(x, w, "cov");
    if (want_int ? !is_int(w.prim->dtype()) : !is_float(w.prim->dtype()))
      throw DTypeError("cov", std::string(what) + " must be " + (want_int ? "an int" : "a float") + " tensor, got " +
                                  dt(w.prim->dtype()));
    if (rank(w) != 1 || shape(w)[0] != obs)
      throw ShapeError("cov", std::string(what) + " of shape " + shape(w).to_string() +
                                  " must be 1-D with one weight per observation (" + std::to_string(obs) + ")");
    // A host read, as torch does: a negative weight is an error, not a silent wrong covariance.
    TensorData lo = into_data(reduce_all(OpId::min, w)).convert(DType::F64);
    if (lo.to_vec<double>()[0] < 0)
      throw ValueError("cov", std::string(what) + " cannot be negative, found " + lo.to_string());
  };
  std::optional<H> w, aw;
  if (fweights) {
    check_weights(*fweights, "fweights", true);
    w = cast(*fweights, t);
  }
  if (aweights) {
    check_weights(*aweights, "aweights", false);
    aw = cast(*aweights, t);
    w = w ? mul(*w, *aw) : *aw;
  }
  // mean over the observations, weighted; the normalisation follows torch.cov exactly
  H w_sum = w ? reduce_all(OpId::sum, *w) : full(x.device, Shape{1}, static_cast<double>(obs), t);
  H avg = w ? div(reduce_dim(OpId::sum_dim, mul(x, *w), 1), w_sum) : reduce_dim(OpId::mean_dim, x, 1);
  H norm =
      w && aw && correction != 0
          ? sub(w_sum, mul_scalar(div(reduce_all(OpId::sum, mul(*w, *aw)), w_sum), static_cast<double>(correction)))
          : sub_scalar(w_sum, static_cast<double>(correction));
  norm = clamp_min(std::move(norm), 0.0);  // torch: degrees of freedom <= 0 divide by zero (inf / nan)
  H centered = sub(std::move(x), avg);
  H rhs = swap_dims(w ? mul(centered, *w) : centered, 0, 1);
  H c = div(matmul(std::move(centered), rhs), norm);
  return one_var ? reshape(std::move(c), {1}) : c;
}

}  // namespace burn::api
