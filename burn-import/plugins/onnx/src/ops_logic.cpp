// Comparison and logic ops: Equal, Less, Greater(OrEqual), And, Or, Xor, Not, Where.
#include "burn/tensor/shape_rules.hpp"
#include "engine.hpp"

namespace burn::onnx {
namespace {

using Hs = std::vector<H>;

template <OpId Op>
Hs compare(OpContext& c) {
  H b = c.dtype(1) == c.dtype(0) ? c.in(1) : api::cast(c.in(1), c.dtype(0));
  return {api::compare(Op, c.in(0), b)};
}

template <OpId Op>
Hs boolean(OpContext& c) {
  return {api::bool_binary(Op, c.in(0), c.in(1))};
}

Hs not_op(OpContext& c) { return {api::unary(OpId::bool_not, c.in(0))}; }

Hs where(OpContext& c) {
  Shape s = shape_rules::broadcast(c.shape(0), c.shape(1), c.shape(2), "Where");
  H cond = api::expand(c.in(0), s.dims()), x = api::expand(c.in(1), s.dims()), y = api::expand(c.in(2), s.dims());
  if (c.dtype(2) != c.dtype(1)) y = api::cast(y, c.dtype(1));
  return {api::mask_where(y, cond, x)};
}

}  // namespace

void add_logic_ops(std::vector<OpRow>& r) {
  const int k = kMaxOpset;
  r.insert(r.end(), {
                        {"Equal", 1, k, compare<OpId::equal>},
                        {"Less", 1, k, compare<OpId::lower>},
                        {"LessOrEqual", 12, k, compare<OpId::lower_equal>},
                        {"Greater", 1, k, compare<OpId::greater>},
                        {"GreaterOrEqual", 12, k, compare<OpId::greater_equal>},
                        {"And", 1, k, boolean<OpId::bool_and>},
                        {"Or", 1, k, boolean<OpId::bool_or>},
                        {"Xor", 1, k, boolean<OpId::bool_xor>},
                        {"Not", 1, k, not_op},
                        {"Where", 9, k, where},
                    });
}

}  // namespace burn::onnx
