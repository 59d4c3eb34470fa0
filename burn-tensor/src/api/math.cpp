// Tensor API: arithmetic, matmul, unary math, reductions, sorting, comparison, bool and activations.
#include <type_traits>

#include "checks.hpp"

namespace burn::api {
using namespace detail;

namespace {

const char* name_of(OpId op) { return op_info(op).name; }

// Checks shared by every elementwise binary op: one device, one dtype, broadcastable shapes.
Backend& binary_checks(const H& a, const H& b, const char* op) {
  Backend& be_ = be(a, op);
  same_device(a, b, op);
  same_dtype(a, b, op);
  broadcast_shapes(shape(a), shape(b), op);
  return be_;
}

Backend& numeric_binary(const H& a, const H& b, const char* op) {
  Backend& be_ = binary_checks(a, b, op);
  require_numeric(a, op);
  return be_;
}

Backend& numeric_unary(const H& a, const char* op) {
  Backend& be_ = be(a, op);
  require_numeric(a, op);
  return be_;
}

Backend& float_unary(const H& a, const char* op) {
  Backend& be_ = be(a, op);
  require_float(a, op);
  return be_;
}

void require_nonempty(const H& h, const char* op) {
  if (shape(h).num_elements() == 0)
    throw ValueError(op, "cannot reduce an empty tensor of shape " + shape(h).to_string());
}

}  // namespace

H add(H a, const H& b) { return with(a, numeric_binary(a, b, "add").add(std::move(a.prim), b.prim)); }
H sub(H a, const H& b) { return with(a, numeric_binary(a, b, "sub").sub(std::move(a.prim), b.prim)); }
H mul(H a, const H& b) { return with(a, numeric_binary(a, b, "mul").mul(std::move(a.prim), b.prim)); }
H div(H a, const H& b) { return with(a, numeric_binary(a, b, "div").div(std::move(a.prim), b.prim)); }
H remainder(H a, const H& b) { return with(a, numeric_binary(a, b, "remainder").remainder(std::move(a.prim), b.prim)); }
H maximum(H a, const H& b) { return with(a, numeric_binary(a, b, "max_pair").maximum(std::move(a.prim), b.prim)); }
H minimum(H a, const H& b) { return with(a, numeric_binary(a, b, "min_pair").minimum(std::move(a.prim), b.prim)); }

H powf(H a, const H& b) {
  Backend& be_ = binary_checks(a, b, "powf");
  require_float(a, "powf");
  return with(a, be_.powf(std::move(a.prim), b.prim));
}

H atan2(H a, const H& b) {
  Backend& be_ = binary_checks(a, b, "atan2");
  require_float(a, "atan2");
  return with(a, be_.atan2(std::move(a.prim), b.prim));
}

H add_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "add_scalar").add_scalar(std::move(a.prim), s)); }
H sub_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "sub_scalar").sub_scalar(std::move(a.prim), s)); }
H mul_scalar(H a, Scalar s) { return with(a, numeric_unary(a, "mul_scalar").mul_scalar(std::move(a.prim), s)); }
H div_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "div_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("div_scalar", "integer division by zero");
  return with(a, b.div_scalar(std::move(a.prim), s));
}
H remainder_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "remainder_scalar");
  if (is_int(a.prim->dtype()) && s.as_int() == 0) throw ValueError("remainder_scalar", "integer remainder by zero");
  return with(a, b.remainder_scalar(std::move(a.prim), s));
}
H rsub_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "rsub_scalar");
  return with(a, b.add_scalar(b.neg(std::move(a.prim)), s));
}
H rdiv_scalar(H a, Scalar s) {
  Backend& b = numeric_unary(a, "rdiv_scalar");
  Prim num = b.full(shape(a), s, a.prim->dtype());
  return with(a, b.div(std::move(num), std::move(a.prim)));
}
H powf_scalar(H a, Scalar s) { return with(a, float_unary(a, "powf_scalar").powf_scalar(std::move(a.prim), s)); }

H powi(H a, const H& e) {
  Backend& b = numeric_unary(a, "powi");
  same_device(a, e, "powi");
  require_index(e, "powi");
  broadcast_shapes(shape(a), shape(e), "powi");
  DType t = a.prim->dtype();
  if (is_float(t)) return with(a, b.powf(std::move(a.prim), b.cast(e.prim, t)));
  Prim r = b.powf(b.cast(std::move(a.prim), DType::F64), b.cast(e.prim, DType::F64));
  return with(a, b.cast(b.round(std::move(r)), t));
}

H powi_scalar(H a, int64_t e) {
  Backend& b = numeric_unary(a, "powi_scalar");
  DType t = a.prim->dtype();
  if (is_float(t)) return with(a, b.powf_scalar(std::move(a.prim), e));
  Prim r = b.powf_scalar(b.cast(std::move(a.prim), DType::F64), e);
  return with(a, b.cast(b.round(std::move(r)), t));
}

H matmul(H a, const H& c) {
  Backend& b = numeric_unary(a, "matmul");
  same_device(a, c, "matmul");
  same_dtype(a, c, "matmul");
  const Shape &sa = shape(a), &sc = shape(c);
  if (sa.rank() != sc.rank())
    throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + " differ in rank");
  if (sa.rank() == 1) {  // dot product, as a [1] tensor
    if (sa[0] != sc[0])
      throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + ": lengths differ");
    Prim r = b.matmul(b.reshape(std::move(a.prim), Shape{1, sa[0]}), b.reshape(c.prim, Shape{sc[0], 1}));
    return with(a, b.reshape(std::move(r), Shape{1}));
  }
  size_t r = sa.rank();
  if (sa[r - 1] != sc[r - 2])
    throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + ": inner dimensions differ (" +
                                   std::to_string(sa[r - 1]) + " vs " + std::to_string(sc[r - 2]) + ")");
  for (size_t i = 0; i + 2 < r; ++i)
    if (sa[i] != sc[i] && sa[i] != 1 && sc[i] != 1)
      throw ShapeError("matmul", "lhs " + sa.to_string() + " and rhs " + sc.to_string() + ": batch dim " +
                                     std::to_string(i) + " cannot be broadcast");
  return with(a, b.matmul(std::move(a.prim), c.prim));
}

