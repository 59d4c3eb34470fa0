// burn-conformance: the calls of the indexing (select, gather, scatter, masks, one_hot, triangles) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_indexing_calls(CallTable& t) {
  t["select"] = [](const Device&, Hs& in, const json& a) {
    return one(api::select(std::move(in.at(0)), i64(a, "dim"), in.at(1)));
  };
  t["select_assign"] = [](const Device&, Hs& in, const json& a) {
    return one(api::select_assign(std::move(in.at(0)), i64(a, "dim"), in.at(1), in.at(2)));
  };
  t["gather"] = [](const Device&, Hs& in, const json& a) {
    return one(api::gather(std::move(in.at(0)), i64(a, "dim"), in.at(1)));
  };
  t["scatter_add"] = [](const Device&, Hs& in, const json& a) {
    return one(api::scatter_add(std::move(in.at(0)), i64(a, "dim"), in.at(1), in.at(2)));
  };
  t["mask_where"] = [](const Device&, Hs& in, const json&) {
    return one(api::mask_where(std::move(in.at(0)), in.at(1), in.at(2)));
  };
  t["mask_fill"] = [](const Device&, Hs& in, const json& a) {
    return one(api::mask_fill(std::move(in.at(0)), in.at(1), scalar(a, "value")));
  };
  t["argwhere"] = [](const Device&, Hs& in, const json&) { return one(api::argwhere(std::move(in.at(0)))); };
  t["nonzero"] = [](const Device&, Hs& in, const json&) { return api::nonzero(std::move(in.at(0))); };
  t["one_hot"] = [](const Device&, Hs& in, const json& a) {
    return one(api::one_hot(std::move(in.at(0)), i64(a, "num_classes"), dtype(a)));
  };
  t["tril"] = UNARY_CALL(tril, i64(a, "diagonal"));
  t["triu"] = UNARY_CALL(triu, i64(a, "diagonal"));
  t["tril_mask"] = [](const Device& d, Hs&, const json& a) {
    return one(api::tril_mask(d, shape_from_json(a.at("shape")), i64(a, "diagonal")));
  };
  t["triu_mask"] = [](const Device& d, Hs&, const json& a) {
    return one(api::triu_mask(d, shape_from_json(a.at("shape")), i64(a, "diagonal")));
  };
  t["take"] = [](const Device&, Hs& in, const json&) { return one(api::take(std::move(in.at(0)), in.at(1))); };
  t["gather_nd"] = [](const Device&, Hs& in, const json&) {
    return one(api::gather_nd(std::move(in.at(0)), in.at(1)));
  };
  t["scatter_nd"] = [](const Device&, Hs& in, const json& a) {
    const std::string r = a.at("reduction").get<std::string>();
    if (r != "none" && r != "add") throw std::runtime_error("unknown scatter_nd reduction '" + r + "'");
    auto red = r == "add" ? ScatterReduction::Add : ScatterReduction::None;
    return one(api::scatter_nd(std::move(in.at(0)), in.at(1), in.at(2), red));
  };
  t["mask_select"] = [](const Device&, Hs& in, const json&) {
    return one(api::mask_select(std::move(in.at(0)), in.at(1)));
  };
}

}  // namespace burn::conformance
