// burn-conformance: the calls of burn::linalg (norms, diagonals, products, det, LU, QR).
#include <stdexcept>

#include "burn/tensor/linalg.hpp"
#include "call_helpers.hpp"

namespace burn::conformance {

namespace {

QrMode qr_mode(const json& a) {
  const std::string m = a.at("mode").get<std::string>();
  if (m == "reduced") return QrMode::Reduced;
  if (m == "complete") return QrMode::Complete;
  throw std::runtime_error("unknown qr mode '" + m + "'");
}

}  // namespace

void add_linalg_calls(CallTable& t) {
  t["vector_norm"] = UNARY_CALL(vector_norm, f64(a, "ord"), ints(a, "dims"));
  t["diag"] = UNARY_CALL(diag, i64(a, "offset"));
  t["trace"] = [](const Device&, Hs& in, const json&) { return one(api::trace(std::move(in.at(0)))); };
  t["outer"] = BINARY_CALL(outer);
  t["cosine_similarity"] = [](const Device&, Hs& in, const json& a) {
    return one(api::cosine_similarity(std::move(in.at(0)), in.at(1), i64(a, "dim"), f64(a, "eps")));
  };
  t["matvec"] = BINARY_CALL(matvec);
  t["det"] = [](const Device&, Hs& in, const json&) { return one(api::det(std::move(in.at(0)))); };
  t["lu_factor"] = [](const Device&, Hs& in, const json&) { return two(api::lu_factor(std::move(in.at(0)))); };
  t["lu"] = [](const Device&, Hs& in, const json&) { return api::lu(std::move(in.at(0))); };
  t["qr"] = [](const Device&, Hs& in, const json& a) { return two(api::qr(std::move(in.at(0)), qr_mode(a))); };
}

}  // namespace burn::conformance
