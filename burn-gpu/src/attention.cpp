// The attention op's plan (attention.hpp).
#include "burn/gpu/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "burn/tensor/error.hpp"

namespace burn::gpu {

AttentionTiles attention_tiles(bool cpu_like, uint64_t max_workgroup, uint64_t shared_memory, int64_t e, int64_t ev,
                               DType dtype) {
  AttentionTiles a;
  a.workgroup = cpu_like ? 32 : 64;
  a.workgroup = static_cast<uint32_t>(std::min<uint64_t>(a.workgroup, std::max<uint64_t>(max_workgroup, 1)));
  const int64_t widest = std::max<int64_t>({e, ev, 1});
  a.d = 8;
  while (a.d < widest && a.d < 128) a.d *= 2;
  a.q_global = e > a.d;
  // Keys per block: as many as the staged tiles (keys and a value chunk, D wide) leave room for, up to 32.
  const uint64_t acc = dtype == DType::F64 ? 8 : 4;
  const uint64_t room = shared_memory > 1024 ? shared_memory - 1024 : 0;
  a.kb = 32;
  while (a.kb > 1 && uint64_t{a.kb} * a.d * acc * (a.q_global ? 1 : 2) > room) a.kb /= 2;
  return a;
}

AttentionPlan attention_plan(const View& q, const View& k, const View& v, const View* mask,
                             const AttentionOptions& options, const char* op, const std::string& device) {
  AttentionPlan p;
  p.batch = q.shape[0];
  p.heads = q.shape[1];
  p.lq = q.shape[2];
  p.e = q.shape[3];
  p.lk = k.shape[2];
  p.ev = v.shape[3];
  for (int64_t x : {p.batch, p.heads, p.lq, p.lk, p.e, p.ev, p.batch * p.heads})
    if (x > INT32_MAX) throw Unsupported(op, "a size " + std::to_string(x) + " needs more than 32 bits on " + device);
  p.scale = options.scale ? *options.scale : 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(p.e, 1)));
  int64_t span = p.batch * p.heads * p.lq * p.ev;
  for (const View* t : {&q, &k, &v, mask}) {
    if (!t) {
      p.strides.insert(p.strides.end(), 4, 0);
      continue;
    }
    // 0 along dims of size 1 (broadcast or never stepped).
    for (size_t d = 0; d < 4; ++d) p.strides.push_back(t->shape[d] == 1 ? 0 : t->strides[d]);
    span = std::max(span, view_extent(*t));
  }
  p.index64 = span >= (int64_t{1} << 31);
  return p;
}

}  // namespace burn::gpu
