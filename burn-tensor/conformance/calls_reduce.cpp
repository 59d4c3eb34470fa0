// burn-conformance: the calls of the reduce (reductions, variance, sorting, top-k, max_abs) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_reduce_calls(CallTable& t) {
  t["reduce_all"] = [](const Device&, Hs& in, const json& a) {
    return one(api::reduce_all(op_id(a), std::move(in.at(0))));
  };
  t["reduce_dim"] = [](const Device&, Hs& in, const json& a) {
    return one(api::reduce_dim(op_id(a), std::move(in.at(0)), i64(a, "dim")));
  };
  t["reduce_dim_with_indices"] = [](const Device&, Hs& in, const json& a) {
    return two(api::reduce_dim_with_indices(op_id(a), std::move(in.at(0)), i64(a, "dim")));
  };
  t["max_abs"] = [](const Device&, Hs& in, const json&) { return one(api::max_abs(std::move(in.at(0)))); };
  t["max_abs_dim"] = UNARY_CALL(max_abs_dim, i64(a, "dim"));
  t["var"] = UNARY_CALL(var, i64(a, "dim"), i64(a, "correction"));
  t["var_mean"] = [](const Device&, Hs& in, const json& a) {
    return two(api::var_mean(std::move(in.at(0)), i64(a, "dim"), i64(a, "correction")));
  };
  t["sort_with_indices"] = [](const Device&, Hs& in, const json& a) {
    return two(api::sort_with_indices(std::move(in.at(0)), i64(a, "dim"), flag(a, "descending"), flag(a, "stable")));
  };
  t["argsort"] = UNARY_CALL(argsort, i64(a, "dim"), flag(a, "descending"), flag(a, "stable"));
  t["topk_with_indices"] = [](const Device&, Hs& in, const json& a) {
    return two(api::topk_with_indices(std::move(in.at(0)), i64(a, "k"), i64(a, "dim"), flag(a, "largest")));
  };
  t["median"] = [](const Device&, Hs& in, const json&) { return one(api::median(std::move(in.at(0)))); };
  t["median_dim"] = [](const Device&, Hs& in, const json& a) {
    return two(api::median_dim(std::move(in.at(0)), i64(a, "dim")));
  };
  // inputs: x, then fweights and aweights when the attrs say they are given
  t["cov"] = [](const Device&, Hs& in, const json& a) {
    size_t next = 1;
    std::optional<H> fw, aw;
    if (a.value("fweights", false)) fw = in.at(next++);
    if (a.value("aweights", false)) aw = in.at(next++);
    return one(api::cov(std::move(in.at(0)), i64(a, "correction"), fw, aw));
  };
}

}  // namespace burn::conformance
