// Reads the PyTorch fixtures of burn-nn's tests (JSON written by gen_fixtures_*.py).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "burn/tensor.hpp"

namespace burn::test {

inline nlohmann::json load_fixture(const std::string& file) {
  std::ifstream in(std::string(BURN_NN_FIXTURES) + "/" + file);
  if (!in) throw std::runtime_error("cannot open fixture " + file);
  return nlohmann::json::parse(in);
}

inline Device cpu() { return Device::get("cpu"); }
inline Device ad() { return Device::get("autodiff<cpu>"); }

// The parsed fixture file, read once per process.
inline const nlohmann::json& fixture(const std::string& file) {
  static std::map<std::string, nlohmann::json> cache;
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  auto it = cache.find(file);
  if (it == cache.end()) it = cache.emplace(file, load_fixture(file)).first;
  return it->second;
}

inline TensorData fixture_data(const nlohmann::json& j, DType dtype = DType::F32) {
  std::vector<int64_t> dims = j.at("shape").get<std::vector<int64_t>>();
  std::vector<double> v = j.at("values").get<std::vector<double>>();
  return TensorData::from_vector(v, Shape(dims)).convert(dtype);
}

template <size_t D, typename K = Float>
Tensor<D, K> fixture_tensor(const nlohmann::json& j, const Device& d) {
  return Tensor<D, K>::from_data(fixture_data(j, K::dtype), d);
}

// Every element within atol + rtol * |expected|, reporting the first few misses.
inline void expect_close(const TensorData& got, const nlohmann::json& want, double atol = 1e-5, double rtol = 1e-4,
                         const std::string& what = "") {
  const std::vector<int64_t> dims = want.at("shape").get<std::vector<int64_t>>();
  ASSERT_EQ(got.shape(), Shape(dims)) << what;
  const std::vector<double> g = got.convert(DType::F64).to_vec<double>();
  const std::vector<double> w = want.at("values").get<std::vector<double>>();
  int misses = 0;
  for (size_t i = 0; i < w.size() && misses < 5; ++i)
    if (!(std::abs(g[i] - w[i]) <= atol + rtol * std::abs(w[i]))) {
      ADD_FAILURE() << what << " element " << i << ": got " << g[i] << ", PyTorch " << w[i];
      ++misses;
    }
}

}  // namespace burn::test
