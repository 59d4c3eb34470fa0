// burn-gradcheck: every differentiable op's backward on autodiff<cpu>, case by case from the
// fixtures of gen_grad_fixtures.py, three ways:
//   <group>.<case>          f32 gradients against PyTorch's (the fixture's "grads");
//   <group>.<case>_f64      f64 gradients against central differences of the same call;
//   <group>.<case>_grad2    second-order gradients against PyTorch's double backward ("grad2").
// The loss is L = sum_k sum(out_k * seed_k) over the call's float outputs with the fixture's seeds.
//   burn-gradcheck [--fixtures DIR] [--backend SPEC] [--skip-unavailable] [gtest options]
//   (--skip-unavailable: exit 77, ctest's "skipped", when the backend's plugin cannot run here)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>

#include "burn/autodiff/autodiff.hpp"
#include "conformance.hpp"

namespace burn::gradcheck {
namespace {

using conformance::Case;
using conformance::json;
using H = TensorHandle;

std::string g_backend = "autodiff<cpu>";
std::vector<Case> g_cases;

// At most this many elements of each input are perturbed, evenly spread, so big inputs stay fast.
constexpr int64_t kMaxProbes = 24;
constexpr double kEps = 1e-6;

Device device() { return Device::get(g_backend); }

std::string describe(const Case& c) {
  std::ostringstream os;
  os << c.group << "/" << c.name << " (op " << c.op << ", call " << c.call << ", attrs " << c.attrs.dump() << ")";
  if (!c.torch.empty()) os << "\n  torch: " << c.torch;
  return os.str();
}

std::vector<size_t> wrt_of(const Case& c) { return c.raw.at("wrt").get<std::vector<size_t>>(); }

// The fixture's inputs on `dev`, floats converted to `float_dtype` when given.
std::vector<H> inputs_on(const Device& dev, const Case& c, std::optional<DType> float_dtype) {
  std::vector<H> hs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    TensorData d = conformance::tensor_from_json(c.inputs[i]);
    if (float_dtype && is_float(d.dtype())) d = d.convert(*float_dtype);
    hs.push_back(api::from_data(dev, d, api::kind_of(d.dtype())));
  }
  return hs;
}

// L = sum_k sum(out_k * seed_k); outputs with a null seed (indices) do not contribute.
H loss_of(const Device& dev, const std::vector<H>& outs, const json& seeds) {
  H total;
  for (size_t k = 0; k < outs.size() && k < seeds.size(); ++k) {
    if (seeds[k].is_null()) continue;
    TensorData sd = conformance::tensor_from_json(seeds[k]).convert(outs[k].prim->dtype());
    H seed = api::from_data(dev, sd, Kind::Float);
    H term = api::reduce_all(OpId::sum, api::mul(outs[k], seed));
    total = total.prim ? api::add(std::move(total), term) : term;
  }
  if (!total.prim) throw std::runtime_error("the case has no float output with a seed");
  return total;
}

// Runs the call with the wrt inputs requiring grad; returns the loss and the leaves.
std::pair<H, std::vector<H>> forward(const Device& dev, const Case& c, std::vector<H> inputs) {
  std::vector<H> leaves;
  for (size_t i : wrt_of(c)) {
    inputs.at(i) = api::set_require_grad(inputs[i], true);
    leaves.push_back(inputs[i]);
  }
  const auto& fn = conformance::call_table().at(c.call);
  std::vector<H> outs = fn(dev, inputs, c.attrs);
  return {loss_of(dev, outs, c.raw.at("seeds")), leaves};
}

// A leaf's gradient as data; zeros when backward gave it none (PyTorch's None).
TensorData grad_data(const H& leaf, const Gradients& grads) {
  if (auto g = api::grad(leaf, grads)) return api::into_data(*g);
  const TensorData d = api::into_data(leaf);
  return TensorData::from_vector(std::vector<double>(d.shape().num_elements(), 0.0), d.shape()).convert(d.dtype());
}

double scalar_of(const H& h) { return api::into_data(h).convert(DType::F64).to_vec<double>().at(0); }

class TorchGradTest : public testing::Test {
 public:
  explicit TorchGradTest(const Case* c) : c_(c) {}
  void TestBody() override {
    const Case& c = *c_;
    Device dev = device();
    auto [loss, leaves] = forward(dev, c, inputs_on(dev, c, std::nullopt));
    Gradients grads = api::backward(loss, {});
    const json& want = c.raw.at("grads");
    ASSERT_EQ(want.size(), leaves.size()) << describe(c);
    for (size_t j = 0; j < leaves.size(); ++j) {
      std::string msg = conformance::compare_output(grad_data(leaves[j], grads), want[j], c);
      EXPECT_TRUE(msg.empty()) << "gradient of input " << wrt_of(c)[j] << ": " << msg << "\n  " << describe(c);
    }
  }

