// burn-conformance: the calls of the pool module ops.
#include "burn/tensor/module.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

namespace {

std::vector<int64_t> opt_ints(const json& a, const char* key) {
  return a.contains(key) ? a.at(key).get<std::vector<int64_t>>() : std::vector<int64_t>{};
}

PoolOptions pool_options(const json& a) {
  PoolOptions p;
  p.kernel = opt_ints(a, "kernel");
  p.stride = opt_ints(a, "stride");
  p.padding = opt_ints(a, "padding");
  p.padding_end = opt_ints(a, "padding_end");
  p.dilation = opt_ints(a, "dilation");
  p.ceil_mode = a.value("ceil_mode", false);
  p.count_include_pad = a.value("count_include_pad", true);
  return p;
}

}  // namespace

void add_pool_calls(CallTable& t) {
  t["max_pool"] = [](const Device&, Hs& in, const json& a) {
    return one(api::max_pool(std::move(in.at(0)), pool_options(a)));
  };
  t["max_pool_with_indices"] = [](const Device&, Hs& in, const json& a) {
    return two(api::max_pool_with_indices(std::move(in.at(0)), pool_options(a)));
  };
  t["max_pool_backward"] = [](const Device&, Hs& in, const json& a) {
    return one(api::max_pool_backward(std::move(in.at(0)), in.at(1), in.at(2), pool_options(a)));
  };
  t["avg_pool"] = [](const Device&, Hs& in, const json& a) {
    return one(api::avg_pool(std::move(in.at(0)), pool_options(a)));
  };
  t["avg_pool_backward"] = [](const Device&, Hs& in, const json& a) {
    return one(api::avg_pool_backward(std::move(in.at(0)), in.at(1), pool_options(a)));
  };
  t["adaptive_avg_pool"] = [](const Device&, Hs& in, const json& a) {
    return one(api::adaptive_avg_pool(std::move(in.at(0)), ints(a, "output_size")));
  };
  t["adaptive_avg_pool_backward"] = [](const Device&, Hs& in, const json&) {
    return one(api::adaptive_avg_pool_backward(std::move(in.at(0)), in.at(1)));
  };
  t["adaptive_max_pool"] = [](const Device&, Hs& in, const json& a) {
    return two(api::adaptive_max_pool(std::move(in.at(0)), ints(a, "output_size")));
  };
  t["adaptive_max_pool_backward"] = [](const Device&, Hs& in, const json&) {
    return one(api::adaptive_max_pool_backward(std::move(in.at(0)), in.at(1), in.at(2)));
  };
}

}  // namespace burn::conformance
