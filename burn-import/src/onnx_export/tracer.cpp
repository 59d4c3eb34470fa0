// The onnx-export decorator (generated from the op table: every op is forwarded, then recorded) and
// the trace state: values reading only constants are folded, the rest become ONNX nodes through the
// emitter of their op; export_onnx_bytes runs one forward call through it.
#include "tracer.hpp"

#include <cstring>

#include "burn/import/version.hpp"
#include "burn/tensor/api.hpp"

namespace burn::onnx_export {

int32_t onnx_dtype(DType d) {
  using TP = ::onnx::TensorProto;
  switch (d) {
    case DType::F32: return TP::FLOAT;
    case DType::F64: return TP::DOUBLE;
    case DType::F16: return TP::FLOAT16;
    case DType::BF16: return TP::BFLOAT16;
    case DType::I64: return TP::INT64;
    case DType::I32: return TP::INT32;
    case DType::I8: return TP::INT8;
    case DType::U8: return TP::UINT8;
    case DType::Bool: return TP::BOOL;
  }
  throw Unsupported("export-onnx", "dtype " + std::string(dtype_name(d)) + " has no ONNX element type");
}

namespace {

Prims outputs_of(const Prim& p) { return {p}; }
Prims outputs_of(const PrimPair& p) { return {p.first, p.second}; }
Prims outputs_of(const Prims& p) { return p; }
Prims outputs_of(const TensorData&) { return {}; }

// Forwards every op to the backend under it, then hands the call and its results to the tracer.
class ExportBackend final : public ForwardingBackend {
 public:
  ExportBackend(BackendPtr inner, Tracer& tracer) : ForwardingBackend(std::move(inner)), tracer_(tracer) {}

#define BURN_EXPORT_TO_ARG(type, pname) to_arg(pname)
#define BURN_X_EXPORT(group, name, tier, grad, bound, ret, ...)                \
  ret name BURN_OP_PARAMS(__VA_ARGS__) override {                              \
    const std::vector<Arg> args{BURN_PP_MAP(BURN_EXPORT_TO_ARG, __VA_ARGS__)}; \
    ret out = ForwardingBackend::name BURN_OP_ARGS(__VA_ARGS__);               \
    tracer_.record(OpId::name, args, outputs_of(out));                         \
    return out;                                                                \
  }
  BURN_OP_TABLE(BURN_X_EXPORT)
#undef BURN_X_EXPORT
#undef BURN_EXPORT_TO_ARG

 protected:
  std::string decorator_name() const override { return "onnx-export"; }

