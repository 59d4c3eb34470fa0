// The `hdf5` recorder (.h5): one group per path segment, one dataset per tensor (chunked, optional
// shuffle + deflate), metadata as attributes; h5py and h5dump read the files. Written with HDF5's C
// API. Layout and dtype mapping: burn-record/README.md ("The hdf5 layout").
// This file is the plugin's entry; the writer, the reader and what they share have files of their own.
#include <hdf5.h>

#include <memory>
#include <stdexcept>

#include "burn/record/recorder.hpp"
#include "hdf5_common.hpp"

namespace {

using namespace burn;
using namespace burn::record;
using namespace burn::record::hdf5_detail;

class Hdf5Recorder final : public Recorder {
 public:
  std::string name() const override { return "hdf5"; }
  std::vector<std::string> extensions() const override { return {".h5", ".hdf5"}; }
  void write(const std::string& path, const Record& record, const Metadata& metadata,
             const SaveOptions& options) const override {
    write_file(path, record, metadata, options);
  }
  std::unique_ptr<RecordReader> open(const std::string& path) const override { return open_file(path); }
};

std::unique_ptr<Recorder> make_recorder() {
  if (H5open() < 0) throw std::runtime_error("HDF5 failed to initialise");
  return std::make_unique<Hdf5Recorder>();
}
int32_t recorder_score() { return 10; }

}  // namespace

BURN_RECORDER_PLUGIN("hdf5", BURN_RECORD_VERSION, make_recorder, recorder_score)
