// The fixture both cpu kernel suites share: a CpuBackend and typed constructors of its primitives.
#pragma once

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"

namespace burn::cpu {

class CpuBackendTest : public ::testing::Test {
 protected:
  CpuBackend b;

  Prim f32(const std::vector<float>& v, Shape s) { return b.from_data(TensorData::from_vector(v, std::move(s))); }
  Prim f64(const std::vector<double>& v, Shape s) { return b.from_data(TensorData::from_vector(v, std::move(s))); }
  Prim i64(const std::vector<int64_t>& v, Shape s) { return b.from_data(TensorData::from_vector(v, std::move(s))); }
  Prim i32(const std::vector<int32_t>& v, Shape s) { return b.from_data(TensorData::from_vector(v, std::move(s))); }
  Prim boolean(const std::vector<bool>& v, Shape s) { return b.from_data(TensorData::from_vector(v, std::move(s))); }
  // start, start + 1, ... as f32 in the given shape.
  Prim iota(Shape s, float start = 0.0f) {
    std::vector<float> v(static_cast<size_t>(s.num_elements()));
    std::iota(v.begin(), v.end(), start);
    return f32(v, std::move(s));
  }
  template <typename T>
  std::vector<T> vals(const Prim& p) {
    return b.into_data(p).to_vec<T>();
  }
};

}  // namespace burn::cpu
