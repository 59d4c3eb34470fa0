// Sequential<A, B, ...>: layers applied in order, each one's output the next one's input (PyTorch's
// nn.Sequential, with the types known at compile time). Parameter paths are "0.weight", "1.bias", ...
// as PyTorch's. For a run-time number of layers of one type, a std::vector field is the tool.
#pragma once

#include <tuple>
#include <utility>

#include "burn/nn/module.hpp"

namespace burn::nn {

template <class... Layers>
class Sequential {
 public:
  std::tuple<Layers...> layers;

  Sequential() = default;
  explicit Sequential(Layers... ls) : layers(std::move(ls)...) {}

  void visit_fields(ModuleVisitor& v) {
    size_t i = 0;
    std::apply([&](auto&... l) { (visit_field(v, std::to_string(i++), l), ...); }, layers);
  }
  BURN_MODULE_METHODS

  template <class X>
  auto forward(const X& x) const {
    return std::apply([&](const auto&... l) { return apply_in_order(x, l...); }, layers);
  }
  template <size_t I>
  auto& at() {
    return std::get<I>(layers);
  }
  template <size_t I>
  const auto& at() const {
    return std::get<I>(layers);
  }

 private:
  template <class X>
  static X apply_in_order(const X& x) {
    return x;
  }
  template <class X, class First, class... Rest>
  static auto apply_in_order(const X& x, const First& first, const Rest&... rest) {
    return apply_in_order(first.forward(x), rest...);
  }
};

}  // namespace burn::nn
