// Internal to the ONNX exporter: the state of one trace (which primitive is an input, a parameter,
// a folded constant or a node's output, and its ONNX name) and the graph being built.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "burn/import/onnx_export.hpp"
#include "emit.hpp"

namespace burn::onnx_export {

class Tracer {
 public:
  Tracer(BackendPtr inner, const import::OnnxExportOptions& options);

  void add_param(const Prim& p, const std::string& path);
  void add_input(const Prim& p, const std::string& name);
  void add_output(const Prim& p, const std::string& name);
  // One op the decorator forwarded: folds it when it reads only constants, else emits its nodes.
  void record(OpId op, const std::vector<Arg>& args, const Prims& outs);
  ::onnx::ModelProto finish();

  const import::OnnxExportOptions& options() const { return options_; }

 private:
  friend class Emit;
  enum class Kind : uint8_t { Input, Param, Const, Node, Unavailable };
  struct Value {
    Kind kind;
    std::string name;  // ONNX name; empty for a constant not yet written as an initializer
    Prim prim;         // kept alive so that no later primitive reuses its address during the trace
    int batch_axis = -1;
    std::string module;    // parameters: the module path owning it
    bool written = false;  // its name is defined in the graph (an input, an initializer, a node's output)
  };
  Value& value_of(const Prim& p);  // unseen primitives are constants made outside the trace
  const std::string& materialize(Value& v);
  std::string fresh(const std::string& stem);
  void add_initializer(const std::string& name, const TensorData& data);
  ::onnx::ValueInfoProto value_info(const std::string& name, const Prim& p, int batch_axis) const;

  BackendPtr inner_;
  import::OnnxExportOptions options_;
  EmitTable emitters_{};
  ::onnx::GraphProto graph_;
  std::unordered_map<const Primitive*, Value> values_;
  std::unordered_map<std::string, int> name_counts_;
  std::string last_module_;  // the module of the last parameter read, for messages
  int64_t batch_size_ = -1;
};

}  // namespace burn::onnx_export
