// The `safetensors` recorder (.safetensors): Hugging Face's format, read by its own library and by
// every tool around it. Tensors are stored as they are; burn's metadata fields and the record's
// non-tensor entries travel in `__metadata__` (layout in burn-record/README.md, "The safetensors format").
#include "burn/record/recorder.hpp"
#include "safetensors_format.hpp"

namespace {

using namespace burn::record;

class SafetensorsRecorder final : public Recorder {
 public:
  std::string name() const override { return "safetensors"; }
  std::vector<std::string> extensions() const override { return {".safetensors"}; }
  void write(const std::string& path, const Record& record, const Metadata& metadata,
             const SaveOptions&) const override {
    safetensors::write_file(path, record, metadata);
  }
  std::unique_ptr<RecordReader> open(const std::string& path) const override { return safetensors::open_file(path); }
};

std::unique_ptr<Recorder> make_recorder() { return std::make_unique<SafetensorsRecorder>(); }
int32_t recorder_score() { return 10; }

}  // namespace

BURN_RECORDER_PLUGIN("safetensors", BURN_RECORD_VERSION, make_recorder, recorder_score)
