// The ONNX engine's core: TensorProto conversion, the op context, the graph and OnnxModel.
#include <google/protobuf/io/coded_stream.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <onnx/onnx-data_pb.h>

#include "burn/nn/param.hpp"
#include "engine.hpp"

namespace burn::onnx {

// Named, not in the anonymous namespace: OnnxModel::Impl holds both, and it has external linkage.

// A parameter of any rank: ParamBase's constructors are protected so typed Params fix the rank; an
// ONNX initializer's rank is only known at run time.
class DynParam : public nn::ParamBase {
 public:
  DynParam(TensorHandle h, Kind kind, nn::ParamRole role) : ParamBase(h, h.prim->shape().rank(), kind, role) {}
};

// What the graph declares for one tensor input: its dtype (when the file gives one burn reads) and
// its dims (when it gives a shape): a fixed size, or a symbol ("N") or nothing, which match any size.
struct DeclaredInput {
  std::optional<DType> dtype;
  std::string onnx_type;  // "FLOAT", for messages
  std::optional<std::vector<std::optional<int64_t>>> dims;
  std::vector<std::string> dim_names;  // "3", "N" or "?", for messages
};

namespace {

DeclaredInput declared_input(const ::onnx::ValueInfoProto& vi) {
  DeclaredInput d;
  if (!vi.type().has_tensor_type()) return d;
  const auto& tt = vi.type().tensor_type();
  using TP = ::onnx::TensorProto;
  if (tt.elem_type() != TP::UNDEFINED && TP::DataType_IsValid(tt.elem_type())) {
    d.onnx_type = TP::DataType_Name(static_cast<TP::DataType>(tt.elem_type()));
    try {
      d.dtype = dtype_from_onnx(tt.elem_type(), "");
    } catch (const Unsupported&) {
      // A type burn has no dtype for (strings): no value can match it, and the first node says why.
    }
  }
  if (!tt.has_shape()) return d;
  d.dims.emplace();
  for (const auto& dim : tt.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      d.dims->push_back(dim.dim_value());
      d.dim_names.push_back(std::to_string(dim.dim_value()));
    } else {
      d.dims->push_back(std::nullopt);
      d.dim_names.push_back(dim.has_dim_param() && !dim.dim_param().empty() ? dim.dim_param() : "?");
    }
  }
  return d;
}

std::string dims_text(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s + "]";
}

// Checks a tensor given for an input against the graph's declaration, before any node runs, so a wrong
// shape or dtype is reported as the input's, not as a failure deep inside the first node using it.
void check_input(const std::string& model, const std::string& name, const DeclaredInput& d, const H& h) {
  const std::string where = "'" + model + "' input '" + name + "'";
  const DType got = h.prim->dtype();
  if (d.dtype && got != *d.dtype) {
    throw DTypeError("onnx", where + ": dtype " + std::string(dtype_name(got)) + ", the model declares " +
                                 std::string(dtype_name(*d.dtype)) + " (ONNX " + d.onnx_type + ")");
  }
  if (!d.dims) return;
  const Shape& shape = h.prim->shape();
  const std::string declared = dims_text(d.dim_names);
  if (shape.rank() != d.dims->size()) {
    throw ShapeError("onnx", where + ": shape " + shape.to_string() + " has rank " + std::to_string(shape.rank()) +
                                 ", the model declares " + declared + " (rank " + std::to_string(d.dims->size()) + ")");
  }
  for (size_t i = 0; i < shape.rank(); ++i) {
    const auto& want = (*d.dims)[i];
    if (want && shape[i] != *want) {
      throw ShapeError("onnx", where + ": shape " + shape.to_string() + ", the model declares " + declared + " (dim " +
                                   std::to_string(i) + " is " + std::to_string(shape[i]) + ", expected " +
                                   std::to_string(*want) + ")");
    }
  }
}

}  // namespace