 private:
  const Case* c_;
};

class SecondOrderTest : public testing::Test {
 public:
  explicit SecondOrderTest(const Case* c) : c_(c) {}
  void TestBody() override {
    const Case& c = *c_;
    Device dev = device();
    auto [loss, leaves] = forward(dev, c, inputs_on(dev, c, std::nullopt));
    Gradients first = api::backward(loss, BackwardOptions{.create_graph = true});
    const json& g2 = c.raw.at("grad2");
    H total;
    for (size_t j = 0; j < leaves.size(); ++j) {
      auto g = api::grad(leaves[j], first);
      if (!g) continue;
      H v =
          api::from_data(dev, conformance::tensor_from_json(g2.at("seeds")[j]).convert(g->prim->dtype()), Kind::Float);
      H term = api::reduce_all(OpId::sum, api::mul(*g, v));
      total = total.prim ? api::add(std::move(total), term) : term;
    }
    std::vector<TensorData> got;
    if (total.prim && api::is_require_grad(total)) {
      Gradients second = api::backward(total, {});
      for (const H& leaf : leaves) got.push_back(grad_data(leaf, second));
    } else {  // the first gradients do not depend on the inputs: every second gradient is zero
      for (const H& leaf : leaves) got.push_back(grad_data(leaf, Gradients{}));
    }
    for (size_t j = 0; j < leaves.size(); ++j) {
      std::string msg = conformance::compare_output(got[j], g2.at("grads")[j], c);
      EXPECT_TRUE(msg.empty()) << "second-order gradient of input " << wrt_of(c)[j] << ": " << msg << "\n  "
                               << describe(c);
    }
  }

 private:
  const Case* c_;
};

// Central differences in f64: the analytic gradient must match (L(x + eps) - L(x - eps)) / 2eps.
class CentralDifferenceTest : public testing::Test {
 public:
  explicit CentralDifferenceTest(const Case* c) : c_(c) {}
  void TestBody() override {
    const Case& c = *c_;
    Device dev = device();
    auto [loss, leaves] = forward(dev, c, inputs_on(dev, c, DType::F64));
    if (loss.prim->dtype() != DType::F64)
      GTEST_SKIP() << "the call's output is " << dtype_name(loss.prim->dtype()) << " (a cast): a central difference "
                   << "needs f64 outputs";
    Gradients grads = api::backward(loss, {});
    const std::vector<size_t> wrt = wrt_of(c);

    std::vector<TensorData> base;
    for (const json& j : c.inputs) {
      TensorData d = conformance::tensor_from_json(j);
      base.push_back(is_float(d.dtype()) ? d.convert(DType::F64) : d);
    }
    NoGradGuard no_grad;  // the numeric side needs no graph
    auto loss_at = [&](const std::vector<TensorData>& data) {
      std::vector<H> hs;
      for (const TensorData& d : data) hs.push_back(api::from_data(dev, d, api::kind_of(d.dtype())));
      const auto& fn = conformance::call_table().at(c.call);
      std::vector<H> outs = fn(dev, hs, c.attrs);
      return scalar_of(loss_of(dev, outs, c.raw.at("seeds")));
    };
    for (size_t j = 0; j < wrt.size(); ++j) {
      const size_t i = wrt[j];
      const std::vector<double> analytic = grad_data(leaves[j], grads).convert(DType::F64).to_vec<double>();
      std::vector<double> x = base[i].to_vec<double>();
      const int64_t n = static_cast<int64_t>(x.size());
      const int64_t probes = std::min(n, kMaxProbes);
      int failures = 0;
      for (int64_t p = 0; p < probes && failures < 3; ++p) {
        const int64_t e = probes == n ? p : p * (n - 1) / std::max<int64_t>(probes - 1, 1);
        std::vector<TensorData> data = base;
        const double x0 = x[e];
        x[e] = x0 + kEps;
        data[i] = TensorData::from_vector(x, base[i].shape());
        const double up = loss_at(data);
        x[e] = x0 - kEps;
        data[i] = TensorData::from_vector(x, base[i].shape());
        const double down = loss_at(data);
        x[e] = x0;
        const double numeric = (up - down) / (2 * kEps);
        const double tol = 1e-5 + 1e-4 * std::fabs(numeric);
        if (!(std::fabs(analytic[e] - numeric) <= tol)) {
          ++failures;
          ADD_FAILURE() << "input " << i << " element " << e << ": analytic " << analytic[e] << ", central difference "
                        << numeric << " (tol " << tol << ")\n  " << describe(c);
        }
      }
    }
  }

