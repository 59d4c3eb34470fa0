// The `safetensors` importer plugin: .safetensors files (Hugging Face) as burn records, through the
// reader burn-record's safetensors recorder uses (safetensors_format.hpp), found by content as well.
#include "burn/import/importer.hpp"
#include "burn/import/reader.hpp"
#include "safetensors_format.hpp"

namespace {

class SafetensorsImporter final : public burn::import::Importer {
 public:
  std::string name() const override { return "safetensors"; }
  std::vector<std::string> extensions() const override { return {".safetensors"}; }
  // A small little-endian length followed by the JSON object's '{'.
  bool sniff(std::span<const uint8_t> head) const override {
    return burn::record::safetensors::looks_like_safetensors(head);
  }
  std::unique_ptr<burn::record::RecordReader> open(const std::string& path,
                                                   const burn::import::ImportOptions& options) const override {
    auto reader = burn::record::safetensors::open_file(path, "import.safetensors");
    if (options.top_level_key.empty()) return reader;
    return burn::import::select_group(std::move(reader), options.top_level_key);
  }
};

}  // namespace

BURN_IMPORTER_PLUGIN(
    "safetensors", "0.1.0", [] { return std::make_unique<SafetensorsImporter>(); }, [] { return 100; })
