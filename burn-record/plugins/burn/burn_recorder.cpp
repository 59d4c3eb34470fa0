// The recorders of Rust Burn's files, one plugin each from this source: `namedmpk` (.mpk),
// `namedmpkgz` (.mpk.gz) and `burnpack` (.bpk). BURN_FORMAT_RECORDER is 0, 1 or 2 (CMakeLists.txt).
#include "burn/record/recorder.hpp"
#include "burn_format.hpp"

namespace {

using namespace burn::record;

constexpr int kKind = BURN_FORMAT_RECORDER;
constexpr const char* kNames[] = {"namedmpk", "namedmpkgz", "burnpack"};
constexpr const char* kExtensions[] = {".mpk", ".mpk.gz", ".bpk"};

class BurnFormatRecorder final : public Recorder {
 public:
  std::string name() const override { return kNames[kKind]; }
  std::vector<std::string> extensions() const override { return {kExtensions[kKind]}; }
  void write(const std::string& path, const Record& record, const Metadata& metadata,
             const SaveOptions& options) const override {
    if (kKind == 2) {
      burn_format::write_bpk(path, record, metadata);
    } else {
      burn_format::write_mpk(path, record, metadata, kKind == 1, options.compression_level);
    }
  }
  // The NamedMpk reader inflates a gzip file whatever its name.
  std::unique_ptr<RecordReader> open(const std::string& path) const override {
    return kKind == 2 ? burn_format::open_bpk(path) : burn_format::open_mpk(path, kNames[kKind]);
  }
};

std::unique_ptr<Recorder> make_recorder() { return std::make_unique<BurnFormatRecorder>(); }
int32_t recorder_score() { return 10; }

}  // namespace

BURN_RECORDER_PLUGIN(kNames[kKind], BURN_RECORD_VERSION, make_recorder, recorder_score)
