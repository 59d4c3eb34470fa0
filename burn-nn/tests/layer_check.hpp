// Checks a layer against a PyTorch fixture case (x, y, grad_out, grad_x, params, grads; see
// gen_fixtures_conv_pool.py): forward on cpu, then forward and backward of sum(y * grad_out) on
// autodiff<cpu>, comparing the gradients of the input and of every parameter the case names.
#pragma once

#include <functional>
#include <string>

#include "burn/nn.hpp"
#include "burn/optim/grads.hpp"
#include "fixture.hpp"

namespace burn::test {

// Replaces the module's parameters named in c["params"] by the fixture's; a name the module lacks fails.
template <class M>
void load_params(M& m, const nlohmann::json& c, const Device& d) {
  if (!c.contains("params")) return;
  size_t found = 0;
  for (const nn::NamedParam& np : nn::named_params(m))
    if (c["params"].contains(np.path)) {
      np.param->set_handle(api::from_data(d, fixture_data(c["params"][np.path]), Kind::Float));
      ++found;
    }
  EXPECT_EQ(found, c["params"].size()) << "the fixture names parameters the module lacks";
}

// `make(device)` builds the layer from its config; `forward(layer, x)` runs it.
template <size_t DI, size_t DO, class M>
void check_layer(const nlohmann::json& c, const std::string& name, const std::function<M(const Device&)>& make,
                 const std::function<Tensor<DO>(const M&, const Tensor<DI>&)>& forward, double atol = 1e-5,
                 double rtol = 1e-4) {
  SCOPED_TRACE(name);
  {
    M m = make(cpu());
    load_params(m, c, cpu());
    expect_close(forward(m, fixture_tensor<DI>(c["x"], cpu())).into_data(), c["y"], atol, rtol, name + " forward");
  }
  M m = make(ad());
  load_params(m, c, ad());
  const Tensor<DI> x = fixture_tensor<DI>(c["x"], ad()).require_grad();
  const Tensor<DO> y = forward(m, x);
  expect_close(y.into_data(), c["y"], atol, rtol, name + " forward (autodiff)");
  Gradients grads = (y * fixture_tensor<DO>(c["grad_out"], ad())).sum().backward();
  expect_close(x.grad(grads)->into_data(), c["grad_x"], atol, rtol, name + " grad_x");
  if (!c.contains("grads")) return;
  optim::GradientsParams gp = optim::GradientsParams::from_grads(grads, m);
  for (const nn::NamedParam& np : nn::named_params(m)) {
    if (!c["grads"].contains(np.path)) continue;
    std::optional<TensorHandle> g = gp.get(np.param->id());
    ASSERT_TRUE(g.has_value()) << name << ": no gradient for " << np.path;
    expect_close(api::into_data(*g), c["grads"][np.path], atol, rtol, name + " grad " + np.path);
  }
}

// The layer of a config: init(device), or init() for layers without parameters.
template <class Cfg>
auto make_layer(const Cfg& cfg, const Device& d) {
  if constexpr (requires { cfg.init(d); })
    return cfg.init(d);
  else
    return cfg.init();
}

// check_layer on the layer that `cfg` makes, run by its forward(x).
template <size_t DI, size_t DO = DI, class Cfg>
void check_config(const nlohmann::json& c, const std::string& name, const Cfg& cfg, double atol = 1e-5,
                  double rtol = 1e-4) {
  using M = decltype(make_layer(cfg, cpu()));
  check_layer<DI, DO, M>(
      c, name, [cfg](const Device& d) { return make_layer(cfg, d); },
      [](const M& m, const Tensor<DI>& x) { return m.forward(x); }, atol, rtol);
}

// The message of the burn::Error that `f` throws as E ("" and a failure when it throws nothing).
template <class E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

}  // namespace burn::test