TensorData read_tensor_proto_file(const std::string& path) {
  ::onnx::TensorProto t;
  parse_message(t, read_file(path), path, "tensor");
  return tensor_from_proto(t, "'" + path + "'");
}

// ---- OpContext ----

std::string OpContext::where() const {
  return "node '" + node_.name() + "' (" + node_.op_type() + ", opset " + std::to_string(opset_) + ")";
}
void OpContext::unsupported(const std::string& what) const { throw Unsupported("onnx", where() + ": " + what); }
void OpContext::invalid(const std::string& what) const { throw ValueError("onnx", where() + ": " + what); }

const H& OpContext::in(size_t i) const {
  if (!has(i)) {
    if (i < inputs_.size() && inputs_[i].kind == Value::Kind::Sequence)
      invalid("input " + std::to_string(i) + " is a sequence, not a tensor");
    invalid("input " + std::to_string(i) + " is missing");
  }
  return inputs_[i].tensor;
}

int32_t OpContext::elem_type(size_t i) const {
  return env_ && i < static_cast<size_t>(node_.input_size()) ? env_->elem_type(node_.input(static_cast<int>(i))) : 0;
}

const Value& OpContext::value(size_t i) const {
  static const Value kNone = Value::none();
  return i < inputs_.size() ? inputs_[i] : kNone;
}

std::vector<int64_t> OpContext::ints(size_t i) const {
  TensorData d = api::into_data(in(i));
  if (!is_int(d.dtype())) invalid("input " + std::to_string(i) + " must be an integer tensor");
  if (d.dtype() == DType::I64) return d.to_vec<int64_t>();  // exact beyond 2^53
  std::vector<double> v = d.to_f64_vec();
  return std::vector<int64_t>(v.begin(), v.end());
}

double OpContext::scalar(size_t i) const {
  TensorData d = api::into_data(in(i));
  if (d.num_elements() != 1)
    invalid("input " + std::to_string(i) + " must hold one value, has shape " + d.shape().to_string());
  return d.value_f64(0);
}

