// Internal to the ONNX exporter: a recorded op call (its arguments as the op table passes them), the
// context an op's emitter writes ONNX nodes through, and the emitter table that the family files
// (emit_<family>.cpp) fill in. An op without an emitter has no ONNX form: Unsupported naming it.
#pragma once

#include <onnx/onnx_pb.h>

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn::onnx_export {

// One argument of an op-table call; TensorData and Distribution (creation ops, always folded) are
// not kept.
using Arg = std::variant<std::monostate, Prim, Prims, Shape, DType, Scalar, int64_t, double, bool, Axes, Slices,
                         ConvOptions, ConvTransposeOptions, DeformConvOptions, UnfoldOptions, PoolOptions,
                         InterpolateOptions, GridSampleOptions, AttentionOptions, ConvGradMask>;

inline Arg to_arg(const Prim& p) { return p; }
inline Arg to_arg(const Prims& p) { return p; }
inline Arg to_arg(const Shape& s) { return s; }
inline Arg to_arg(DType d) { return d; }
inline Arg to_arg(Scalar s) { return s; }
inline Arg to_arg(size_t v) { return static_cast<int64_t>(v); }
inline Arg to_arg(int64_t v) { return v; }
inline Arg to_arg(double v) { return v; }
inline Arg to_arg(bool v) { return v; }
inline Arg to_arg(const Axes& a) { return a; }
inline Arg to_arg(const Slices& s) { return s; }
template <class O>
requires(std::is_class_v<O>&& std::is_constructible_v<Arg, O> && !std::is_same_v<O, Shape>) Arg to_arg(const O& o) {
  return o;
}
inline Arg to_arg(const TensorData&) { return std::monostate{}; }
inline Arg to_arg(const Distribution&) { return std::monostate{}; }

// ONNX element type of a burn dtype.
int32_t onnx_dtype(DType d);

class Tracer;

// What an emitter sees: the call's arguments and outputs, and the graph it adds nodes to.
class Emit {
 public:
  Emit(Tracer& t, OpId op, const std::vector<Arg>& args, const Prims& outs)
      : t_(t), op_(op), args_(args), outs_(outs) {}

  OpId op() const { return op_; }
  const char* op_name() const;
  int opset() const;
  bool dynamic_batch() const;

  // Argument i as a C++ value (its position in the op table's signature).
  template <class T>
  const T& arg(size_t i) const {
    return std::get<T>(args_.at(i));
  }
  int64_t int_arg(size_t i) const { return arg<int64_t>(i); }
  const Prim& prim(size_t i) const { return arg<Prim>(i); }
  bool has(size_t i) const { return static_cast<bool>(prim(i)); }  // optional inputs (bias, mask) may be null
  const Shape& shape(size_t i) const { return prim(i)->shape(); }
  DType dtype(size_t i) const { return prim(i)->dtype(); }
  // The ONNX name of tensor argument i (an input, a node's output, or an initializer made for a
  // parameter or a folded constant).
  std::string in(size_t i) const;
  std::string name_of(const Prim& p) const;

  size_t num_outputs() const { return outs_.size(); }
  const Prim& out_prim(size_t k = 0) const { return outs_.at(k); }
  const Shape& out_shape(size_t k = 0) const { return outs_.at(k)->shape(); }
  // The name for output k (made on first call).
  std::string out(size_t k = 0);
  // A fresh name for an intermediate value.
  std::string tmp();

  ::onnx::NodeProto& node(const std::string& type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs);
  // Initializers made for the node (folded attributes that ONNX takes as inputs).
  std::string const_ints(const std::vector<int64_t>& v);
  std::string const_scalar(Scalar s, DType d);  // a rank-0 tensor
  std::string const_data(const TensorData& d);  // a tensor made by the emitter (a causal mask)

  // The batch axis of tensor argument i (-1: none); set for output k (default: inferred by shape).
  int batch_axis(size_t i) const;
  void set_batch_axis(size_t k, int axis);

  [[noreturn]] void unsupported(const std::string& what) const;

 private:
  Tracer& t_;
  OpId op_;
  const std::vector<Arg>& args_;
  const Prims& outs_;
};

void set_attr(::onnx::NodeProto& n, const std::string& name, int64_t v);
void set_attr(::onnx::NodeProto& n, const std::string& name, double v);
void set_attr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void set_attr(::onnx::NodeProto& n, const std::string& name, const std::string& v);

using EmitFn = void (*)(Emit&);
using EmitTable = std::array<EmitFn, kOpCount>;

// Each family file registers its emitters.
void register_elementwise(EmitTable& t);
void register_layout(EmitTable& t);
void register_nn(EmitTable& t);

}  // namespace burn::onnx_export