 private:
  Tracer& tracer_;
};

std::string module_of(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

}  // namespace

Tracer::Tracer(BackendPtr inner, const import::OnnxExportOptions& options)
    : inner_(std::move(inner)), options_(options) {
  register_elementwise(emitters_);
  register_layout(emitters_);
  register_nn(emitters_);
  graph_.set_name(options.graph_name);
}

void Tracer::add_param(const Prim& p, const std::string& path) {
  // A parameter shared by two paths (tied weights) keeps its first name.
  values_.emplace(p.get(), Value{Kind::Param, path, p, -1, module_of(path)});
}

void Tracer::add_input(const Prim& p, const std::string& name) {
  int axis = -1;
  if (options_.dynamic_batch) {
    if (p->shape().rank() == 0)
      throw ValueError("export-onnx", "input '" + name + "' has rank 0: no batch dim for --dynamic-batch");
    if (batch_size_ >= 0 && p->shape()[0] != batch_size_)
      throw ValueError("export-onnx", "input '" + name + "' has batch " + std::to_string(p->shape()[0]) +
                                          ", the first input " + std::to_string(batch_size_));
    batch_size_ = p->shape()[0];
    axis = 0;
  }
  auto [it, fresh] = values_.emplace(p.get(), Value{Kind::Input, name, p, axis, {}});
  if (!fresh) throw ValueError("export-onnx", "input '" + name + "' is the same tensor as '" + it->second.name + "'");
  it->second.written = true;
  name_counts_[name] = 1;
  *graph_.add_input() = value_info(name, p, axis);
}

void Tracer::add_output(const Prim& p, const std::string& name) {
  Value& v = value_of(p);
  const std::string& from = materialize(v);
  auto* n = graph_.add_node();
  n->set_op_type("Identity");
  n->set_name(name);
  n->add_input(from);
  n->add_output(name);
  *graph_.add_output() = value_info(name, p, v.batch_axis);
}

Tracer::Value& Tracer::value_of(const Prim& p) {
  auto it = values_.find(p.get());
  if (it == values_.end()) it = values_.emplace(p.get(), Value{Kind::Const, {}, p, -1, {}}).first;
  return it->second;
}

std::string Tracer::fresh(const std::string& stem) {
  for (;;) {
    const int n = name_counts_[stem]++;
    std::string name = stem + "_" + std::to_string(n);
    if (!name_counts_.count(name)) {
      name_counts_[name] = 1;
      return name;
    }
  }
}

void Tracer::add_initializer(const std::string& name, const TensorData& data) {
  auto* t = graph_.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx_dtype(data.dtype()));
  for (int64_t d : data.shape().dims()) t->add_dims(d);
  t->set_raw_data(std::string(static_cast<const char*>(data.raw()), data.bytes().size()));
}

const std::string& Tracer::materialize(Value& v) {
  if (v.kind == Kind::Unavailable)
    throw Unsupported("export-onnx",
                      "value '" + v.name + "' (an output the ONNX form of its op does not produce) is used");
  if (v.written) return v.name;
  // A constant sized by the example batch would pin the batch of a --dynamic-batch graph.
  if (v.kind == Kind::Const && options_.dynamic_batch && batch_size_ > 1 && v.prim->shape().rank() > 0 &&
      v.prim->shape()[0] == batch_size_)
    throw Unsupported("export-onnx", "a constant of shape " + v.prim->shape().to_string() +
                                         " made in the forward has the example batch size in dim 0, so the graph "
                                         "would not follow the batch (--dynamic-batch); make it from the inputs, or "
                                         "trace with another batch size if dim 0 is not the batch");
  if (v.name.empty())
    v.name = fresh("const");
  else
    name_counts_[v.name] = 1;
  if (v.kind == Kind::Param || v.kind == Kind::Const) add_initializer(v.name, inner_->into_data(v.prim));
  v.written = true;
  return v.name;
}

::onnx::ValueInfoProto Tracer::value_info(const std::string& name, const Prim& p, int batch_axis) const {
  ::onnx::ValueInfoProto vi;
  vi.set_name(name);
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_dtype(p->dtype()));
  auto* shape = tt->mutable_shape();
  const auto& dims = p->shape().dims();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* d = shape->add_dim();
    if (options_.dynamic_batch && static_cast<int>(i) == batch_axis)
      d->set_dim_param("batch");
    else
      d->set_dim_value(dims[i]);
  }
  return vi;
}

