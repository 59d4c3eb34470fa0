// Gradient checking for the backward-rule tests: the gradient of sum(F(xs) * seed) on autodiff<cpu>
// in f64 against central differences (eps 1e-6), on the plain device and under balanced
// checkpointing (which must give identical gradients), and second-order checks against central
// differences of the first-order gradient. Float inputs require grad unless marked untracked().
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burn/autodiff/autodiff.hpp"

namespace burn::gradcheck {

using H = TensorHandle;
using Hs = std::vector<TensorHandle>;
using Fn = std::function<H(const Hs&)>;

inline constexpr double kEps = 1e-6;

inline Device plain() { return Device::get("autodiff<cpu>"); }
inline Device balanced() { return Device::get("cpu").autodiff(Checkpointing::Balanced); }

// splitmix64: a fixed stream of doubles in [0, 1), the same on every platform.
inline double unit(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

// Smooth f64 inputs in [lo, hi).
inline TensorData values(const Shape& s, uint64_t seed, double lo = -1.5, double hi = 1.5) {
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  for (double& e : v) e = lo + (hi - lo) * unit(seed);
  return TensorData::from_vector(v, s);
}

// Distinct values at least 0.1 apart in a seeded order: no ties, so max, sort and cummax have no kink
// within eps.
inline TensorData distinct(const Shape& s, uint64_t seed) {
  const size_t n = static_cast<size_t>(s.num_elements());
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = n; i > 1; --i)
    std::swap(order[i - 1], order[static_cast<size_t>(unit(seed) * static_cast<double>(i))]);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.1 * (static_cast<double>(order[i]) - static_cast<double>(n) / 2) + 0.01;
  return TensorData::from_vector(v, s);
}

inline TensorData with_values(TensorData d, const std::vector<std::pair<size_t, double>>& set) {
  std::vector<double> v = d.to_vec<double>();
  for (auto [i, x] : set) v[i] = x;
  return TensorData::from_vector(v, d.shape());
}

// One input of F. A float input requires grad and is checked unless untracked (a constant such as a
// running statistic); int and bool inputs are never checked.
struct Input {
  TensorData data;
  bool grad = true;
  Input(TensorData d, bool g = true) : data(std::move(d)), grad(g) {}  // implicit, so {values(...), ints(...)} works
};
inline Input untracked(TensorData d) { return {std::move(d), false}; }
inline bool checked(const Input& in) { return in.grad && is_float(in.data.dtype()); }

inline std::vector<TensorData> data_of(const std::vector<Input>& inputs) {
  std::vector<TensorData> out;
  for (const Input& in : inputs) out.push_back(in.data);
  return out;
}

inline TensorData ints(const std::vector<int64_t>& v, const Shape& s) { return TensorData::from_vector(v, s); }
inline TensorData bools(const std::vector<bool>& v, const Shape& s) { return TensorData::from_vector(v, s); }

inline H on(const Device& d, const TensorData& data) { return api::from_data(d, data, api::kind_of(data.dtype())); }

inline std::vector<double> host(const H& h) { return api::into_data(h).convert(DType::F64).to_vec<double>(); }

// sum(F(xs) * seed) for untracked inputs, evaluated without recording.
inline double loss_value(const Fn& f, const std::vector<TensorData>& inputs, const TensorData& seed) {
  NoGradGuard guard;
  Hs xs;
  for (const TensorData& d : inputs) xs.push_back(on(plain(), d));
  return host(api::reduce_all(OpId::sum, api::mul(f(xs), on(plain(), seed))))[0];
}

// The seed that weights F's elements, so every output element's gradient path is distinct.
inline TensorData seed_for(const Fn& f, const std::vector<TensorData>& inputs) {
  NoGradGuard guard;
  Hs xs;
  for (const TensorData& d : inputs) xs.push_back(on(plain(), d));
  return values(api::into_data(f(xs)).shape(), 99, 0.5, 2.0);
}

// Central differences of `loss` at each element of float input i.
inline std::vector<double> numeric_grad(const std::function<double(const std::vector<TensorData>&)>& loss,
                                        const std::vector<TensorData>& inputs, size_t i) {
  std::vector<double> base = inputs[i].to_vec<double>();
  std::vector<double> out(base.size());
  for (size_t k = 0; k < base.size(); ++k) {
    std::vector<TensorData> xs = inputs;
    std::vector<double> v = base;
    v[k] = base[k] + kEps;
    xs[i] = TensorData::from_vector(v, inputs[i].shape());
    const double up = loss(xs);
    v[k] = base[k] - kEps;
    xs[i] = TensorData::from_vector(v, inputs[i].shape());
    out[k] = (up - loss(xs)) / (2 * kEps);
  }
  return out;
}

// |got - want| <= rel |want| + abs per element (NaN fails). Only the first few mismatches are
// reported one by one, so a broken rule on a large input stays readable.
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what,
                         double rel = 1e-6, double abs = 1e-8) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t failures = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    const double diff = got[k] - want[k];
    if (!(std::abs(diff) <= rel * std::abs(want[k]) + abs) && ++failures <= 5)
      ADD_FAILURE() << what << ", element " << k << std::setprecision(12) << ": got " << got[k] << ", want " << want[k]
                    << " (diff " << diff << ")";
  }
  EXPECT_EQ(failures, 0u) << what << ": " << failures << " of " << got.size() << " elements differ";
}