const ::onnx::AttributeProto* OpContext::attr(const char* name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t OpContext::attr_i(const char* name, int64_t dflt) const {
  const auto* a = attr(name);
  return a ? a->i() : dflt;
}
double OpContext::attr_f(const char* name, double dflt) const {
  const auto* a = attr(name);
  return a ? a->f() : dflt;
}
std::string OpContext::attr_s(const char* name, const std::string& dflt) const {
  const auto* a = attr(name);
  return a ? a->s() : dflt;
}
std::vector<int64_t> OpContext::attr_ints(const char* name, std::vector<int64_t> dflt) const {
  const auto* a = attr(name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : dflt;
}
std::vector<double> OpContext::attr_floats(const char* name) const {
  const auto* a = attr(name);
  return a ? std::vector<double>(a->floats().begin(), a->floats().end()) : std::vector<double>{};
}
int64_t OpContext::axis(int64_t a, size_t rank) const {
  int64_t r = static_cast<int64_t>(rank);
  if (a < -r || a >= r)
    invalid("axis " + std::to_string(a) + " outside [-" + std::to_string(r) + ", " + std::to_string(r) + ")");
  return a < 0 ? a + r : a;
}

// ---- helpers shared by the families ----

Shape shape_of(const H& h) { return h.prim->shape(); }

H scalar_tensor(const Device& d, double v, DType dt) {
  Scalar s = is_float(dt) ? Scalar(v) : is_bool(dt) ? Scalar(v != 0) : Scalar(static_cast<int64_t>(v));
  return api::full(d, Shape{}, s, dt);
}

H ints_tensor(const Device& d, const std::vector<int64_t>& v) {
  return api::from_data(d, TensorData::from_vector(v, Shape{static_cast<int64_t>(v.size())}), Kind::Int);
}

H matmul_nd(H a, H b) {
  size_t ra = shape_of(a).rank(), rb = shape_of(b).rank();
  std::vector<int64_t> lead;
  for (size_t i = 0; i < (ra > rb ? ra - rb : rb - ra); ++i) lead.push_back(static_cast<int64_t>(i));
  if (ra < rb) a = api::unsqueeze_dims(a, lead);
  if (rb < ra) b = api::unsqueeze_dims(b, lead);
  return api::matmul(a, b);
}

H reduce_axes(OpId op, H h, const std::vector<int64_t>& axes) {
  for (int64_t a : axes) h = api::reduce_dim(op, std::move(h), a);
  return h;
}

// ---- the op table ----

namespace {
const std::vector<OpRow>& table() {
  static const std::vector<OpRow> rows = [] {
    std::vector<OpRow> r;
    add_elementwise_ops(r);
    add_reduce_ops(r);
    add_shape_ops(r);
    add_nn_ops(r);
    add_matmul_ops(r);
    add_logic_ops(r);
    add_loss_ops(r);
    add_resize_ops(r);
    add_quant_ops(r);
    add_training_ops(r);
    add_host_ops(r);
    add_rnn_ops(r);
    add_spectral_ops(r);
    add_sequence_ops(r);
    add_random_ops(r);
    return r;
  }();
  return rows;
}
}  // namespace

const OpRow* find_op(const std::string& op, int opset) {
  for (const auto& r : table())
    if (op == r.op && opset >= r.since && opset <= r.until) return &r;
  return nullptr;
}

namespace {
// Re-raises a burn error with the node named, keeping its type.
[[noreturn]] void rethrow_with(const Error& e, const std::string& where) {
  std::string msg = where + ": " + e.what();
  if (dynamic_cast<const Unsupported*>(&e)) throw Unsupported("onnx", msg);
  if (dynamic_cast<const ShapeError*>(&e)) throw ShapeError("onnx", msg);
  if (dynamic_cast<const DTypeError*>(&e)) throw DTypeError("onnx", msg);
  if (dynamic_cast<const IndexError*>(&e)) throw IndexError("onnx", msg);
  if (dynamic_cast<const DeviceError*>(&e)) throw DeviceError("onnx", msg);
  if (dynamic_cast<const RecordError*>(&e)) throw RecordError("onnx", msg);
  throw ValueError("onnx", msg);
}

// Runs one node: its outputs as values (tensor ops' results wrapped).
Values call_node(const OpRow& row, OpContext& ctx) {
  try {
    if (row.vfn) return row.vfn(ctx);
    Values out;
    for (auto& h : row.fn(ctx)) out.push_back(h.prim ? Value::of(std::move(h)) : Value::none());
    return out;
  } catch (const Error& e) {
    if (std::string(e.what()).find(ctx.where()) != std::string::npos) throw;
    rethrow_with(e, ctx.where());
  }
}

class MapEnv final : public Env {
 public:
  explicit MapEnv(const Env* parent) : parent_(parent) {}
  const Value* find(const std::string& n) const override {
    auto it = vals_.find(n);
    if (it != vals_.end()) return &it->second;
    return parent_ ? parent_->find(n) : nullptr;
  }
  int32_t elem_type(const std::string& n) const override { return parent_ ? parent_->elem_type(n) : 0; }
  void set(const std::string& n, Value v) { vals_[n] = std::move(v); }

 private:
  const Env* parent_;
  std::unordered_map<std::string, Value> vals_;  // node-based: pointers stay valid
};

// Ops of the default domain the engine knows and refuses on purpose, with the reason.
const char* refused_op(const std::string& op, bool default_domain) {
  if (!default_domain) return nullptr;
  if (op == "ImageDecoder")
    return "decoding encoded images (JPEG, PNG...) is outside the engine; decode them before the model and feed "
           "the pixels as a uint8 tensor";
  if (op == "StringConcat" || op == "StringSplit" || op == "RegexFullMatch" || op == "StringNormalizer")
    return "string tensors have no burn dtype";
  return nullptr;
}

// Every op of a graph and its subgraphs has an implementation; Unsupported naming the first without.
void check_graph(const ::onnx::GraphProto& g, int opset, const std::string& file) {
  for (const auto& n : g.node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      throw Unsupported(
          "onnx", "'" + file + "' subgraph node '" + n.name() + "' (" + n.op_type() + "): domain '" + n.domain() + "'");
    if (!find_op(n.op_type(), opset))
      throw Unsupported("onnx", "'" + file + "' node '" + n.name() + "' (" + n.op_type() + ", opset " +
                                    std::to_string(opset) + "): unsupported op " + n.op_type() + " (opset " +
                                    std::to_string(opset) + ")");
    for (const auto& a : n.attribute()) {
      if (a.has_g()) check_graph(a.g(), opset, file);
      for (const auto& sg : a.graphs()) check_graph(sg, opset, file);
    }
  }
}

// The names a node's subgraphs read (captured from enclosing scopes, or their own).
void subgraph_reads(const ::onnx::NodeProto& n, std::vector<std::string>& out) {
  for (const auto& a : n.attribute()) {
    std::vector<const ::onnx::GraphProto*> gs;
    if (a.has_g()) gs.push_back(&a.g());
    for (const auto& sg : a.graphs()) gs.push_back(&sg);
    for (const auto* g : gs)
      for (const auto& m : g->node()) {
        out.insert(out.end(), m.input().begin(), m.input().end());
        subgraph_reads(m, out);
      }
  }
}
}  // namespace

Values OpContext::run_graph(const ::onnx::GraphProto& g, const Values& inputs) const {
  if (static_cast<size_t>(g.input_size()) != inputs.size())
    invalid("subgraph '" + g.name() + "' takes " + std::to_string(g.input_size()) + " inputs, got " +
            std::to_string(inputs.size()));
  MapEnv env(env_);
  for (int i = 0; i < g.input_size(); ++i) env.set(g.input(i).name(), inputs[static_cast<size_t>(i)]);
  for (const auto& t : g.initializer()) {
    TensorData d = tensor_from_proto(t, where() + " subgraph initializer '" + t.name() + "'");
    env.set(t.name(), Value::of(api::from_data(device_, d, api::kind_of(d.dtype()))));
  }
  for (const auto& n : g.node()) {
    const OpRow* row = find_op(n.op_type(), opset_);
    if (!row) unsupported("subgraph op " + n.op_type());
    Values ins;
    for (const auto& x : n.input()) {
      if (x.empty()) {
        ins.push_back(Value::none());
        continue;
      }
      const Value* v = env.find(x);
      if (!v) invalid("subgraph value '" + x + "' is not defined");
      ins.push_back(*v);
    }
    OpContext sub(n, opset_, device_, std::move(ins), &env);
    Values outs = call_node(*row, sub);
    for (int o = 0; o < n.output_size(); ++o)
      if (!n.output(o).empty() && static_cast<size_t>(o) < outs.size())
        env.set(n.output(o), outs[static_cast<size_t>(o)]);
  }
  Values out;
  for (const auto& o : g.output()) {
    const Value* v = env.find(o.name());
    if (!v) invalid("subgraph output '" + o.name() + "' is not computed");
    out.push_back(*v);
  }
  return out;
}

std::vector<OpSupport> supported_ops() {
  std::vector<OpSupport> out;
  for (const auto& r : table())
    if (std::string_view(r.op).substr(0, 5) != "burn.") out.push_back({r.op, r.since, r.until});  // loader-made
  return out;
}

// ---- the model ----

struct OnnxModel::Impl {
  std::string path;
  ::onnx::ModelProto proto;
  int opset = 0;
  Device device;
  std::vector<std::string> inputs, outputs, input_types, output_types;
  std::vector<DeclaredInput> declared;  // per input
  std::vector<std::string> param_names;
  std::vector<DynParam> params;
  std::vector<const OpRow*> fns;                 // per node
  std::vector<int> node_opsets;                  // per node: the opset of its domain
  std::vector<std::vector<size_t>> frees;        // per node: value slots whose last use it is
  std::unordered_map<std::string, size_t> slot;  // value name -> slot
  std::vector<size_t> input_slots, output_slots, param_slots;
  size_t num_slots = 0;
  std::unordered_map<std::string, int32_t> elem_types;  // value name -> ONNX element type (elem_types_of)
};

namespace {
// The ONNX element type of each value of the main graph that it declares (inputs, initializers,
// value_info, outputs) or that follows from its node: Cast's `to`, CastLike's second input, Constant's
// tensor, and the first input of the ops whose output has their input's type.
std::unordered_map<std::string, int32_t> elem_types_of(const ::onnx::GraphProto& g) {
  std::unordered_map<std::string, int32_t> t;
  auto declare = [&](const ::onnx::ValueInfoProto& vi) {
    if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0)
      t[vi.name()] = vi.type().tensor_type().elem_type();
  };
  for (const auto& vi : g.input()) declare(vi);
  for (const auto& vi : g.value_info()) declare(vi);
  for (const auto& vi : g.output()) declare(vi);
  for (const auto& i : g.initializer()) t[i.name()] = i.data_type();
  static const std::unordered_set<std::string> kSameType{
      "Identity", "Reshape", "Flatten",    "Squeeze",    "Unsqueeze", "Transpose",  "Expand",  "Tile",
      "Slice",    "Gather",  "Concat",     "Abs",        "Neg",       "Add",        "Sub",     "Mul",
      "Max",      "Min",     "BitwiseNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift"};
  for (const auto& n : g.node()) {
    if (!(n.domain().empty() || n.domain() == "ai.onnx") || n.output_size() == 0 || n.output(0).empty() ||
        t.count(n.output(0)))
      continue;
    int32_t type = 0;
    auto input_type = [&](int i) {
      auto it = i < n.input_size() ? t.find(n.input(i)) : t.end();
      return it == t.end() ? 0 : it->second;
    };
    if (n.op_type() == "Cast") {
      for (const auto& a : n.attribute())
        if (a.name() == "to") type = static_cast<int32_t>(a.i());
    } else if (n.op_type() == "CastLike") {
      type = input_type(1);
    } else if (n.op_type() == "Constant") {
      for (const auto& a : n.attribute())
        if (a.name() == "value") type = a.t().data_type();
    } else if (kSameType.count(n.op_type())) {
      type = input_type(0);
    }
    if (type != 0) t[n.output(0)] = type;
  }
  return t;
}
}  // namespace

OnnxModel::OnnxModel() : impl_(std::make_unique<Impl>()) {}
OnnxModel::~OnnxModel() = default;

std::unique_ptr<OnnxModel> OnnxModel::load(const std::string& path, const OnnxModelOptions& options) {
  return parse(read_file(path), path, options);
}

std::unique_ptr<OnnxModel> OnnxModel::parse(const std::string& bytes, const std::string& name,
                                            const OnnxModelOptions& options) {
  std::unique_ptr<OnnxModel> m(new OnnxModel());
  Impl& I = *m->impl_;
  I.path = name;
  I.device = options.device;
  parse_message(I.proto, bytes, name, "model");
  std::unordered_map<std::string, int> domain_opsets;
  for (const auto& o : I.proto.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx")
      I.opset = static_cast<int>(o.version());
    else
      domain_opsets[o.domain()] = static_cast<int>(o.version());
  }
  if (I.opset == 0) I.opset = 1;  // IR without opset_import: the first opset
  {
    std::unordered_map<std::string, int> uses;
    for (const auto& n : I.proto.graph().node()) {
      std::vector<std::string> reads(n.input().begin(), n.input().end());
      subgraph_reads(n, reads);
      for (const auto& x : reads)
        if (!x.empty()) ++uses[x];
    }
    for (const auto& o : I.proto.graph().output()) ++uses[o.name()];
    fuse_qdq_products(*I.proto.mutable_graph(), uses, I.opset);
  }
  const auto& g = I.proto.graph();
  auto slot_of = [&](const std::string& n) {
    auto [it, inserted] = I.slot.emplace(n, I.num_slots);
    if (inserted) ++I.num_slots;
    return it->second;
  };
  std::unordered_set<std::string> init_names;
  for (const auto& t : g.initializer()) {
    std::string where = "'" + name + "' initializer '" + t.name() + "'";
    TensorData d = tensor_from_proto(t, where);
    Kind k = api::kind_of(d.dtype());
    H h = api::from_data(I.device, d, k);
    bool train = options.trainable && k == Kind::Float;
    I.params.emplace_back(h, k, train ? nn::ParamRole::Trainable : nn::ParamRole::Buffer);
    I.param_names.push_back(t.name());
    I.param_slots.push_back(slot_of(t.name()));
    init_names.insert(t.name());
  }
  if (g.sparse_initializer_size() > 0) throw Unsupported("onnx", "'" + name + "': sparse initializers");
  for (const auto& vi : g.input()) {
    if (init_names.count(vi.name())) continue;
    if (vi.type().has_map_type()) throw Unsupported("onnx", "'" + name + "' input '" + vi.name() + "': map values");
    I.input_types.push_back(vi.type().has_sequence_type()   ? "sequence"
                            : vi.type().has_optional_type() ? "optional"
                                                            : "tensor");
    I.inputs.push_back(vi.name());
    I.declared.push_back(declared_input(vi));
    I.input_slots.push_back(slot_of(vi.name()));
  }
  for (const auto& n : g.node()) {
    bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    int opset = default_domain ? I.opset : domain_opsets.count(n.domain()) ? domain_opsets.at(n.domain()) : 1;
    std::string where =
        "'" + name + "' node '" + n.name() + "' (" + n.op_type() + ", opset " + std::to_string(opset) + ")";
    if (default_domain && opset > kMaxOpset)
      throw Unsupported("onnx", where + ": the model imports opset " + std::to_string(opset) +
                                    ", newer than the engine knows (opsets " + std::to_string(kMinOpset) + " to " +
                                    std::to_string(kMaxOpset) + ")");
    if (default_domain && opset < kMinOpset)
      throw Unsupported("onnx", where + ": opset " + std::to_string(opset) + " outside the supported " +
                                    std::to_string(kMinOpset) + "-" + std::to_string(kMaxOpset));
    if (const char* why = refused_op(n.op_type(), default_domain))
      throw Unsupported("onnx", where + ": " + n.op_type() + " is refused: " + why);
    // Other domains' ops are table rows named "domain/Op".
    const OpRow* fn = find_op(default_domain ? n.op_type() : n.domain() + "/" + n.op_type(), opset);
    if (!fn) {
      std::string op = default_domain ? n.op_type() : n.domain() + "." + n.op_type();
      throw Unsupported("onnx", where + ": unsupported op " + op + " (opset " + std::to_string(opset) + ")");
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) check_graph(a.g(), opset, name);
      for (const auto& sg : a.graphs()) check_graph(sg, opset, name);
    }
    I.fns.push_back(fn);
    I.node_opsets.push_back(opset);
    for (const auto& x : n.input())
      if (!x.empty() && !I.slot.count(x))
        throw RecordError("onnx", where + ": input '" + x + "' is not produced by any earlier node");
    for (const auto& y : n.output())
      if (!y.empty()) slot_of(y);
  }
  for (const auto& vi : g.output()) {
    if (!I.slot.count(vi.name()))
      throw RecordError("onnx", "'" + name + "': output '" + vi.name() + "' is never produced");
    if (vi.type().has_map_type()) throw Unsupported("onnx", "'" + name + "' output '" + vi.name() + "': map values");
    I.output_types.push_back(vi.type().has_sequence_type()   ? "sequence"
                             : vi.type().has_optional_type() ? "optional"
                                                             : "tensor");
    I.outputs.push_back(vi.name());
    I.output_slots.push_back(I.slot.at(vi.name()));
  }
  I.elem_types = elem_types_of(g);
  // Each intermediate value is released after its last use, so peak memory follows the graph's width.
  std::vector<int64_t> last(I.num_slots, -1);
  for (int i = 0; i < g.node_size(); ++i) {
    std::vector<std::string> reads(g.node(i).input().begin(), g.node(i).input().end());
    subgraph_reads(g.node(i), reads);
    for (const auto& x : reads)
      if (!x.empty() && I.slot.count(x)) last[I.slot.at(x)] = std::max<int64_t>(last[I.slot.at(x)], i);
  }
  std::unordered_set<size_t> keep(I.output_slots.begin(), I.output_slots.end());
  keep.insert(I.param_slots.begin(), I.param_slots.end());
  I.frees.resize(static_cast<size_t>(g.node_size()));
  for (size_t s = 0; s < I.num_slots; ++s)
    if (last[s] >= 0 && !keep.count(s)) I.frees[static_cast<size_t>(last[s])].push_back(s);
  return m;
}

