// The ONNX engine: an ONNX model file parsed into a graph whose initializers are burn-nn Params and
// whose nodes run through the public tensor API, so the model runs (and trains) on any device.
// Linked by the `onnx` importer plugin and by its tests (burn-onnx-engine, a static library).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "burn/import/model.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/device.hpp"

namespace burn::onnx {

// The opsets of the default domain the engine runs.
inline constexpr int kMinOpset = 1;
inline constexpr int kMaxOpset = 22;

// A value of an ONNX graph: a tensor, a sequence of tensors, or an empty optional (None; also what a
// node sees for an omitted optional input).
struct OnnxValue {
  enum class Kind : uint8_t { Tensor, Sequence, None };
  Kind kind = Kind::None;
  TensorHandle tensor;
  std::vector<TensorHandle> sequence;
  static OnnxValue of(TensorHandle t) { return {Kind::Tensor, std::move(t), {}}; }
  static OnnxValue of(std::vector<TensorHandle> s) { return {Kind::Sequence, {}, std::move(s)}; }
  static OnnxValue none() { return {}; }
  bool is_tensor() const { return kind == Kind::Tensor; }
};

struct OnnxModelOptions {
  Device device = Device::default_device();
  // Float initializers become trainable Params; integer and bool ones are always buffers.
  bool trainable = true;
};

class OnnxModel final : public import::Model {
 public:
  // Parses and checks the file (every node has an implementation for its opset, else Unsupported
  // naming the node, the op and the opset); RecordError for a damaged file.
  static std::unique_ptr<OnnxModel> load(const std::string& path, const OnnxModelOptions& options = {});
  static std::unique_ptr<OnnxModel> parse(const std::string& bytes, const std::string& name,
                                          const OnnxModelOptions& options = {});
  ~OnnxModel() override;

  std::string format() const override { return "onnx"; }
  const std::vector<std::string>& input_names() const override;
  const std::vector<std::string>& output_names() const override;
  std::vector<TensorHandle> forward(const std::vector<TensorHandle>& inputs) const override;
  // The graph on values (sequences and optionals as well as tensors).
  std::vector<OnnxValue> run(const std::vector<OnnxValue>& inputs) const;
  // The declared type of each input / output: "tensor", "sequence" or "optional".
  const std::vector<std::string>& input_types() const;
  const std::vector<std::string>& output_types() const;
  void visit_fields(nn::ModuleVisitor& v) override;
  int opset() const;

 private:
  OnnxModel();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One row of the op table: an op of the default domain and the opsets its implementation covers.
struct OpSupport {
  std::string op;
  int since, until;
};
std::vector<OpSupport> supported_ops();

// An ONNX TensorProto (a .pb file of the backend tests, an initializer) as TensorData. uint16/uint32
// widen to i32/i64, int16 to i32, uint64 to i64; strings and complex numbers raise Unsupported.
TensorData read_tensor_proto_file(const std::string& path);

// A value file of the backend tests: a TensorProto, SequenceProto or OptionalProto as `type` says
// ("tensor", "sequence", "optional"), its tensors made on `device`.
OnnxValue read_value_proto_file(const std::string& path, const std::string& type, const Device& device);

// The initializers of a model file, as named TensorData, without building the graph.
std::vector<std::pair<std::string, TensorData>> read_initializers(const std::string& path);

}  // namespace burn::onnx
