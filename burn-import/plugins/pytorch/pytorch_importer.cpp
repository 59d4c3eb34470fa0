// The `pytorch` importer plugin: torch.save files (.pt, .pth; zip and legacy layouts) as lazy
// burn-record readers, through a restricted unpickler that never runs code (reader.hpp).
#include "burn/import/importer.hpp"
#include "reader.hpp"

namespace {

class PyTorchImporter final : public burn::import::Importer {
 public:
  std::string name() const override { return "pytorch"; }
  std::vector<std::string> extensions() const override { return {".pt", ".pth"}; }
  bool sniff(std::span<const uint8_t> head) const override { return burn::import::pytorch::looks_like_pytorch(head); }
  std::unique_ptr<burn::record::RecordReader> open(const std::string& path,
                                                   const burn::import::ImportOptions& options) const override {
    return burn::import::pytorch::open_file(path, options.top_level_key);
  }
};

std::unique_ptr<burn::import::Importer> make_importer() { return std::make_unique<PyTorchImporter>(); }
int32_t importer_score() { return 10; }

}  // namespace

BURN_IMPORTER_PLUGIN("pytorch", BURN_IMPORT_VERSION, make_importer, importer_score)
