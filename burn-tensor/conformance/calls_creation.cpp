// burn-conformance: the calls of the creation (empty, full, cast, random, arange, eye) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_creation_calls(CallTable& t) {
  t["identity"] = [](const Device&, Hs& in, const json&) { return one(std::move(in.at(0))); };
  t["empty"] = [](const Device& d, Hs&, const json& a) {
    return one(api::empty(d, shape_from_json(a.at("shape")), dtype(a)));
  };
  t["full"] = [](const Device& d, Hs&, const json& a) {
    return one(api::full(d, shape_from_json(a.at("shape")), scalar(a, "value"), dtype(a)));
  };
  t["cast"] = UNARY_CALL(cast, dtype(a));
  t["random"] = [](const Device& d, Hs&, const json& a) {
    return one(api::random(d, shape_from_json(a.at("shape")), distribution(a), dtype(a)));
  };
  t["arange"] = [](const Device& d, Hs&, const json& a) {
    return one(api::arange(d, i64(a, "start"), i64(a, "end"), i64(a, "step"), dtype(a)));
  };
  t["eye"] = [](const Device& d, Hs&, const json& a) { return one(api::eye(d, i64(a, "n"), i64(a, "m"), dtype(a))); };
  t["cartesian_grid"] = [](const Device& d, Hs&, const json& a) {
    return one(api::cartesian_grid(d, shape_from_json(a.at("shape")), dtype(a)));
  };
  t["meshgrid"] = [](const Device&, Hs& in, const json& a) {
    return api::meshgrid(in,
                         a.at("indexing").get<std::string>() == "xy" ? GridIndexing::Cartesian : GridIndexing::Matrix);
  };
  // Samples have no reference values: "report" turns them into something PyTorch can predict:
  // "samples" (raw, for range/values_in checks), "sorted" (along the last dim), "frequency": [S, C],
  // the share of rows that drew class c as their s-th sample, or "pooled": [C], the share of all draws.
  t["categorical"] = [](const Device& d, Hs& in, const json& a) {
    if (a.contains("seed")) d.seed(a.at("seed").get<uint64_t>());
    H s = api::categorical(std::move(in.at(0)), i64(a, "num_samples"), flag(a, "replacement"));
    const std::string report = a.value("report", std::string("samples"));
    if (report == "sorted") return one(api::sort_with_indices(s, -1, false, false).first);
    if (report == "samples") return one(s);
    const int64_t classes = i64(a, "classes");
    if (report == "pooled") {  // [C]: the share of all draws that are class c
      std::vector<double> share;
      const double n = static_cast<double>(s.prim->shape().num_elements());
      for (int64_t c = 0; c < classes; ++c) {
        H hits = api::reduce_all(OpId::sum, api::cast(api::compare_elem(OpId::equal_elem, s, c), DType::I64));
        share.push_back(static_cast<double>(api::into_data(hits).to_vec<int64_t>()[0]) / n);
      }
      return one(api::from_data(d, TensorData::from_vector(share, Shape{classes}), Kind::Float));
    }
    H rows = api::reshape(s, {-1, s.prim->shape().dims().back()});                          // [R, S]
    H counts = api::reduce_dim(OpId::sum_dim, api::one_hot(rows, classes, DType::F64), 0);  // [1, S, C]
    H freq = api::div_scalar(counts, static_cast<double>(rows.prim->shape()[0]));
    return one(api::reshape(freq, {-1, classes}));
  };
}

}  // namespace burn::conformance
