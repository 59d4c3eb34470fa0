// Saving and loading records: options, the Recorder interface every recorder plugin implements,
// the lazy RecordReader, the save/load/open entry points and BURN_RECORDER_PLUGIN.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "burn/record/export.hpp"
#include "burn/record/record.hpp"
#include "burn/record/version.hpp"
#include "burn/tensor/plugin.hpp"

namespace burn::record {

// The dtype float tensors are saved as. Int and bool tensors, and scalars, are never converted.
enum class Precision : uint8_t { Keep, F32, F16, BF16, F64 };

BURN_RECORD_API std::string_view precision_name(Precision p);  // "keep", "f32", "f16", "bf16", "f64"
// Parses a precision_name(); ValueError listing the valid names otherwise.
BURN_RECORD_API Precision parse_precision(std::string_view name);

struct SaveOptions {
  std::string recorder = {};  // a recorder name ("zstd", "hdf5", "json"); empty: chosen by the extension
  Precision precision = Precision::Keep;
  int compression_level = -1;  // -1: the recorder's default; 0: none; else the codec's level
  int threads = 0;             // threads a recorder may use; 0: one per hardware thread
};

struct LoadOptions {
  std::string recorder = {};  // empty: chosen by the extension
  // When set, every float tensor is cast to it; int and bool tensors never are.
  std::optional<DType> float_dtype = std::nullopt;
};

// What a reader knows about one entry from the file's index, without reading its data.
struct EntryInfo {
  std::string path;  // full dotted path
  EntryKind kind = EntryKind::Group;
  DType dtype = DType::F32;  // tensors only
  Shape shape;               // tensors only
  uint64_t bytes = 0;        // bytes of the value once read (tensor data, string length, 8 for a number)
};

// An open record file. open() reads and validates the index only; data is read entry by entry. Not
// thread-safe: use one reader from one thread at a time.
class BURN_RECORD_API RecordReader {
 public:
  virtual ~RecordReader();
  virtual const std::string& path() const = 0;
  virtual const Metadata& metadata() const = 0;
  // Every entry, groups included, in the record's order (pre-order: a group before its children).
  virtual const std::vector<EntryInfo>& entries() const = 0;
  // Reads one leaf; RecordError naming the file and the entry when the data is damaged. The base
  // read() serves groups (through read_leaf for each leaf below) and unknown paths.
  Value read(std::string_view path);
  // One tensor, cast to float_dtype when it is set and the tensor is a float.
  TensorData read_tensor(std::string_view path, std::optional<DType> float_dtype = {});
  // The whole record, one leaf at a time (peak memory: the record plus one entry).
  Record read_all(std::optional<DType> float_dtype = {});
  const EntryInfo* find(std::string_view path) const;

 protected:
  // Reads the leaf described by `info` (an element of entries()).
  virtual Value read_leaf(const EntryInfo& info) = 0;

 private:
  mutable std::unordered_map<std::string, size_t> by_path_;  // built on the first find()
};

// A file format. Implementations are plugins of kind `recorder` (BURN_RECORDER_PLUGIN); call them
// through save()/load()/open(), which pick the recorder, apply the precision policy and make every
// write atomic.
class BURN_RECORD_API Recorder {
 public:
  virtual ~Recorder();
  virtual std::string name() const = 0;
  // Extensions claimed, with the dot, lowercase (".bpz"); the longest claimed suffix wins.
  virtual std::vector<std::string> extensions() const = 0;
  // Writes the whole file at `path`, a new empty file in the target's folder that save() then
  // fsyncs and renames over the target. `record` already has the precision policy applied;
  // `metadata` is what to store (the record's, with format_version, burn_version and dtype_policy
  // filled in); options are passed for compression levels and threads.
  virtual void write(const std::string& path, const Record& record, const Metadata& metadata,
                     const SaveOptions& options) const = 0;
  // Opens and validates a file; RecordError naming the file and the problem.
  virtual std::unique_ptr<RecordReader> open(const std::string& path) const = 0;
};

// Saves atomically: the recorder writes a temporary file in the target's folder, which is flushed,
// fsynced and renamed over `path`, then the folder is fsynced. The target is either the previous
// file or the new one, never a mix. Float tensors are converted per options.precision first.
BURN_RECORD_API void save(const std::string& path, const Record& record, const SaveOptions& options = {});
// Loads a whole record; float tensors cast to options.float_dtype when set.
BURN_RECORD_API Record load(const std::string& path, const LoadOptions& options = {});
// Opens a record for lazy reading (only options.recorder is used).
BURN_RECORD_API std::unique_ptr<RecordReader> open(const std::string& path, const LoadOptions& options = {});

// The recorder of that name (a registered one, else the selected plugin), shared and cached.
BURN_RECORD_API std::shared_ptr<const Recorder> recorder(std::string_view name);
// The recorder claiming the file's extension; RecordError listing the known extensions if none.
BURN_RECORD_API std::shared_ptr<const Recorder> recorder_for_path(const std::string& path);
// Names of every available recorder (registered and plugins), sorted.
BURN_RECORD_API std::vector<std::string> recorder_names();
// Makes a recorder linked into the program available by its name, ahead of a plugin of that name.
BURN_RECORD_API void register_recorder(std::shared_ptr<const Recorder> recorder);

}  // namespace burn::record

extern "C" {
// What a recorder plugin's create() returns: the burn-record version it was compiled against (its
// major must be the host's, since the Recorder vtable crosses the boundary) and the recorder.
struct BurnRecorderObject {
  uint32_t struct_size;              // sizeof(BurnRecorderObject) when built
  const char* burn_record_version;   // BURN_RECORD_VERSION when built
  burn::record::Recorder* recorder;  // owned; deleted by the plugin's destroy()
};
}

// Writes `burn_plugin_entry` for a recorder plugin, as BURN_BACKEND_PLUGIN does for a backend.
// FACTORY: a callable returning std::unique_ptr<burn::record::Recorder> (may throw); SCORE: a
// callable returning int32_t (may throw: 0).
#define BURN_RECORDER_PLUGIN(NAME, VERSION, FACTORY, SCORE)                                            \
  BURN_WRAPPED_OBJECT_PLUGIN_(BURN_PLUGIN_RECORDER, NAME, VERSION, FACTORY, SCORE, BurnRecorderObject, \
                              burn::record::Recorder, recorder, BURN_RECORD_VERSION)
