// The `burn` importer plugin: records written by Rust Burn: NamedMpk (.mpk, .mpk.gz) and burnpack (.bpk),
// through the readers burn-record's recorders of those formats use (burn_format.hpp), found by content as well.
#include "burn/import/importer.hpp"
#include "burn/import/reader.hpp"
#include "burn/tensor/error.hpp"
#include "burn_format.hpp"

namespace {

class BurnImporter final : public burn::import::Importer {
 public:
  std::string name() const override { return "burn"; }
  std::vector<std::string> extensions() const override { return {".mpk", ".mpk.gz", ".bpk"}; }
  // A NamedMpk record starts with a map of two entries whose first key is "metadata" or "item"; a
  // burnpack file with the magic "NRUB".
  bool sniff(std::span<const uint8_t> head) const override {
    static constexpr uint8_t kMetadata[] = {0x82, 0xa8, 'm', 'e', 't', 'a', 'd', 'a', 't', 'a'};
    static constexpr uint8_t kItem[] = {0x82, 0xa4, 'i', 't', 'e', 'm'};
    auto starts = [&](std::span<const uint8_t> magic) {
      return head.size() >= magic.size() && std::equal(magic.begin(), magic.end(), head.begin());
    };
    static constexpr uint8_t kBurnpack[] = {'N', 'R', 'U', 'B'};
    return starts(kMetadata) || starts(kItem) || starts(kBurnpack);
  }
  std::unique_ptr<burn::record::RecordReader> open(const std::string& path,
                                                   const burn::import::ImportOptions& options) const override {
    // Burnpack by its magic or extension, NamedMpk otherwise.
    const std::vector<uint8_t> head = [&] {
      std::vector<uint8_t> h(4, 0);
      if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        h.resize(std::fread(h.data(), 1, 4, f));
        std::fclose(f);
      }
      return h;
    }();
    std::string lower = path;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool bpk = (head.size() == 4 && std::equal(head.begin(), head.end(), "NRUB")) || lower.ends_with(".bpk");
    auto reader = bpk ? burn::record::burn_format::open_bpk(path, "import.burnpack")
                      : burn::record::burn_format::open_mpk(path, "import.burn");
    if (options.top_level_key.empty()) return reader;
    return burn::import::select_group(std::move(reader), options.top_level_key);
  }
};

}  // namespace

BURN_IMPORTER_PLUGIN(
    "burn", "0.1.0", [] { return std::make_unique<BurnImporter>(); }, [] { return 100; })
