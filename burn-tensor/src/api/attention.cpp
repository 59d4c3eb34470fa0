// Tensor API: scaled dot-product attention: argument checks with tagged errors, then the backend op.
// The backend receives a rank-4 mask (or null) and options whose scale is filled in (1/sqrt(E) by default).
#include <cmath>
#include <string>
#include <vector>

#include "autocast.hpp"
#include "burn/tensor/module.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

H attention(H query, const H& key0, const H& value0, const OptH& mask, const AttentionOptions& options) {
  static constexpr const char* op = "attention";
  CastArg key(key0), value(value0);
  autocast(OpId::attention, {&query, key.slot(), value.slot()});
  Backend& b = be(query, op);
  same_device(query, *key, op);
  same_device(query, *value, op);
  require_float(query, op);
  same_dtype(query, *key, op);
  same_dtype(query, *value, op);
  if (mask) {
    same_device(query, *mask, op);
    require_bool(*mask, op);
  }
  const Shape& q = shape(query);
  shape_rules::attention(q, shape(*key), shape(*value), mask ? &shape(*mask) : nullptr, op);
  AttentionOptions opts = options;
  if (!opts.scale) opts.scale = q[3] > 0 ? 1.0 / std::sqrt(static_cast<double>(q[3])) : 1.0;
  if (!std::isfinite(*opts.scale)) throw ValueError(op, "scale must be finite, got " + std::to_string(*opts.scale));

  Prim m;
  if (mask) {
    const Shape& ms = shape(*mask);
    m = mask->prim;
    if (ms.rank() < 4) m = b.reshape(std::move(m), shape_rules::attention_mask_4d(ms));  // backends see rank 4
  }
  return with(query, b.attention(std::move(query.prim), key->prim, value->prim, std::move(m), opts));
}

}  // namespace burn::api
