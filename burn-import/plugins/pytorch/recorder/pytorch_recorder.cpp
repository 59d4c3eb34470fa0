// The `pytorch` recorder (.pt, .pth): writes a record as torch.save writes a state dict, so
// torch.load(path, weights_only=True) reads it; reads any torch.save file through the importer's reader.
#include "burn/record/recorder.hpp"
#include "reader.hpp"
#include "writer.hpp"

namespace {

using namespace burn::record;

class PyTorchRecorder final : public Recorder {
 public:
  std::string name() const override { return "pytorch"; }
  std::vector<std::string> extensions() const override { return {".pt", ".pth"}; }
  void write(const std::string& path, const Record& record, const Metadata&, const SaveOptions&) const override {
    burn::import::pytorch::write_file(path, record);
  }
  std::unique_ptr<RecordReader> open(const std::string& path) const override {
    return burn::import::pytorch::open_file(path, "");
  }
};

std::unique_ptr<Recorder> make_recorder() { return std::make_unique<PyTorchRecorder>(); }
int32_t recorder_score() { return 10; }

}  // namespace

BURN_RECORDER_PLUGIN("pytorch", BURN_RECORD_VERSION, make_recorder, recorder_score)
