// Tensor API: scaled dot-product attention: argument checks with tagged errors, then the backend op.
// The backend receives a rank-4 mask (or null) and options whose scale is filled in (1/sqrt(E) by default).
#include <cmath>
#include <string>
#include <vector>

#include "burn/tensor/module.hpp"
#include "checks.hpp"

namespace burn::api {
using namespace detail;

H attention(H query, const H& key, const H& value, const OptH& mask, const AttentionOptions& options) {
  static constexpr const char* op = "attention";
  Backend& b = be(query, op);
  same_device(query, key, op);
  same_device(query, value, op);
  require_float(query, op);
  same_dtype(query, key, op);
  same_dtype(query, value, op);
  const Shape &q = shape(query), &k = shape(key), &v = shape(value);
  const std::string all = "query " + q.to_string() + ", key " + k.to_string() + ", value " + v.to_string();
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    throw ShapeError(op, "expected rank-4 [B, H, L, E] tensors, got " + all);
  if (k[0] != q[0] || v[0] != q[0] || k[1] != q[1] || v[1] != q[1])
    throw ShapeError(op, "batch and head dims differ: " + all);
  if (k[3] != q[3]) throw ShapeError(op, "query and key embedding dims differ: " + all);
  if (v[2] != k[2]) throw ShapeError(op, "key and value sequence lengths differ: " + all);
  if (k[2] == 0) throw ShapeError(op, "no keys (Lk = 0): " + all);
  AttentionOptions opts = options;
  if (!opts.scale) opts.scale = q[3] > 0 ? 1.0 / std::sqrt(static_cast<double>(q[3])) : 1.0;
  if (!std::isfinite(*opts.scale)) throw ValueError(op, "scale must be finite, got " + std::to_string(*opts.scale));

  Prim m;
  if (mask) {
    same_device(query, *mask, op);
    require_bool(*mask, op);
    const Shape& ms = shape(*mask);
    const std::vector<int64_t> full{q[0], q[1], q[2], k[2]};
    bool ok = ms.rank() <= 4;
    for (size_t i = 0; ok && i < ms.rank(); ++i) {
      const int64_t d = ms[ms.rank() - 1 - i], want = full[3 - i];
      ok = d == want || d == 1;
    }
    if (!ok)
      throw ShapeError(op,
                       "mask " + ms.to_string() + " does not broadcast to [B, H, Lq, Lk] = " + Shape(full).to_string());
    m = mask->prim;
    if (ms.rank() < 4) {  // leading 1s: the backend always sees a rank-4 mask
      std::vector<int64_t> dims(4 - ms.rank(), 1);
      dims.insert(dims.end(), ms.begin(), ms.end());
      m = b.reshape(std::move(m), Shape(std::move(dims)));
    }
  }
  return with(query, b.attention(std::move(query.prim), key.prim, value.prim, std::move(m), opts));
}

}  // namespace burn::api
