// Importers: plugins of kind `importer` that open a foreign file (PyTorch, safetensors, ONNX,
// Burn's .mpk/.bpk) as a burn-record reader, found by name, extension or content like recorders.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "burn/import/export.hpp"
#include "burn/import/model.hpp"
#include "burn/import/version.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor/plugin.hpp"

namespace burn::import {

struct ImportOptions {
  // An importer name ("pytorch", "safetensors", ...); empty: the one claiming the file's extension,
  // else the one recognising its first bytes, else a burn-record recorder's reader.
  std::string importer = {};
  // Read only below this key of the file's top-level mapping ("state_dict", "model"); empty: all.
  std::string top_level_key = {};
};

// Building a whole model (an ONNX graph) rather than reading weights.
struct ModelOptions {
  Device device = Device::default_device();  // where the parameters live and the graph runs
  bool trainable = true;                     // float weights become trainable Params (else buffers)
};

// A foreign file format. Implementations are plugins (BURN_IMPORTER_PLUGIN); call them through
// open(), which picks the importer. Readers are lazy where the format allows: open() reads and
// validates the index, read() one entry's data. Damaged or adversarial files raise RecordError naming
// the file, the entry and the problem; what the format can express but burn cannot, Unsupported.
class BURN_IMPORT_API Importer {
 public:
  virtual ~Importer();
  virtual std::string name() const = 0;
  // Extensions claimed, with the dot, lowercase (".pt"); the longest claimed suffix wins.
  virtual std::vector<std::string> extensions() const = 0;
  // Whether `head` (the file's first bytes, up to 64) looks like this format. Default: no.
  virtual bool sniff(std::span<const uint8_t> head) const;
  virtual std::unique_ptr<record::RecordReader> open(const std::string& path, const ImportOptions& options) const = 0;
  // The file as a runnable model (formats holding a graph: onnx). Default: Unsupported naming the
  // importer, whose files hold weights only.
  virtual std::unique_ptr<Model> load_model(const std::string& path, const ModelOptions& options) const;
};

// Opens `path` with the importer chosen as ImportOptions::importer says.
BURN_IMPORT_API std::unique_ptr<record::RecordReader> open(const std::string& path, const ImportOptions& options = {});
// Builds the model a file holds (`burn run-onnx`), with the importer chosen by `importer` (empty: by
// extension, then content). Unsupported when the format holds weights only; RecordError naming the
// file when it is damaged.
BURN_IMPORT_API std::unique_ptr<Model> load_model(const std::string& path, const ModelOptions& options = {},
                                                  const std::string& importer = {});

// The importer of that name (a registered one, else the plugin), shared and cached; PluginError
// listing the known importers when there is none.
BURN_IMPORT_API std::shared_ptr<const Importer> importer(std::string_view name);
// The importer for a file, by extension then by content; nullptr when none claims it.
BURN_IMPORT_API std::shared_ptr<const Importer> importer_for_file(const std::string& path);
// Names of every available importer (registered and plugins), sorted.
BURN_IMPORT_API std::vector<std::string> importer_names();
// Makes an importer linked into the program available by its name, ahead of a plugin of that name.
BURN_IMPORT_API void register_importer(std::shared_ptr<const Importer> importer);

}  // namespace burn::import

extern "C" {
// What an importer plugin's create() returns: the burn-import version it was compiled against (its
// major must be the host's, since the Importer vtable crosses the boundary) and the importer.
struct BurnImporterObject {
  uint32_t struct_size;              // sizeof(BurnImporterObject) when built
  const char* burn_import_version;   // BURN_IMPORT_VERSION when built
  burn::import::Importer* importer;  // owned; deleted by the plugin's destroy()
};
}

// Writes `burn_plugin_entry` for an importer plugin, as BURN_RECORDER_PLUGIN does for a recorder.
// FACTORY: a callable returning std::unique_ptr<burn::import::Importer> (may throw); SCORE: a
// callable returning int32_t (may throw: 0).
#define BURN_IMPORTER_PLUGIN(NAME, VERSION, FACTORY, SCORE)                                            \
  BURN_WRAPPED_OBJECT_PLUGIN_(BURN_PLUGIN_IMPORTER, NAME, VERSION, FACTORY, SCORE, BurnImporterObject, \
                              burn::import::Importer, importer, BURN_IMPORT_VERSION)
