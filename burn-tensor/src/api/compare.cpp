// Tensor API, compare group: elementwise comparisons with a tensor or a scalar (results are Bool), and
// is_close / all_close.
#include "../defaults/helpers.hpp"
#include "autocast.hpp"
#include "checks.hpp"
#include "dispatch.hpp"

namespace burn::api {
using namespace detail;

H compare(OpId op, H a, const H& c0) {
  CastArg c(c0);
  autocast(op, {&a, c.slot()});
  const char* name = name_of(op);
  Backend& b = binary_checks(a, *c, name);
  std::optional<Prim> r;
  if (op_info(op).group == OpGroup::compare) r = dispatch<Prim, Prim, Prim>(b, op, std::move(a.prim), c->prim);
  if (!r) throw ValueError("compare", std::string("op ") + name + " is not a comparison");
  return with(a, std::move(*r));
}

H compare_elem(OpId op, H a, Scalar s) {
  const char* name = name_of(op);
  Backend& b = be(a, name);
  std::optional<Prim> r;
  if (op_info(op).group == OpGroup::compare) r = dispatch<Prim, Prim, Scalar>(b, op, std::move(a.prim), s);
  if (!r) throw ValueError("compare_elem", std::string("op ") + name + " is not a scalar comparison");
  return with(a, std::move(*r));
}

// torch.isclose: a == b (so equal infinities), both NaN when equal_nan, or a finite |a - b| within
// atol + rtol * |b| in the operands' dtype. Int tensors compare in f64 (torch computes the tolerance in
// f32): the same verdicts for |values| < 2^24, exact up to 2^53.
H is_close(H a, const H& c, double rtol, double atol, bool equal_nan) {
  Backend& b = binary_checks(a, c, "is_close");
  require_numeric(a, "is_close");
  if (!(rtol >= 0.0)) throw ValueError("is_close", "rtol must be >= 0, got " + burn::detail::num(rtol));
  if (!(atol >= 0.0)) throw ValueError("is_close", "atol must be >= 0, got " + burn::detail::num(atol));
  const bool floats = is_float(a.prim->dtype());
  Prim x = std::move(a.prim), y = c.prim;
  Prim close = b.equal(x, y);
  if (equal_nan && floats) close = b.bool_or(std::move(close), b.bool_and(b.is_nan(x), b.is_nan(y)));
  if (rtol == 0.0 && atol == 0.0) return with(a, std::move(close));  // exactly equality, as torch
  if (!floats) x = b.cast(std::move(x), DType::F64), y = b.cast(std::move(y), DType::F64);
  Prim allowed = b.add_scalar(b.mul_scalar(b.abs(y), Scalar(rtol)), Scalar(atol));
  Prim err = b.abs(b.sub(std::move(x), std::move(y)));
  Prim within = b.bool_and(b.is_finite(err), b.lower_equal(err, std::move(allowed)));
  return with(a, b.bool_or(std::move(close), std::move(within)));
}

bool all_close(const H& a, const H& c, double rtol, double atol, bool equal_nan) {
  H m = is_close(a, c, rtol, atol, equal_nan);
  if (shape(m).num_elements() == 0) return true;
  return into_data(reduce_all(OpId::all, std::move(m))).to_vec<bool>().at(0);
}

}  // namespace burn::api
