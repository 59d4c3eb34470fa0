// Internal to the ONNX engine: the context an op implementation sees, the op table's rows, and the
// TensorProto conversions. One .cpp per op family registers its rows (ops_*.cpp).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "burn/onnx/model.hpp"
#include "burn/tensor/api.hpp"
#include "burn/tensor/error.hpp"
#include "proto.hpp"

namespace burn::onnx {

using H = TensorHandle;

using Value = OnnxValue;
using Values = std::vector<Value>;

// Name resolution for subgraphs (If, Loop, Scan bodies see the enclosing graphs' values).
class Env {
 public:
  virtual ~Env() = default;
  virtual const Value* find(const std::string& name) const = 0;
  // The ONNX element type the graph gives a value (TensorProto::UNDEFINED, 0, when it does not say):
  // the engine holds uint16 in i32 and uint32 in i64, so an op whose result depends on the width
  // (BitwiseNot) reads the type here.
  virtual int32_t elem_type(const std::string& name) const {
    (void)name;
    return 0;
  }
};

class OpContext {
 public:
  OpContext(const ::onnx::NodeProto& node, int opset, Device device, Values inputs, const Env* env)
      : node_(node), opset_(opset), device_(std::move(device)), inputs_(std::move(inputs)), env_(env) {}

  const ::onnx::NodeProto& node() const { return node_; }
  int opset() const { return opset_; }
  const Device& device() const { return device_; }
  // "node 'name' (Op, opset N)" for messages.
  std::string where() const;
  [[noreturn]] void unsupported(const std::string& what) const;
  [[noreturn]] void invalid(const std::string& what) const;

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return static_cast<size_t>(node_.output_size()); }
  bool wants_output(size_t i) const { return i < num_outputs() && !node_.output(static_cast<int>(i)).empty(); }
  bool has(size_t i) const { return i < inputs_.size() && inputs_[i].is_tensor(); }
  const Value& value(size_t i) const;  // any kind; None when omitted
  // Runs a subgraph attribute's graph on `inputs`, its names resolved in this node's scope.
  Values run_graph(const ::onnx::GraphProto& g, const Values& inputs) const;
  const H& in(size_t i) const;
  int32_t elem_type(size_t i) const;  // input i's ONNX element type, 0 when the graph does not say (see Env)
  const Shape& shape(size_t i) const { return in(i).prim->shape(); }
  DType dtype(size_t i) const { return in(i).prim->dtype(); }
  size_t rank(size_t i) const { return shape(i).rank(); }
  // An integer input read to the host (shapes, axes, pads...).
  std::vector<int64_t> ints(size_t i) const;
  double scalar(size_t i) const;  // the single element of an input, as double

  const ::onnx::AttributeProto* attr(const char* name) const;
  bool has_attr(const char* name) const { return attr(name) != nullptr; }
  int64_t attr_i(const char* name, int64_t dflt) const;
  double attr_f(const char* name, double dflt) const;
  std::string attr_s(const char* name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const char* name, std::vector<int64_t> dflt = {}) const;
  std::vector<double> attr_floats(const char* name) const;

  // A dim/axis normalised to [0, rank); ValueError naming the node otherwise.
  int64_t axis(int64_t a, size_t rank) const;

 private:
  const ::onnx::NodeProto& node_;
  int opset_;
  Device device_;
  Values inputs_;
  const Env* env_;
};

using OpFn = std::vector<H> (*)(OpContext&);
using ValueFn = Values (*)(OpContext&);  // ops on sequences, optionals and subgraphs

struct OpRow {
  const char* op;
  int since, until;  // opsets of the default domain this implementation covers
  OpFn fn;
  ValueFn vfn = nullptr;  // instead of fn
};

// The rows of each family (ops_*.cpp); the table (op_table.cpp) concatenates them.
void add_elementwise_ops(std::vector<OpRow>& rows);
void add_reduce_ops(std::vector<OpRow>& rows);
void add_shape_ops(std::vector<OpRow>& rows);
void add_nn_ops(std::vector<OpRow>& rows);
void add_matmul_ops(std::vector<OpRow>& rows);
void add_logic_ops(std::vector<OpRow>& rows);
void add_loss_ops(std::vector<OpRow>& rows);
void add_resize_ops(std::vector<OpRow>& rows);
void add_quant_ops(std::vector<OpRow>& rows);
void add_training_ops(std::vector<OpRow>& rows);  // domain ai.onnx.preview.training
void add_host_ops(std::vector<OpRow>& rows);
void add_rnn_ops(std::vector<OpRow>& rows);
void add_spectral_ops(std::vector<OpRow>& rows);
void add_sequence_ops(std::vector<OpRow>& rows);
void add_random_ops(std::vector<OpRow>& rows);
// The loader's rewrite of QDQ products (ops_quant.cpp): a MatMul, Gemm or Conv of two DequantizeLinear outputs
// (any values, scales and zero points, not blocked) becomes one burn.internal/QDQMatMul or QDQConv node reading the
// two DequantizeLinear's inputs, with the product's attributes and the DequantizeLinear's axes and `opset` (the
// default domain's); it runs on the integer op when its operands' forms allow and as the nodes it replaced otherwise.
// A DequantizeLinear whose every reader was rewritten (`uses`: reads of each value by nodes, subgraphs and graph
// outputs) is removed.
void fuse_qdq_products(::onnx::GraphProto& g, const std::unordered_map<std::string, int>& uses, int opset);
// The implementation of `op` at `opset`, or nullptr.
const OpRow* find_op(const std::string& op, int opset);

// Shared helpers of the families.
Shape shape_of(const H& h);
H scalar_tensor(const Device& d, double v, DType dt);           // 0-d
H ints_tensor(const Device& d, const std::vector<int64_t>& v);  // 1-D i64
// A conv node's kernel, strides, dilations and pads (auto_pad resolved against the input x).
struct ConvWindow {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
};
ConvWindow conv_window(OpContext& c, const Shape& x, const Shape& weight);
// Conv with the node's kernel/strides/pads/dilations/group attributes (Conv, ConvInteger, QLinearConv).
H conv_node(OpContext& c, const H& x, const H& weight, const std::optional<H>& bias);
// NumPy matmul of operands of rank >= 2 whose ranks differ: the lower one gains leading dims.
H matmul_nd(H a, H b);
// ONNX's MatMul (NumPy's matmul, 1-D operands included) and Gemm (the node's transA, transB, alpha, beta) of a, b
// and the optional bias (ops_matmul.cpp).
H matmul_node(H a, H b);
H gemm_node(OpContext& c, H a, H b, const std::optional<H>& bias);
// Reduces over `axes` (normalised, any order) keeping them, with a *_dim OpId.
H reduce_axes(OpId op, H h, const std::vector<int64_t>& axes);

}  // namespace burn::onnx