const std::vector<std::string>& OnnxModel::input_names() const { return impl_->inputs; }
const std::vector<std::string>& OnnxModel::output_names() const { return impl_->outputs; }
int OnnxModel::opset() const { return impl_->opset; }

void OnnxModel::visit_fields(nn::ModuleVisitor& v) {
  for (size_t i = 0; i < impl_->params.size(); ++i) v.param(impl_->param_names[i], impl_->params[i]);
}

namespace {
// The main graph's values by slot, for subgraphs reading enclosing names.
class SlotEnv final : public Env {
 public:
  SlotEnv(const std::unordered_map<std::string, size_t>& slot, const std::vector<std::optional<Value>>& values,
          const std::unordered_map<std::string, int32_t>& types)
      : slot_(slot), values_(values), types_(types) {}
  const Value* find(const std::string& n) const override {
    auto it = slot_.find(n);
    if (it == slot_.end() || !values_[it->second]) return nullptr;
    return &*values_[it->second];
  }
  int32_t elem_type(const std::string& n) const override {
    auto it = types_.find(n);
    return it == types_.end() ? 0 : it->second;
  }

 private:
  const std::unordered_map<std::string, size_t>& slot_;
  const std::vector<std::optional<Value>>& values_;
  const std::unordered_map<std::string, int32_t>& types_;
};
}  // namespace

