// Saving modules for other frameworks: a module's record in another framework's names and layouts
// (the PyTorch adapter, the import adapter's rules run backwards), written by any recorder:
// `.pt` (torch.save's zip layout), `.safetensors`, burn's own formats.
#pragma once

#include <string>

#include "burn/import/export.hpp"
#include "burn/import/load.hpp"
#include "burn/record/recorder.hpp"

namespace burn::import {

struct ModuleExportOptions {
  // Adapter::PyTorch: torch.nn's names and layouts (Linear weight [out, in], norms' weight/bias,
  // BatchNorm's num_batches_tracked, no `_param_ids`), so that PyTorch's load_state_dict(strict=True)
  // takes the file. Adapter::None: the module's record as it is (burn::nn::save).
  Adapter adapter = Adapter::None;
  record::SaveOptions save = {};  // the recorder (else the extension's), precision, ...
};

namespace detail {
BURN_IMPORT_API record::Record export_record(nn::ModuleRef m, Adapter adapter);
BURN_IMPORT_API void save_module(nn::ModuleRef m, const std::string& path, const ModuleExportOptions& options);
}  // namespace detail

// The module's record in the adapter's names and layouts.
template <nn::detail::Module M>
record::Record export_record(const M& m, Adapter adapter) {
  return detail::export_record(const_cast<M&>(m), adapter);  // the walkers only read
}
// Saves export_record(m, options.adapter) atomically through burn::record::save:
// save_module(net, "resnet18.pt", {.adapter = Adapter::PyTorch}) writes a file torch.load reads.
template <nn::detail::Module M>
void save_module(const M& m, const std::string& path, const ModuleExportOptions& options = {}) {
  detail::save_module(const_cast<M&>(m), path, options);
}

}  // namespace burn::import