// Backward of sum(F(xs) * seed) on `device`: the gradient of every checked input, checked to have the
// input's shape and dtype; F's output must be a tracked f64 tensor and untracked inputs get no gradient.
inline std::vector<std::vector<double>> analytic_grads(const Device& device, const Fn& f,
                                                       const std::vector<Input>& inputs, const TensorData& seed) {
  Hs xs;
  for (const Input& in : inputs) {
    H h = on(device, in.data);
    xs.push_back(checked(in) ? api::set_require_grad(h, true) : h);
  }
  const H out = f(xs);
  EXPECT_EQ(out.prim->dtype(), DType::F64) << "F's output";
  EXPECT_TRUE(api::is_require_grad(out)) << "F's output is not tracked";
  Gradients grads = api::backward(api::reduce_all(OpId::sum, api::mul(out, on(device, seed))), {});
  std::vector<std::vector<double>> grad(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::optional<H> g = api::grad(xs[i], grads);
    if (!checked(inputs[i])) {
      EXPECT_FALSE(g.has_value()) << "untracked input " << i << " got a gradient";
      continue;
    }
    EXPECT_TRUE(g.has_value()) << "input " << i << " got no gradient";
    if (!g) continue;
    EXPECT_EQ(g->prim->shape(), inputs[i].data.shape()) << "input " << i;
    EXPECT_EQ(g->prim->dtype(), DType::F64) << "input " << i;
    grad[i] = host(*g);
  }
  return grad;
}

// The gradient of every checked input of F against central differences, on both devices.
inline void gradcheck(const Fn& f, const std::vector<Input>& inputs) {
  const std::vector<TensorData> data = data_of(inputs);
  const TensorData seed = seed_for(f, data);
  auto loss = [&](const std::vector<TensorData>& xs) { return loss_value(f, xs, seed); };
  const auto on_plain = analytic_grads(plain(), f, inputs, seed);
  const auto on_balanced = analytic_grads(balanced(), f, inputs, seed);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!checked(inputs[i])) continue;
    const std::string what = "input " + std::to_string(i) + " " + data[i].shape().to_string();
    expect_close(on_plain[i], numeric_grad(loss, data, i), what);
    EXPECT_EQ(on_balanced[i], on_plain[i]) << "balanced checkpointing changed the gradient of " << what;
  }
}

// Second order: the gradient of G = sum(dL/dx0 * seed2), L = sum(F(x0) * seed), built with
// create_graph, against central differences of G computed from first-order gradients.
inline void gradcheck2(const Fn& f, const TensorData& x) {
  const TensorData seed = seed_for(f, {x});
  const TensorData seed2 = values(x.shape(), 7, 0.5, 2.0);
  const std::vector<double> s2 = seed2.to_vec<double>();
  auto first = [&](const std::vector<TensorData>& xs) {
    std::vector<double> g = analytic_grads(plain(), f, {xs[0]}, seed)[0];
    return std::inner_product(g.begin(), g.end(), s2.begin(), 0.0);
  };
  H x0 = api::set_require_grad(on(plain(), x), true);
  H loss = api::reduce_all(OpId::sum, api::mul(f({x0}), on(plain(), seed)));
  Gradients g1 = api::backward(loss, {.create_graph = true});
  std::optional<H> dx = api::grad(x0, g1);
  ASSERT_TRUE(dx);
  H g = api::reduce_all(OpId::sum, api::mul(*dx, on(plain(), seed2)));
  std::optional<H> d2 = api::grad(x0, api::backward(g, {}));
  ASSERT_TRUE(d2);
  expect_close(host(*d2), numeric_grad(first, {x}, 0), "second order", 1e-6, 1e-7);
}

// op(x)^3: the first-order gradient then runs op's backward on a tracked gradient, so a second-order
// check exercises a piecewise-linear rule in create_graph mode.
inline Fn cubed(std::function<H(const H&)> op) {
  return [op = std::move(op)](const Hs& x) {
    H y = op(x[0]);
    return api::mul(api::mul(y, y), y);
  };
}

inline Fn dim_op(OpId op, int64_t dim) {
  return [op, dim](const Hs& x) { return api::reduce_dim(op, x[0], dim); };
}
inline Fn all_op(OpId op) {
  return [op](const Hs& x) { return api::reduce_all(op, x[0]); };
}

}  // namespace burn::gradcheck
