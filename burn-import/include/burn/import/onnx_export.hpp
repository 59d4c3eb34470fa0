// ONNX out: a module exported by tracing one forward call on the `onnx-export` decorator, which
// records the op table's ops into an ONNX graph (Params become initializers named by their module
// paths; values computed from constants alone are folded into initializers). Library
// burn-onnx-export (burn-import/src/onnx_export/), the `burn export-onnx` command's core.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "burn/nn/module.hpp"
#include "burn/tensor/api.hpp"

namespace burn::import {

// The opsets of the default domain the exporter writes: from 18 on, the reductions take their axes as an
// input and GroupNormalization is native; DeformConv needs 19; 22 is the newest the project's engine reads.
inline constexpr int kOnnxExportMinOpset = 13;
inline constexpr int kOnnxExportMaxOpset = 22;

struct OnnxExportOptions {
  int opset = 17;                         // of the default domain; kOnnxExportMinOpset..kOnnxExportMaxOpset
  bool dynamic_batch = false;             // dim 0 of every input and output is the symbolic "batch"
  std::vector<std::string> input_names;   // default input_0, input_1, ...
  std::vector<std::string> output_names;  // default output_0, ...
  std::string graph_name = "burn";
};

// A traced forward: the inputs (on the tracing device) to the outputs.
using TracedForward = std::function<std::vector<TensorHandle>(const std::vector<TensorHandle>&)>;

namespace detail {
// Traces `forward` of `module` (evaluated as valid() would: on the innermost device, batch norm
// with its running statistics) on `example_inputs`; returns the serialised ModelProto.
// Unsupported naming the op (and the module path of a parameter it reads, if any) when an op on a
// traced value has no ONNX form.
std::string export_onnx_bytes(nn::ModuleRef module, const TracedForward& forward,
                              const std::vector<TensorHandle>& example_inputs, const OnnxExportOptions& options);
}  // namespace detail

// The ModelProto's bytes, for a module whose forward takes tensors of any rank and kind:
//   export_onnx_bytes(model, {x}, [](const Net& m, const std::vector<TensorHandle>& in) {
//     return std::vector<TensorHandle>{m.forward(Tensor<4>(in[0])).handle()};
//   });
template <nn::detail::Module M, class F>
std::string export_onnx_bytes(const M& module, const std::vector<TensorHandle>& example_inputs, F forward,
                              const OnnxExportOptions& options = {}) {
  M copy = module;  // the trace rebinds the copy's parameters; the caller's module is untouched
  const M* self = &copy;
  return detail::export_onnx_bytes(
      copy, [&](const std::vector<TensorHandle>& in) { return std::vector<TensorHandle>(forward(*self, in)); },
      example_inputs, options);
}

// Writes `bytes` to `path` atomically (temporary file, fsync, rename), then reads the file back and
// validates it: it parses as a ModelProto, every node input is defined, every initializer's data
// matches its shape. RecordError naming the file otherwise.
void write_onnx_file(const std::string& bytes, const std::string& path);

template <nn::detail::Module M, class F>
void export_onnx(const M& module, const std::vector<TensorHandle>& example_inputs, F forward, const std::string& path,
                 const OnnxExportOptions& options = {}) {
  write_onnx_file(export_onnx_bytes(module, example_inputs, std::move(forward), options), path);
}

}  // namespace burn::import
