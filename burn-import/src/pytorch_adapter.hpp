// torch.nn's names and layouts against burn-nn's, in one place: the rules the import adapter applies
// one way (Adapter::PyTorch in load_into) and the export adapter the other (save_module / export_record).
#pragma once

#include <string>
#include <vector>

#include "burn/nn/module.hpp"
#include "burn/record/record.hpp"

namespace burn::import::detail {

// One parameter (or buffer) of a module and its name in a PyTorch state dict.
struct TorchName {
  std::string burn_path;   // "layer1.0.bn1.gamma"
  std::string torch_path;  // "layer1.0.bn1.weight"
  bool transpose = false;  // nn::Linear's weight: burn [in, out], PyTorch [out, in]
};

struct PyTorchLayout {
  std::vector<TorchName> params;  // every parameter of the module, in field order
  // Per nn::BatchNorm: the path of its running_var and of PyTorch's num_batches_tracked counter.
  std::vector<std::pair<std::string, std::string>> batch_counters;
};

// The rules for module `m`: Linear weights transposed; BatchNorm, LayerNorm, GroupNorm, InstanceNorm
// and RmsNorm gamma/beta named weight/bias; BatchNorm's running stats kept and its counter added.
PyTorchLayout pytorch_layout(nn::ModuleRef m);

// A 2-d tensor transposed (any dtype: elements are moved as bytes).
TensorData transpose2(const TensorData& t);

// PyTorch's names and layouts as burn-nn's, in place; returns the entries dropped on purpose
// (num_batches_tracked).
std::vector<std::string> adapt_from_pytorch(nn::ModuleRef m, record::Record& rec);

// A module record (burn-nn's names and layouts) as a PyTorch state dict: the same tensors, in the
// same order, renamed and transposed, each BatchNorm's num_batches_tracked (an i64 0-d tensor 0:
// burn keeps no such count) after its running_var, no `_param_ids` group (PyTorch has no ids).
record::Record to_pytorch(nn::ModuleRef m, const record::Record& rec);

}  // namespace burn::import::detail