const std::vector<std::string>& OnnxModel::input_types() const { return impl_->input_types; }
const std::vector<std::string>& OnnxModel::output_types() const { return impl_->output_types; }

std::vector<TensorHandle> OnnxModel::forward(const std::vector<TensorHandle>& inputs) const {
  Values in;
  for (const auto& h : inputs) {
    if (!h.prim) throw ValueError("onnx", "'" + impl_->path + "': an input is empty");
    in.push_back(Value::of(h));
  }
  Values out = run(in);
  std::vector<TensorHandle> hs;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].is_tensor())
      throw Unsupported("onnx", "'" + impl_->path + "': output '" + impl_->outputs[i] + "' is not a tensor; use run()");
    hs.push_back(out[i].tensor);
  }
  return hs;
}

std::vector<OnnxValue> OnnxModel::run(const std::vector<OnnxValue>& inputs) const {
  const Impl& I = *impl_;
  if (inputs.size() != I.inputs.size())
    throw ValueError("onnx", "'" + I.path + "' takes " + std::to_string(I.inputs.size()) + " inputs, got " +
                                 std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_tensor() && inputs[i].tensor.prim && I.input_types[i] == "tensor")
      check_input(I.path, I.inputs[i], I.declared[i], inputs[i].tensor);
  }
  Device device = I.device;
  if (!inputs.empty() && inputs[0].is_tensor() && inputs[0].tensor.prim)
    device = inputs[0].tensor.device;
  else if (!I.params.empty())
    device = I.params[0].handle().device;
  std::vector<std::optional<Value>> values(I.num_slots);
  for (size_t i = 0; i < I.params.size(); ++i) values[I.param_slots[i]] = Value::of(I.params[i].handle());
  for (size_t i = 0; i < inputs.size(); ++i) values[I.input_slots[i]] = inputs[i];
  SlotEnv env(I.slot, values, I.elem_types);
  const auto& g = I.proto.graph();
  for (int ni = 0; ni < g.node_size(); ++ni) {
    const auto& n = g.node(ni);
    Values ins;
    ins.reserve(static_cast<size_t>(n.input_size()));
    for (const auto& x : n.input()) {
      if (x.empty()) {
        ins.push_back(Value::none());
        continue;
      }
      const auto& v = values[I.slot.at(x)];
      if (!v) throw ValueError("onnx", "'" + I.path + "' node '" + n.name() + "': input '" + x + "' has no value");
      ins.push_back(*v);
    }
    OpContext ctx(n, I.node_opsets[static_cast<size_t>(ni)], device, std::move(ins), &env);
    Values outs = call_node(*I.fns[static_cast<size_t>(ni)], ctx);
    for (int o = 0; o < n.output_size(); ++o) {
      if (n.output(o).empty()) continue;
      if (static_cast<size_t>(o) >= outs.size())
        ctx.unsupported("output " + std::to_string(o) + " ('" + n.output(o) + "') is not computed");
      values[I.slot.at(n.output(o))] = std::move(outs[static_cast<size_t>(o)]);
    }
    for (size_t s : I.frees[static_cast<size_t>(ni)]) values[s].reset();
  }
  Values out;
  for (size_t i = 0; i < I.outputs.size(); ++i) {
    const auto& v = values[I.output_slots[i]];
    if (!v) throw ValueError("onnx", "'" + I.path + "': output '" + I.outputs[i] + "' has no value");
    out.push_back(*v);
  }
  return out;
}