void Tracer::record(OpId op, const std::vector<Arg>& args, const Prims& outs) {
  bool traced = false;  // reads an input, a node's output or a parameter
  std::string module;
  auto see = [&](const Prim& p) {
    if (!p) return;
    Value& v = value_of(p);
    if (v.kind == Kind::Const) return;
    traced = true;
    if (v.kind == Kind::Param && module.empty()) module = v.module;
  };
  for (const Arg& a : args) {
    if (const auto* p = std::get_if<Prim>(&a)) see(*p);
    if (const auto* ps = std::get_if<Prims>(&a))
      for (const Prim& p : *ps) see(p);
  }
  if (!module.empty()) last_module_ = module;
  const char* name = op_info(op).name;
  const std::string where = !module.empty()         ? " (in module '" + module + "')"
                            : !last_module_.empty() ? " (after module '" + last_module_ + "')"
                                                    : std::string();
  if (op == OpId::into_data) {
    if (traced)
      throw Unsupported("export-onnx", std::string("into_data") + where +
                                           ": the forward reads a traced value to the host, so the graph "
                                           "would depend on the example inputs' values");
    return;
  }
  if (!traced) {  // constants in, constant out: folded into an initializer when a node reads it
    for (const Prim& o : outs) values_.emplace(o.get(), Value{Kind::Const, {}, o, -1, {}});
    return;
  }
  const EmitFn fn = emitters_[static_cast<size_t>(op)];
  if (!fn) throw Unsupported("export-onnx", std::string(name) + " has no ONNX form" + where);
  std::vector<const Primitive*> made;
  for (const Prim& o : outs) {
    if (!o) continue;
    if (values_.emplace(o.get(), Value{Kind::Node, {}, o, -2, {}}).second) made.push_back(o.get());
  }
  Emit e(*this, op, args, outs);
  try {
    fn(e);
  } catch (const Unsupported& err) {
    throw Unsupported("export-onnx", std::string(name) + where + ": " + err.what());
  }
  // Batch axis not set by the emitter: kept where an input's batch dim survives at the same place.
  for (const Primitive* o : made) {
    Value& v = values_.at(o);
    if (v.name.empty()) {
      v.kind = Kind::Unavailable;
      v.name = std::string(name) + " output";
    }
    v.written = v.kind == Kind::Node;
    if (v.batch_axis != -2) continue;
    v.batch_axis = -1;
    auto from = [&](const Prim& p) {
      if (!p || v.batch_axis != -1) return;
      const int a = value_of(p).batch_axis;
      if (a >= 0 && static_cast<size_t>(a) < o->shape().rank() && o->shape()[a] == batch_size_) v.batch_axis = a;
      // the batch dim folded into dim 0 (see emit_layout.cpp) stays folded while dim 0 is unchanged
      if (a == -3 && o->shape().rank() > 0 && o->shape()[0] == p->shape()[0]) v.batch_axis = a;
    };
    for (const Arg& a : args) {
      if (const auto* p = std::get_if<Prim>(&a)) from(*p);
      if (const auto* ps = std::get_if<Prims>(&a))
        for (const Prim& p : *ps) from(p);
    }
  }
}

::onnx::ModelProto Tracer::finish() {
  ::onnx::ModelProto m;
  // The IR version each opset was released with (onnx 1.12: 17 and 8; 1.14: 19 and 9; 1.16: 21 and 10).
  m.set_ir_version(options_.opset <= 18 ? 8 : options_.opset <= 20 ? 9 : 10);
  m.set_producer_name("burn-cpp");
  m.set_producer_version(BURN_IMPORT_VERSION);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(options_.opset);
  *m.mutable_graph() = graph_;
  return m;
}

// --- Emit -------------------------------------------------------------------------------------

const char* Emit::op_name() const { return op_info(op_).name; }
int Emit::opset() const { return t_.options_.opset; }
bool Emit::dynamic_batch() const { return t_.options_.dynamic_batch; }
std::string Emit::in(size_t i) const { return name_of(prim(i)); }
std::string Emit::name_of(const Prim& p) const { return t_.materialize(t_.value_of(p)); }

std::string Emit::out(size_t k) {
  Tracer::Value& v = t_.value_of(outs_.at(k));
  if (v.name.empty()) v.name = t_.fresh(op_name());
  return v.name;
}

std::string Emit::tmp() { return t_.fresh(std::string(op_name()) + "_tmp"); }

::onnx::NodeProto& Emit::node(const std::string& type, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs) {
  auto* n = t_.graph_.add_node();
  n->set_op_type(type);
  n->set_name(t_.fresh(type));
  for (const auto& s : inputs) n->add_input(s);
  for (const auto& s : outputs) n->add_output(s);
  return *n;
}

std::string Emit::const_ints(const std::vector<int64_t>& v) {
  const std::string name = t_.fresh("ints");
  TensorData d = TensorData::uninitialized(Shape({static_cast<int64_t>(v.size())}), DType::I64);
  if (!v.empty()) std::memcpy(d.raw(), v.data(), v.size() * sizeof(int64_t));
  t_.add_initializer(name, d);
  return name;
}

std::string Emit::const_data(const TensorData& d) {
  const std::string name = t_.fresh("const");
  t_.add_initializer(name, d);
  return name;
}

