// Shape rule of the attention group: scaled dot-product attention over [B, H, L, E] tensors.
#include <algorithm>
#include "check.hpp"

namespace burn::shape_rules {

Shape attention(const Shape& q, const Shape& k, const Shape& v, const Shape* mask, const char* op) {
  const auto all = [&] { return "query " + q.to_string() + ", key " + k.to_string() + ", value " + v.to_string(); };
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    throw ShapeError(op, "expected rank-4 [B, H, L, E] tensors, got " + all());
  if (k[0] != q[0] || v[0] != q[0] || k[1] != q[1] || v[1] != q[1])
    throw ShapeError(op, "batch and head dims differ: " + all());
  if (k[3] != q[3]) throw ShapeError(op, "query and key embedding dims differ: " + all());
  if (v[2] != k[2]) throw ShapeError(op, "key and value sequence lengths differ: " + all());
  if (k[2] == 0) throw ShapeError(op, "no keys (Lk = 0): " + all());
  if (mask) {
    const Shape scores{q[0], q[1], q[2], k[2]};
    bool ok = mask->rank() <= 4;
    for (size_t i = 0; ok && i < mask->rank(); ++i) {
      const int64_t d = (*mask)[mask->rank() - 1 - i], want = scores[3 - i];
      ok = d == want || d == 1;
    }
    if (!ok)
      throw ShapeError(op,
                       "mask " + mask->to_string() + " does not broadcast to [B, H, Lq, Lk] = " + scores.to_string());
  }
  return Shape{q[0], q[1], q[2], v[3]};
}

Shape attention_mask_4d(const Shape& mask) {
  std::vector<int64_t> dims(4 - std::min<size_t>(mask.rank(), 4), 1);
  dims.insert(dims.end(), mask.begin(), mask.end());
  return Shape(std::move(dims));
}

}  // namespace burn::shape_rules
