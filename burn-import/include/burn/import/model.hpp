// A model imported from a foreign file (an ONNX graph): a module whose parameters are the file's
// weights (named as in the file, seen by burn-nn's walkers: named_params, to_device, save...) and a
// forward over rank-erased tensors, so one interface serves every graph whatever its ranks.
#pragma once

#include <string>
#include <vector>

#include "burn/nn/module.hpp"
#include "burn/tensor/api.hpp"

namespace burn::import {

class Model {
 public:
  virtual ~Model() = default;
  // "onnx", ...
  virtual std::string format() const = 0;
  // The graph's inputs (weights excluded) and outputs, in the file's order.
  virtual const std::vector<std::string>& input_names() const = 0;
  virtual const std::vector<std::string>& output_names() const = 0;
  // Runs the graph on the inputs' device (or the parameters' when there are no inputs); one output
  // per output_names(). On an autodiff device the result is tracked back to the parameters.
  virtual std::vector<TensorHandle> forward(const std::vector<TensorHandle>& inputs) const = 0;
  // The parameters (trainable weights and integer buffers), for burn-nn's walkers.
  virtual void visit_fields(nn::ModuleVisitor& v) = 0;

  // The burn-nn walkers, in place (the model is not copyable).
  std::vector<nn::NamedParam> named_params() { return nn::detail::named_params(*this); }
  int64_t num_params() { return nn::detail::num_params(*this); }
  void to_device(const Device& d) { nn::detail::to_device(*this, d); }
  void valid() { nn::detail::valid(*this); }
  void set_require_grad(bool require) { nn::detail::set_require_grad(*this, require); }
};

}  // namespace burn::import
