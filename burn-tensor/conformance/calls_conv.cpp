// burn-conformance: the calls of the conv module ops. Options come from attrs (absent = default);
// optional tensors are flagged by attrs "bias" / "mask" and follow the required inputs in order.
#include "burn/tensor/module.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

namespace {

std::vector<int64_t> opt_ints(const json& a, const char* key) {
  return a.contains(key) ? a.at(key).get<std::vector<int64_t>>() : std::vector<int64_t>{};
}
int64_t opt_i64(const json& a, const char* key, int64_t def) {
  return a.contains(key) ? a.at(key).get<int64_t>() : def;
}

ConvOptions conv_options(const json& a) {
  ConvOptions o;
  o.stride = opt_ints(a, "stride");
  o.padding = opt_ints(a, "padding");
  o.padding_end = opt_ints(a, "padding_end");
  o.dilation = opt_ints(a, "dilation");
  o.groups = opt_i64(a, "groups", 1);
  return o;
}

ConvTransposeOptions transpose_options(const json& a) {
  ConvTransposeOptions o;
  o.stride = opt_ints(a, "stride");
  o.padding = opt_ints(a, "padding");
  o.padding_out = opt_ints(a, "padding_out");
  o.dilation = opt_ints(a, "dilation");
  o.groups = opt_i64(a, "groups", 1);
  return o;
}

UnfoldOptions unfold_options(const json& a) {
  UnfoldOptions o;
  o.kernel = opt_ints(a, "kernel");
  o.stride = opt_ints(a, "stride");
  o.padding = opt_ints(a, "padding");
  o.dilation = opt_ints(a, "dilation");
  return o;
}

// The gradients a backward case asks for: attrs "x_grad" and "weight_grad" (default true), "bias_grad"
// (default false).
ConvGradMask grad_mask(const json& a) {
  return {!a.contains("x_grad") || a.at("x_grad").get<bool>(),
          !a.contains("weight_grad") || a.at("weight_grad").get<bool>(), opt_flag(a, "bias_grad")};
}

// {grad_x, grad_weight, grad_bias}: each must be null exactly when not asked for; the nulls are dropped
// from the compared outputs.
Hs grads(Hs r, const ConvGradMask& mask, const char* op) {
  if (r.size() != 3) throw std::runtime_error(std::string(op) + " returned " + std::to_string(r.size()) + " outputs");
  const bool asked[3] = {mask.x, mask.weight, mask.bias};
  const char* names[3] = {"grad_x", "grad_weight", "grad_bias"};
  Hs out;
  for (size_t i = 0; i < 3; ++i) {
    if (static_cast<bool>(r[i].prim) != asked[i])
      throw std::runtime_error(std::string(op) + ": " + names[i] + " is " + (r[i].prim ? "present" : "null") +
                               " but was " + (asked[i] ? "" : "not ") + "asked for");
    if (asked[i]) out.push_back(std::move(r[i]));
  }
  return out;
}

}  // namespace

void add_conv_calls(CallTable& t) {
  t["conv"] = [](const Device&, Hs& in, const json& a) {
    size_t next = 2;
    api::OptH bias = take(in, next, opt_flag(a, "bias"));
    return one(api::conv(std::move(in.at(0)), in.at(1), bias, conv_options(a)));
  };
  t["conv_backward"] = [](const Device&, Hs& in, const json& a) {
    const ConvGradMask m = grad_mask(a);
    return grads(api::conv_backward(std::move(in.at(0)), in.at(1), in.at(2), conv_options(a), m), m, "conv_backward");
  };
  t["conv_transpose"] = [](const Device&, Hs& in, const json& a) {
    size_t next = 2;
    api::OptH bias = take(in, next, opt_flag(a, "bias"));
    return one(api::conv_transpose(std::move(in.at(0)), in.at(1), bias, transpose_options(a)));
  };
  t["conv_transpose_backward"] = [](const Device&, Hs& in, const json& a) {
    const ConvGradMask m = grad_mask(a);
    return grads(api::conv_transpose_backward(std::move(in.at(0)), in.at(1), in.at(2), transpose_options(a), m), m,
                 "conv_transpose_backward");
  };
  t["deform_conv2d"] = [](const Device&, Hs& in, const json& a) {
    size_t next = 3;
    api::OptH mask = take(in, next, opt_flag(a, "mask"));
    api::OptH bias = take(in, next, opt_flag(a, "bias"));
    DeformConvOptions o;
    o.stride = opt_ints(a, "stride");
    o.padding = opt_ints(a, "padding");
    o.dilation = opt_ints(a, "dilation");
    o.weight_groups = opt_i64(a, "weight_groups", 1);
    o.offset_groups = opt_i64(a, "offset_groups", 1);
    return one(api::deform_conv2d(std::move(in.at(0)), in.at(1), in.at(2), mask, bias, o));
  };
  t["unfold"] = [](const Device&, Hs& in, const json& a) {
    return one(api::unfold(std::move(in.at(0)), unfold_options(a)));
  };
  t["fold"] = [](const Device&, Hs& in, const json& a) {
    return one(api::fold(std::move(in.at(0)), ints(a, "output_size"), unfold_options(a)));
  };
}

}  // namespace burn::conformance