OnnxValue read_value_proto_file(const std::string& path, const std::string& type, const Device& device) {
  auto make = [&](const ::onnx::TensorProto& t) {
    TensorData d = tensor_from_proto(t, "'" + path + "'");
    return api::from_data(device, d, api::kind_of(d.dtype()));
  };
  auto seq = [&](const ::onnx::SequenceProto& s) {
    if (s.sequence_values_size() || s.map_values_size() || s.optional_values_size() || s.sparse_tensor_values_size())
      throw Unsupported("onnx", "'" + path + "': sequences of other than tensors");
    std::vector<H> hs;
    for (const auto& t : s.tensor_values()) hs.push_back(make(t));
    return Value::of(std::move(hs));
  };
  std::string bytes = read_file(path);
  if (type == "sequence") {
    ::onnx::SequenceProto s;
    parse_message(s, bytes, path, "sequence");
    return seq(s);
  }
  if (type == "optional") {
    ::onnx::OptionalProto o;
    parse_message(o, bytes, path, "optional");
    if (o.has_tensor_value()) return Value::of(make(o.tensor_value()));
    if (o.has_sequence_value()) return seq(o.sequence_value());
    return Value::none();
  }
  ::onnx::TensorProto t;
  parse_message(t, bytes, path, "tensor");
  return Value::of(make(t));
}

std::vector<std::pair<std::string, TensorData>> read_initializers(const std::string& path) {
  ::onnx::ModelProto proto;
  parse_message(proto, read_file(path), path, "model");
  std::vector<std::pair<std::string, TensorData>> out;
  for (const auto& t : proto.graph().initializer())
    out.emplace_back(t.name(), tensor_from_proto(t, "'" + path + "' initializer '" + t.name() + "'"));
  return out;
}

}  // namespace burn::onnx