 private:
  const Case* c_;
};

void register_cases() {
  for (const Case& c : g_cases) {
    testing::RegisterTest(c.group.c_str(), c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [&c]() -> testing::Test* { return new TorchGradTest(&c); });
    if (!c.raw.value("skip_f64", false)) {
      testing::RegisterTest(c.group.c_str(), (c.name + "_f64").c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [&c]() -> testing::Test* { return new CentralDifferenceTest(&c); });
    }
    if (c.raw.contains("grad2")) {
      testing::RegisterTest(c.group.c_str(), (c.name + "_grad2").c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [&c]() -> testing::Test* { return new SecondOrderTest(&c); });
    }
  }
}

}  // namespace

// Every differentiable op of the table has a gradient case: a new op without one fails here.
TEST(Coverage, EveryDifferentiableOpHasAGradientCase) {
  std::set<std::string> covered;
  for (const Case& c : g_cases) covered.insert(c.op);
  std::vector<std::string> missing;
  for (const OpInfo& info : all_ops()) {
    // Backward kernels are exercised by the rules that call them; NOGRAD ops have no gradient.
    if (info.grad != OpGrad::Grad) continue;
    if (!covered.count(info.name)) missing.push_back(std::string(group_name(info.group)) + "/" + info.name);
  }
  std::ostringstream os;
  for (const auto& m : missing) os << " " << m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " differentiable op(s) have no gradient case:" << os.str();
}

}  // namespace burn::gradcheck

int main(int argc, char** argv) {
  using namespace burn::gradcheck;
  std::string fixtures = BURN_GRADCHECK_FIXTURES;
  std::vector<char*> rest = {argv[0]};
  bool skip_unavailable = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--skip-unavailable") == 0) {
      skip_unavailable = true;
    } else if (std::strcmp(argv[i], "--fixtures") == 0 && i + 1 < argc) {
      fixtures = argv[++i];
    } else if (std::strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
      g_backend = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  try {
    g_cases = burn::conformance::load_cases(fixtures);
  } catch (const std::exception& e) {
    std::cerr << "burn-gradcheck: " << e.what() << "\n";
    return 2;
  }
  try {
    (void)device();
  } catch (const burn::PluginError& e) {
    // A backend this machine cannot run (no Vulkan device): ctest counts exit 77 as skipped.
    std::cerr << "burn-gradcheck: " << e.what() << "\n";
    return skip_unavailable ? 77 : 1;
  }
  int n = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  testing::InitGoogleTest(&n, rest.data());
  register_cases();
  std::cout << "burn-gradcheck: backend " << g_backend << ", " << g_cases.size() << " cases from " << fixtures << "\n";
  return RUN_ALL_TESTS();
}
