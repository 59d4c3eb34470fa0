// The `onnx` importer plugin: an ONNX model's initializers as a record (`burn convert model.onnx
// weights.h5`, initializers.cpp); the model itself (graph and all) is the engine's OnnxModel.
#include <memory>

#include "burn/import/importer.hpp"
#include "burn/onnx/model.hpp"
#include "initializers.hpp"

namespace burn::onnx {
namespace {

class OnnxImporter final : public import::Importer {
 public:
  std::string name() const override { return "onnx"; }
  std::vector<std::string> extensions() const override { return {".onnx"}; }
  std::unique_ptr<record::RecordReader> open(const std::string& path,
                                             const import::ImportOptions& options) const override {
    if (!options.top_level_key.empty())
      throw Unsupported("onnx",
                        "'" + path + "': an ONNX model has no top-level keys (got '" + options.top_level_key + "')");
    return open_initializers(path);
  }
  std::unique_ptr<import::Model> load_model(const std::string& path,
                                            const import::ModelOptions& options) const override {
    return OnnxModel::load(path, OnnxModelOptions{options.device, options.trainable});
  }
};

std::unique_ptr<import::Importer> make_importer() { return std::make_unique<OnnxImporter>(); }
int32_t importer_score() { return 10; }

}  // namespace
}  // namespace burn::onnx

BURN_IMPORTER_PLUGIN("onnx", BURN_IMPORT_VERSION, burn::onnx::make_importer, burn::onnx::importer_score)
