// burn-conformance: decoding a case's attrs and packing outputs, shared by the calls_*.cpp files.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "conformance.hpp"

namespace burn::conformance {

// Calls of one-input api functions with attrs, two-input ones, and a tensor with a scalar.
#define UNARY_CALL(fn, ...)                                \
  [](const Device&, Hs& in, const json& a) {               \
    (void)a;                                               \
    return one(api::fn(std::move(in.at(0)), __VA_ARGS__)); \
  }
#define BINARY_CALL(fn) [](const Device&, Hs& in, const json&) { return one(api::fn(std::move(in.at(0)), in.at(1))); }
#define SCALAR_CALL(fn) \
  [](const Device&, Hs& in, const json& a) { return one(api::fn(std::move(in.at(0)), scalar(a, "scalar"))); }

using H = TensorHandle;
using Hs = std::vector<TensorHandle>;

inline int64_t i64(const json& a, const char* key) { return a.at(key).get<int64_t>(); }
inline double f64(const json& a, const char* key) { return f64_from_json(a.at(key)); }
inline bool flag(const json& a, const char* key) { return a.at(key).get<bool>(); }
inline std::vector<int64_t> ints(const json& a, const char* key) { return a.at(key).get<std::vector<int64_t>>(); }
inline DType dtype(const json& a) { return dtype_from_json(a.at("dtype")); }
inline Scalar scalar(const json& a, const char* key) { return scalar_from_json(a.at(key)); }

inline OpId op_id(const json& a) {
  const std::string name = a.at("op").get<std::string>();
  const OpInfo* info = find_op(name);
  if (!info) throw std::runtime_error("fixture names an unknown op '" + name + "'");
  return info->id;
}

inline std::vector<Slice> slices(const json& a) {
  std::vector<Slice> out;
  for (const json& s : a.at("slices")) {
    if (s.contains("at")) {
      out.push_back(Slice::at(s["at"].get<int64_t>()));
      continue;
    }
    Slice sl;
    if (!s.at("start").is_null()) sl.start = s["start"].get<int64_t>();
    if (!s.at("end").is_null()) sl.end = s["end"].get<int64_t>();
    sl.step = s.at("step").get<int64_t>();
    out.push_back(sl);
  }
  return out;
}

inline Distribution distribution(const json& a) {
  const json& d = a.at("dist");
  const std::string kind = d.at("kind").get<std::string>();
  if (kind == "uniform") return Distribution::uniform(d.at("a").get<double>(), d.at("b").get<double>());
  if (kind == "normal") return Distribution::normal(d.at("a").get<double>(), d.at("b").get<double>());
  if (kind == "bernoulli") return Distribution::bernoulli(d.at("a").get<double>());
  if (kind == "default") return Distribution{};
  throw std::runtime_error("unknown distribution '" + kind + "'");
}

inline PadMode pad_mode(const json& a) {
  const std::string m = a.at("mode").get<std::string>();
  if (m == "constant") return PadMode::Constant;
  if (m == "reflect") return PadMode::Reflect;
  if (m == "replicate") return PadMode::Replicate;
  throw std::runtime_error("unknown pad mode '" + m + "'");
}

inline Hs one(H h) { return {std::move(h)}; }
inline Hs two(std::pair<H, H> p) { return {std::move(p.first), std::move(p.second)}; }

// An attrs flag that may be absent (false); optional tensor inputs are flagged so and follow the required ones.
inline bool opt_flag(const json& a, const char* key) { return a.contains(key) && a.at(key).get<bool>(); }
// The next optional input when `present`.
inline std::optional<H> take(Hs& in, size_t& next, bool present) {
  if (!present) return std::nullopt;
  return in.at(next++);
}

}  // namespace burn::conformance