std::string Emit::const_scalar(Scalar s, DType dt) {
  const std::string name = t_.fresh("scalar");
  TensorData d = TensorData::uninitialized(Shape(std::vector<int64_t>{}), dt);
  auto* p = static_cast<uint8_t*>(d.raw());
  auto put = [&](auto v) { std::memcpy(p, &v, sizeof v); };
  switch (dt) {
    case DType::F32: put(static_cast<float>(s.as_double())); break;
    case DType::F64: put(s.as_double()); break;
    case DType::I64: put(s.as_int()); break;
    case DType::I32: put(static_cast<int32_t>(s.as_int())); break;
    case DType::I8: put(static_cast<int8_t>(s.as_int())); break;
    case DType::U8: put(static_cast<uint8_t>(s.as_int())); break;
    case DType::Bool: put(static_cast<uint8_t>(s.as_bool())); break;
    default: unsupported("a scalar of dtype " + std::string(dtype_name(dt)));
  }
  t_.add_initializer(name, d);
  return name;
}

int Emit::batch_axis(size_t i) const { return t_.value_of(prim(i)).batch_axis; }
void Emit::set_batch_axis(size_t k, int axis) { t_.value_of(outs_.at(k)).batch_axis = axis; }

void Emit::unsupported(const std::string& what) const { throw Unsupported("export-onnx", what); }

void set_attr(::onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
void set_attr(::onnx::NodeProto& n, const std::string& name, double v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(v));
}
void set_attr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void set_attr(::onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

// --- the trace of one forward call -------------------------------------------------------------

std::string trace_to_bytes(nn::ModuleRef module, const import::TracedForward& forward,
                           const std::vector<TensorHandle>& example_inputs, const import::OnnxExportOptions& options) {
  if (options.opset < import::kOnnxExportMinOpset || options.opset > import::kOnnxExportMaxOpset)
    throw ValueError("export-onnx", "opset " + std::to_string(options.opset) + " is not one the exporter writes (" +
                                        std::to_string(import::kOnnxExportMinOpset) + " to " +
                                        std::to_string(import::kOnnxExportMaxOpset) + "; default 17)");
  if (example_inputs.empty()) throw ValueError("export-onnx", "needs at least one example input");
  nn::detail::valid(module);  // evaluation: the innermost device, batch norm on its running statistics
  std::vector<nn::NamedParam> params = nn::detail::named_params(module);
  const Device base = nn::valid_device(example_inputs[0].device);
  auto tracer = std::make_unique<Tracer>(base.backend(), options);
  const Device traced = Device::from_backend(std::make_shared<ExportBackend>(base.backend(), *tracer));
  for (const nn::NamedParam& np : params) {
    if (!np.param->initialized()) continue;
    const TensorHandle& h = np.param->handle();
    if (h.device != base)
      throw ValueError("export-onnx",
                       "parameter '" + np.path + "' is on " + h.device.name() + ", the inputs on " + base.name());
    tracer->add_param(h.prim, np.path);
    np.param->set_handle({traced, h.prim});
  }
  std::vector<TensorHandle> inputs;
  for (size_t i = 0; i < example_inputs.size(); ++i) {
    const TensorHandle h = api::to_device(example_inputs[i], base);
    tracer->add_input(h.prim, i < options.input_names.size() ? options.input_names[i] : "input_" + std::to_string(i));
    inputs.push_back({traced, h.prim});
  }
  const std::vector<TensorHandle> outs = forward(inputs);
  if (outs.empty()) throw ValueError("export-onnx", "the forward returned no tensor");
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].prim) throw ValueError("export-onnx", "output " + std::to_string(i) + " is an empty tensor");
    tracer->add_output(outs[i].prim,
                       i < options.output_names.size() ? options.output_names[i] : "output_" + std::to_string(i));
  }
  std::string bytes;
  if (!tracer->finish().SerializeToString(&bytes))
    throw RecordError("export-onnx", "the model could not be serialised (over protobuf's 2 GiB limit?)");
  return bytes;
}

}  // namespace burn::onnx_export

namespace burn::import::detail {
std::string export_onnx_bytes(nn::ModuleRef module, const TracedForward& forward,
                              const std::vector<TensorHandle>& example_inputs, const OnnxExportOptions& options) {
  return onnx_export::trace_to_bytes(module, forward, example_inputs, options);
}
}  // namespace burn::import::detail