H clamp(H h, Scalar lo, Scalar hi) { return with(h, numeric_unary(h, "clamp").clamp(std::move(h.prim), lo, hi)); }
H clamp_min(H h, Scalar lo) { return with(h, numeric_unary(h, "clamp_min").clamp_min(std::move(h.prim), lo)); }
H clamp_max(H h, Scalar hi) { return with(h, numeric_unary(h, "clamp_max").clamp_max(std::move(h.prim), hi)); }

namespace {
// Calls op Fn when its signature is Prim(Prim); null otherwise. A template, so that the call of a
// non-unary op is never formed.
template <auto Fn>
Prim call_if_unary(Backend& b, Prim x) {
  if constexpr (std::is_same_v<decltype(Fn), Prim (Backend::*)(Prim)>) return (b.*Fn)(std::move(x));
  else return nullptr;
}

Prim call_unary(Backend& b, OpId op, Prim x) {
  switch (op) {
#define BURN_X_UNARY(group, name, ...) \
  case OpId::name: return call_if_unary<&Backend::name>(b, std::move(x));
    BURN_OP_TABLE(BURN_X_UNARY)
#undef BURN_X_UNARY
  }
  return nullptr;
}
}  // namespace

H unary(OpId op, H h) {
  const char* name = name_of(op);
  Backend& b = be(h, name);
  switch (op_info(op).group) {
    case OpGroup::numeric: require_numeric(h, name); break;
    case OpGroup::boolean: require_bool(h, name); break;
    case OpGroup::float_math: case OpGroup::activation: require_float(h, name); break;
    default: throw ValueError("unary", std::string("op ") + name + " is not an elementwise unary op");
  }
  Prim r = call_unary(b, op, std::move(h.prim));
  if (!r) throw ValueError("unary", std::string("op ") + name + " is not a unary op");
  return with(h, std::move(r));
}

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

H compare(OpId op, H a, const H& c) {
  const char* name = name_of(op);
  Backend& b = binary_checks(a, c, name);
  Prim x = std::move(a.prim);
  switch (op) {
#define BURN_CMP_CASE(n) case OpId::n: return with(a, b.n(std::move(x), c.prim));
    BURN_CMP_CASE(equal) BURN_CMP_CASE(not_equal) BURN_CMP_CASE(greater) BURN_CMP_CASE(greater_equal)
    BURN_CMP_CASE(lower) BURN_CMP_CASE(lower_equal)
#undef BURN_CMP_CASE
    default: throw ValueError("compare", std::string("op ") + name + " is not a comparison");
  }
}

H compare_elem(OpId op, H a, Scalar s) {
  const char* name = name_of(op);
  Backend& b = be(a, name);
  Prim x = std::move(a.prim);
  switch (op) {
#define BURN_CMP_CASE(n) case OpId::n: return with(a, b.n(std::move(x), s));
    BURN_CMP_CASE(equal_elem) BURN_CMP_CASE(not_equal_elem) BURN_CMP_CASE(greater_elem)
    BURN_CMP_CASE(greater_equal_elem) BURN_CMP_CASE(lower_elem) BURN_CMP_CASE(lower_equal_elem)
#undef BURN_CMP_CASE
    default: throw ValueError("compare_elem", std::string("op ") + name + " is not a scalar comparison");
  }
}

H bool_binary(OpId op, H a, const H& c) {
  const char* name = name_of(op);
  Backend& b = binary_checks(a, c, name);
  require_bool(a, name);
  Prim x = std::move(a.prim);
  switch (op) {
    case OpId::bool_and: return with(a, b.bool_and(std::move(x), c.prim));
    case OpId::bool_or: return with(a, b.bool_or(std::move(x), c.prim));
    case OpId::bool_xor: return with(a, b.bool_xor(std::move(x), c.prim));
    default: throw ValueError("bool_binary", std::string("op ") + name + " is not a bool op");
  }
}

H leaky_relu(H h, double slope) { return with(h, float_unary(h, "leaky_relu").leaky_relu(std::move(h.prim), slope)); }
H softplus(H h, double beta, double threshold) {
  Backend& b = float_unary(h, "softplus");
  if (beta == 0) throw ValueError("softplus", "beta must be non-zero");
  return with(h, b.softplus(std::move(h.prim), beta, threshold));
}
H hard_sigmoid(H h, double alpha, double beta) {
  return with(h, float_unary(h, "hard_sigmoid").hard_sigmoid(std::move(h.prim), alpha, beta));
}
H elu(H h, double alpha) { return with(h, float_unary(h, "elu").elu(std::move(h.prim), alpha)); }
H softmax(H h, int64_t dim) {
  Backend& b = float_unary(h, "softmax");
  size_t d = normalize_dim(dim, rank(h), "softmax");
  return with(h, b.softmax(std::move(h.prim), d));
}
H log_softmax(H h, int64_t dim) {
  Backend& b = float_unary(h, "log_softmax");
  size_t d = normalize_dim(dim, rank(h), "log_softmax");
  return with(h, b.log_softmax(std::move(h.prim), d));
}
H softmin(H h, int64_t dim) {
  Backend& b = float_unary(h, "softmin");
  size_t d = normalize_dim(dim, rank(h), "softmin");
  return with(h, b.softmax(b.neg(std::move(h.prim)), d));
}

}  // namespace burn::api
