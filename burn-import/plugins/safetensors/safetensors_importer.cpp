// The `safetensors` importer plugin: .safetensors files (Hugging Face) as burn records.
#include <cstring>

#include "burn/import/importer.hpp"
#include "burn/import/reader.hpp"
#include "safetensors_reader.hpp"

namespace {

class SafetensorsImporter final : public burn::import::Importer {
 public:
  std::string name() const override { return "safetensors"; }
  std::vector<std::string> extensions() const override { return {".safetensors"}; }
  // A small little-endian length followed by the JSON object's '{'.
  bool sniff(std::span<const uint8_t> head) const override {
    if (head.size() < 10 || head[8] != '{') return false;
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | head[static_cast<size_t>(i)];
    return n >= 2 && n <= burn::import::safetensors::kMaxHeaderBytes && (head[9] == '"' || head[9] == '}');
  }
  std::unique_ptr<burn::record::RecordReader> open(const std::string& path,
                                                   const burn::import::ImportOptions& options) const override {
    auto reader = burn::import::safetensors::open_file(path);
    if (options.top_level_key.empty()) return reader;
    return burn::import::select_group(std::move(reader), options.top_level_key);
  }
};

}  // namespace

BURN_IMPORTER_PLUGIN(
    "safetensors", "0.1.0", [] { return std::make_unique<SafetensorsImporter>(); }, [] { return 100; })
