// Saving modules in another framework's names and layouts (burn/import/save.hpp).
#include "burn/import/save.hpp"

#include "pytorch_adapter.hpp"

namespace burn::import::detail {

record::Record export_record(nn::ModuleRef m, Adapter adapter) {
  record::Record rec = nn::detail::into_record(m);
  if (adapter == Adapter::PyTorch) return to_pytorch(m, rec);
  return rec;
}

void save_module(nn::ModuleRef m, const std::string& path, const ModuleExportOptions& options) {
  record::save(path, export_record(m, options.adapter), options.save);
}

}  // namespace burn::import::detail
