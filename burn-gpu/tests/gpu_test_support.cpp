// The GPU backends' shared test code (the header says what): comparisons with the cpu plugin, Philox, fusion pairs.
#include "gpu_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <exception>
#include <iostream>
#include <random>

namespace burn::test {

TensorData uniform_f32(const Shape& s, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  for (double& x : v) x = u(gen);
  return TensorData::from_vector(v, s).convert(DType::F32);
}

std::pair<Prim, Prim> on_both(Backend& gpu, Backend& cpu, const std::vector<double>& v, const Shape& s, DType d) {
  const TensorData data = TensorData::from_vector<double>(v, s).convert(d);
  return {gpu.from_data(data), cpu.from_data(data)};
}

void expect_close(Backend& gpu, const Prim& got, Backend& cpu, const Prim& want, double rel, const std::string& what) {
  const TensorData g = gpu.into_data(got), w = cpu.into_data(want);
  ASSERT_EQ(g.shape(), w.shape()) << what;
  ASSERT_EQ(g.dtype(), w.dtype()) << what;
  const std::vector<double> gv = g.to_f64_vec(), wv = w.to_f64_vec();
  for (size_t i = 0; i < gv.size(); ++i) {
    if (std::isnan(wv[i])) {
      ASSERT_TRUE(std::isnan(gv[i])) << what << " at " << i;
      continue;
    }
    ASSERT_NEAR(gv[i], wv[i], rel * (1 + std::abs(wv[i]))) << what << " at " << i;
  }
}

void expect_same(Backend& gpu, const Prim& got, Backend& cpu, const Prim& want, const std::string& what) {
  const TensorData a = gpu.into_data(got), b = cpu.into_data(want);
  EXPECT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(a.dtype(), b.dtype()) << what;
  EXPECT_TRUE(a == b) << what << "\n " << gpu.name() << " " << a.to_string() << "\n cpu " << b.to_string();
}

std::array<uint32_t, 4> philox(std::array<uint32_t, 4> c, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
  }
  return c;
}

std::optional<std::string> unavailable(const std::string& spec) {
  try {
    Device::get(spec);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

FusionRun run_fused_and_op_by_op(const std::string& backend, const LaunchCounter& launches, const std::string& what,
                                 const std::vector<Shape>& shapes,
                                 const std::function<api::H(const std::vector<api::H>&)>& f) {
  Device plain = Device::get(backend), fus = Device::get("fusion<" + backend + ">");
  std::vector<api::H> a, b;
  for (size_t i = 0; i < shapes.size(); ++i) {
    a.push_back(api::from_data(plain, uniform_f32(shapes[i], 40 + static_cast<uint32_t>(i)), Kind::Float));
    b.push_back(api::from_data(fus, uniform_f32(shapes[i], 40 + static_cast<uint32_t>(i)), Kind::Float));
  }
  plain.sync();
  fus.sync();
  fusion::Inspector* in = fusion::inspector(fus);
  EXPECT_NE(in, nullptr) << what;
  if (in) in->reset_stats();
  FusionRun r;
  // Each count runs to the read of the result, so that every kernel the result needs is in it.
  uint64_t before = launches(plain);
  const TensorData want = api::into_data(f(a));
  r.op_by_op = launches(plain) - before;
  before = launches(plain);
  const TensorData got = api::into_data(f(b));
  r.fused = launches(plain) - before;
  if (in) {
    r.stats = in->stats();
    r.plan = in->last_plan();
  }
  std::string plan;
  for (const std::string& p : r.plan) plan += (plan.empty() ? "" : " ") + p;
  std::cout << "[ launches ] " << what << ": op by op " << r.op_by_op << ", fused " << r.fused << " (" << plan << ")\n";
  EXPECT_EQ(got.dtype(), want.dtype()) << what;
  const std::vector<double> g = got.to_f64_vec(), w = want.to_f64_vec();
  EXPECT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size() && i < w.size(); ++i)
    EXPECT_NEAR(g[i], w[i], 2e-6 * (1 + std::abs(w[i]))) << what << " at " << i;
  return r;
}

}  // namespace burn::test
