// Scaled dot-product attention on the device (kernels/attention.comp): one dispatch, a workgroup per block
// of queries with an online softmax over blocks of keys staged in shared memory, so no [Lq, Lk] matrix
// exists in memory. Query, key, value and mask are read in place through their strides (a transposed
// [B, L, H, E] view costs no copy). Semantics as the cpu backend: mask true = masked out, causal masks key
// j > query i (top-left), a fully masked row is NaN, scale defaults to 1/sqrt(E) (the api fills it in).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "burn/tensor/shape_rules.hpp"
#include "ops/nn.hpp"
#include "ops/nn_common.hpp"

namespace burn::vulkan {

namespace {

// The furthest element of a view from its start (for the index width).
int64_t span_of(const VulkanTensor& t) {
  int64_t s = 0;
  for (size_t d = 0; d < t.shape().rank(); ++d)
    if (t.shape()[d] > 0) s += (t.shape()[d] - 1) * std::abs(t.strides()[d]);
  return s;
}

// A rank-4 view's strides, 0 along dims of size 1 (broadcast or never stepped).
std::vector<int64_t> strides4(const VulkanTensor& t) {
  std::vector<int64_t> s(4);
  for (size_t d = 0; d < 4; ++d) s[d] = t.shape()[d] == 1 ? 0 : t.strides()[d];
  return s;
}

}  // namespace

AttentionShape attention_shape(const DeviceProfile& profile, int64_t e, int64_t ev, DType dtype) {
  AttentionShape a;
  a.workgroup = profile.cpu_type() ? 32 : 64;
  a.workgroup = std::min<uint32_t>(a.workgroup, std::max<uint32_t>(profile.limits.max_workgroup_invocations, 1));
  const int64_t widest = std::max<int64_t>({e, ev, 1});
  a.d = 8;
  while (a.d < widest && a.d < 128) a.d *= 2;
  a.q_global = e > a.d;
  // Keys per block: as many as the staged tiles (keys and a value chunk, D wide) leave room for, up to 32.
  const uint64_t acc = dtype_size(nn::acc_dtype(dtype));
  const uint64_t room = profile.limits.max_shared_memory > 1024 ? profile.limits.max_shared_memory - 1024 : 0;
  a.kb = 32;
  while (a.kb > 1 && uint64_t{a.kb} * a.d * acc * (a.q_global ? 1 : 2) > room) a.kb /= 2;
  return a;
}

Defines attention_defines(DType dtype, const AttentionShape& a, bool index64, const DeviceFeatures& features,
                          const std::string& device) {
  const char* op = "attention";
  Defines d;
  for (const char* name : {"Q", "K", "V", "O"}) add_operand_defines(d, name, dtype, features, device, op);
  add_operand_defines(d, "M", DType::Bool, features, device, op);
  d.emplace_back("D", std::to_string(a.d));
  d.emplace_back("KB", std::to_string(a.kb));
  if (a.q_global) d.emplace_back("QGLOBAL", "1");
  if (index64) d.emplace_back("INDEX64", "1");
  return d;
}

Prim VulkanBackend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) {
  static constexpr const char* op = "attention";
  const VkPtr q = vk(query, op), k = vk(key, op), v = vk(value, op);
  query.reset();
  const DType dt = q->dtype();
  if (dt != DType::F32 && dt != DType::F64 && dt != DType::F16)
    throw DTypeError(op, "expected float tensors (f32, f64 or f16), got " + std::string(dtype_name(dt)));
  if (k->dtype() != dt || v->dtype() != dt)
    throw DTypeError(op, "query, key and value must share a dtype, got " + std::string(dtype_name(dt)) + ", " +
                             std::string(dtype_name(k->dtype())) + " and " + std::string(dtype_name(v->dtype())));
  glsl_type(dt, *ctx_, op);
  const Shape &qs = q->shape(), &ks = k->shape(), &vs = v->shape();
  const Shape os = shape_rules::attention(qs, ks, vs, mask ? &mask->shape() : nullptr, op);
  VkPtr m;
  if (mask) {
    if (mask->dtype() != DType::Bool)
      throw DTypeError(op, "the mask must be a bool tensor, got " + std::string(dtype_name(mask->dtype())));
    // The api gives rank 4; a direct caller's lower rank broadcasts from the right (strides4: stride 0).
    m = vk(mask->shape().rank() < 4 ? reshape(mask, shape_rules::attention_mask_4d(mask->shape())) : mask, op);
  }
  const int64_t nb = qs[0], nh = qs[1], lq = qs[2], e = qs[3], lk = ks[2], ev = vs[3];
  VkPtr out = alloc(os, dt);
  if (out->shape().num_elements() == 0) return out;
  const double scale = options.scale ? *options.scale : 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(e, 1)));

  std::vector<int64_t> st;
  for (const VkPtr& t : {q, k, v}) {
    const std::vector<int64_t> s = strides4(*t);
    st.insert(st.end(), s.begin(), s.end());
  }
  if (m) {
    const std::vector<int64_t> s = strides4(*m);
    st.insert(st.end(), s.begin(), s.end());
  } else {
    st.insert(st.end(), 4, 0);
  }
  int64_t span = out->shape().num_elements();
  for (const VkPtr& t : {q, k, v, m})
    if (t) span = std::max(span, span_of(*t) + 1);
  const bool index64 = nn::needs_index64(span);
  std::vector<uint8_t> block;
  if (index64) {
    block = nn::bytes_of(st);
  } else {
    std::vector<int32_t> narrow(st.begin(), st.end());
    block = nn::bytes_of(narrow);
  }

  const AttentionShape a = attention_shape(ctx_->profile(), e, ev, dt);
  Dispatch dp(*ctx_, "attention", op);
  dp.use(attention_defines(dt, a, index64, ctx_->profile().features, ctx_->profile().name));
  dp.address(*q, false).address(*k, false).address(*v, false);
  if (m)
    dp.address(*m, false);
  else
    dp.push_u64(0);
  dp.address(*out, true).args(std::move(block));
  nn::i32(nb * nh, op, "batch x heads");
  for (int64_t x : {nb, nh, lq, lk, e, ev}) dp.push_i32(nn::i32(x, op, "a size"));
  dp.push_i32(options.causal ? 1 : 0).push_i32(m ? 1 : 0);
  nn::push_acc(dp, dt, scale);
  const auto& count = ctx_->profile().limits.max_workgroup_count;
  const int64_t qblocks = (lq + a.workgroup - 1) / a.workgroup;
  dp.run({static_cast<uint32_t>(std::min<int64_t>(qblocks, std::min<uint32_t>(count[0], 65535))),
          static_cast<uint32_t>(std::min<int64_t>(nb * nh, std::min<uint32_t>(count[1], 65535))), 1},
         {a.workgroup, 1, 1});
  return out;
}

}  // namespace burn::vulkan
