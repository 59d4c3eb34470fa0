// Autocast (burn/tensor/autocast.hpp): the thread's policy, torch.autocast's lists over the op table,
// and the casts the api functions ask for.
#include "autocast.hpp"

#include <algorithm>
#include <string>

#include "burn/tensor/error.hpp"

namespace burn {

namespace {
thread_local const AutocastPolicy* t_policy = nullptr;

// The wider of two float dtypes: f64 > f32 > the 16-bit ones; f16 against bf16 meet in f32.
DType wider(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::F64 || b == DType::F64) return DType::F64;
  return DType::F32;
}
}  // namespace

AutocastPolicy AutocastPolicy::cpu(DType dtype) {
  AutocastPolicy p;
  p.dtype = dtype;
  // torch.autocast("cpu") lower_precision_fp: conv*, conv_transpose*, mm/bmm/matmul/linear/addmm, prelu,
  // scaled_dot_product_attention.
  p.lower = {OpId::matmul, OpId::conv, OpId::conv_transpose, OpId::attention};
  // Reductions, norms, softmax, and the pointwise ops torch keeps in fp32 (its CUDA list: exp, log, pow,
  // reciprocal, softplus, sinh/cosh/tan/asin/acos, ...; prod and grid sampling from the CPU list).
  p.f32 = {OpId::sum,        OpId::sum_dim,     OpId::mean,     OpId::mean_dim, OpId::prod,          OpId::prod_dim,
           OpId::var,        OpId::cumsum,      OpId::cumprod,  OpId::softmax,  OpId::log_softmax,   OpId::layer_norm,
           OpId::group_norm, OpId::batch_norm,  OpId::rms_norm, OpId::exp,      OpId::log,           OpId::log1p,
           OpId::powf,       OpId::powf_scalar, OpId::recip,    OpId::softplus, OpId::log_sigmoid,   OpId::sinh,
           OpId::cosh,       OpId::tan,         OpId::asin,     OpId::acos,     OpId::grid_sample_2d};
  // Binary ops that meet two float dtypes (torch's type promotion).
  p.promote = {OpId::add,     OpId::sub,     OpId::mul,           OpId::div,        OpId::remainder, OpId::fmod,
               OpId::maximum, OpId::minimum, OpId::atan2,         OpId::hypot,      OpId::equal,     OpId::not_equal,
               OpId::greater, OpId::lower,   OpId::greater_equal, OpId::lower_equal};
  return p;
}

AutocastCast AutocastPolicy::cast_of(OpId op) const {
  auto has = [op](const std::vector<OpId>& v) { return std::find(v.begin(), v.end(), op) != v.end(); };
  if (has(lower)) return AutocastCast::Lower;
  if (has(f32)) return AutocastCast::F32;
  if (has(promote)) return AutocastCast::Promote;
  return AutocastCast::None;
}

AutocastGuard::AutocastGuard(DType dtype) : AutocastGuard(AutocastPolicy::cpu(dtype)) {}

AutocastGuard::AutocastGuard(AutocastPolicy policy) : policy_(std::move(policy)), previous_(t_policy) {
  if (policy_.dtype != DType::BF16 && policy_.dtype != DType::F16)
    throw ValueError("AutocastGuard",
                     "autocast runs ops in bf16 or f16, not " + std::string(dtype_name(policy_.dtype)));
  t_policy = &policy_;
}

AutocastGuard::~AutocastGuard() { t_policy = previous_; }

NoAutocastGuard::NoAutocastGuard() : previous_(t_policy) { t_policy = nullptr; }
NoAutocastGuard::~NoAutocastGuard() { t_policy = previous_; }

const AutocastPolicy* autocast_policy() { return t_policy; }

namespace api::detail {

void autocast_operands(OpId op, std::initializer_list<H*> operands) {
  const AutocastPolicy* p = t_policy;
  if (!p) return;
  auto float_operand = [](const H* h) { return h && h->prim && is_float(h->prim->dtype()); };
  switch (p->cast_of(op)) {
    case AutocastCast::None: return;
    case AutocastCast::Lower:
      // f64 stays f64, as torch's autocast leaves double alone.
      for (H* h : operands)
        if (float_operand(h) && h->prim->dtype() != DType::F64 && h->prim->dtype() != p->dtype)
          *h = api::cast(*h, p->dtype);
      return;
    case AutocastCast::F32:
      for (H* h : operands)
        if (float_operand(h) && (h->prim->dtype() == DType::F16 || h->prim->dtype() == DType::BF16))
          *h = api::cast(*h, DType::F32);
      return;
    case AutocastCast::Promote: {
      bool any = false;
      DType to = DType::F32;
      for (const H* h : operands)
        if (float_operand(h)) {
          to = any ? wider(to, h->prim->dtype()) : h->prim->dtype();
          any = true;
        }
      for (H* h : operands)
        if (float_operand(h) && h->prim->dtype() != to) *h = api::cast(*h, to);
      return;
    }
  }
}

}  // namespace api::detail
}  // namespace burn
