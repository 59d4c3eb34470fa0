// ONNX models built at test time with seeded random weights, so that no large file is committed: a
// ResNet-18 (torchvision's topology: 7x7 stem, max pool, four stages of two basic blocks with 1x1
// downsampling, global average pool, a linear head; channel width a parameter) and a transformer encoder
// (token embedding by Gather, learned positions, causal multi-head attention through Reshape/Transpose/
// MatMul/Where/Softmax, a reshape to a shape computed by Shape/Gather/Concat, LayerNormalization, an erf GELU
// feed-forward, mean pooling and a linear head), in the ops and layout torch.onnx.export gives them (opset 17).
#pragma once

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace burn::onnx_test {

class GraphBuilder {
 public:
  explicit GraphBuilder(uint64_t seed) : rng_(seed) {
    model_.set_ir_version(8);
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(17);
    model_.set_producer_name("burn-cpp onnx_test_models.hpp");
  }

  ::onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  std::string bytes() const { return model_.SerializeAsString(); }

  void input(const std::string& name, int elem_type, const std::vector<int64_t>& shape) {
    value_info(graph().add_input(), name, elem_type, shape);
  }
  void output(const std::string& name, int elem_type, const std::vector<int64_t>& shape) {
    value_info(graph().add_output(), name, elem_type, shape);
  }

  // A float initializer of normal values with standard deviation `stddev` around `mean`.
  std::string normal(const std::string& name, const std::vector<int64_t>& shape, float stddev, float mean = 0.0f) {
    std::normal_distribution<float> dist(mean, stddev);
    std::vector<float> v(count(shape));
    for (float& x : v) x = dist(rng_);
    return floats(name, shape, v);
  }
  // A float initializer of uniform values in [lo, hi).
  std::string uniform(const std::string& name, const std::vector<int64_t>& shape, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(count(shape));
    for (float& x : v) x = dist(rng_);
    return floats(name, shape, v);
  }
  std::string floats(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& v) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
    return name;
  }
  std::string ints(const std::string& name, const std::vector<int64_t>& v) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
    return name;
  }

  // A node with a fresh output name (or `out`); returns the output.
  ::onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs, std::string out = "") {
    if (out.empty()) out = op + "_" + std::to_string(next_++);
    auto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(out + "_node");
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(out);
    return *n;
  }
  std::string op(const std::string& op, const std::vector<std::string>& inputs) { return node(op, inputs).output(0); }

  static void attr(::onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(::onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }

 private:
  static size_t count(const std::vector<int64_t>& shape) {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    return n;
  }
  static void value_info(::onnx::ValueInfoProto* vi, const std::string& name, int elem_type,
                         const std::vector<int64_t>& shape) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type);
    for (int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }

  ::onnx::ModelProto model_;
  std::mt19937_64 rng_;
  int next_ = 0;
};

// Conv (no bias, He-initialised) + BatchNormalization (random statistics) as torchvision's layers export
// in eval mode, optionally followed by Relu.
inline std::string conv_bn(GraphBuilder& g, const std::string& x, const std::string& name, int64_t cin, int64_t cout,
                           int64_t k, int64_t stride, bool relu) {
  const float he = std::sqrt(2.0f / static_cast<float>(cin * k * k));
  auto& conv = g.node("Conv", {x, g.normal(name + ".weight", {cout, cin, k, k}, he)});
  GraphBuilder::attr(conv, "kernel_shape", std::vector<int64_t>{k, k});
  GraphBuilder::attr(conv, "strides", std::vector<int64_t>{stride, stride});
  GraphBuilder::attr(conv, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  auto& bn = g.node(
      "BatchNormalization",
      {conv.output(0), g.uniform(name + ".bn.weight", {cout}, 0.5f, 1.5f), g.normal(name + ".bn.bias", {cout}, 0.1f),
       g.normal(name + ".bn.running_mean", {cout}, 0.1f), g.uniform(name + ".bn.running_var", {cout}, 0.5f, 1.5f)});
  GraphBuilder::attr(bn, "epsilon", 1e-5f);
  return relu ? g.op("Relu", {bn.output(0)}) : bn.output(0);
}

// ResNet-18 for `batch` x 3 x `size` x `size` images, stage widths w, 2w, 4w, 8w, `classes` logits.
// Input "input", output "logits".
inline std::string resnet18(int64_t width, int64_t batch, int64_t size, int64_t classes, uint64_t seed) {
  GraphBuilder g(seed);
  g.input("input", ::onnx::TensorProto::FLOAT, {batch, 3, size, size});
  std::string x = conv_bn(g, "input", "conv1", 3, width, 7, 2, true);
  auto& pool = g.node("MaxPool", {x});
  GraphBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{3, 3});
  GraphBuilder::attr(pool, "strides", std::vector<int64_t>{2, 2});
  GraphBuilder::attr(pool, "pads", std::vector<int64_t>{1, 1, 1, 1});
  x = pool.output(0);
  int64_t cin = width;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t cout = width << stage;
    for (int block = 0; block < 2; ++block) {
      const std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      const int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      std::string y = conv_bn(g, x, name + ".conv1", cin, cout, 3, stride, true);
      y = conv_bn(g, y, name + ".conv2", cout, cout, 3, 1, false);
      const std::string shortcut =
          stride != 1 || cin != cout ? conv_bn(g, x, name + ".downsample", cin, cout, 1, stride, false) : x;
      x = g.op("Relu", {g.op("Add", {y, shortcut})});
      cin = cout;
    }
  }
  x = g.op("GlobalAveragePool", {x});
  auto& flat = g.node("Flatten", {x});
  GraphBuilder::attr(flat, "axis", int64_t{1});
  const float bound = 1.0f / std::sqrt(static_cast<float>(cin));
  auto& fc = g.node("Gemm",
                    {flat.output(0), g.uniform("fc.weight", {classes, cin}, -bound, bound),
                     g.uniform("fc.bias", {classes}, -bound, bound)},
                    "logits");
  GraphBuilder::attr(fc, "transB", int64_t{1});
  g.output("logits", ::onnx::TensorProto::FLOAT, {batch, classes});
  return g.bytes();
}

// x @ W^T + b for a [.., in] x, as torch exports nn.Linear inside a sequence (MatMul with the transposed
// weight stored, then Add).
inline std::string linear(GraphBuilder& g, const std::string& x, const std::string& name, int64_t in, int64_t out) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(in));
  return g.op("Add", {g.op("MatMul", {x, g.uniform(name + ".weight_t", {in, out}, -bound, bound)}),
                      g.uniform(name + ".bias", {out}, -bound, bound)});
}

inline std::string layer_norm(GraphBuilder& g, const std::string& x, const std::string& name, int64_t d) {
  auto& ln = g.node("LayerNormalization",
                    {x, g.uniform(name + ".weight", {d}, 0.8f, 1.2f), g.normal(name + ".bias", {d}, 0.1f)});
  GraphBuilder::attr(ln, "axis", int64_t{-1});
  GraphBuilder::attr(ln, "epsilon", 1e-5f);
  return ln.output(0);
}

// A post-norm transformer encoder over int64 tokens "tokens" [batch, seq] (< vocab): `layers` layers of
// `heads`-head self-attention and a 4d GELU feed-forward, mean-pooled into `classes` logits "logits".
inline std::string transformer(int64_t vocab, int64_t d, int64_t heads, int64_t layers, int64_t batch, int64_t seq,
                               int64_t classes, uint64_t seed) {
  GraphBuilder g(seed);
  g.input("tokens", ::onnx::TensorProto::INT64, {batch, seq});
  auto& emb = g.node("Gather", {g.normal("embedding.weight", {vocab, d}, 1.0f), "tokens"});
  GraphBuilder::attr(emb, "axis", int64_t{0});
  std::string x = g.op("Add", {emb.output(0), g.normal("pos_embedding", {1, seq, d}, 0.5f)});
  const int64_t dh = d / heads;
  const std::string split_heads = g.ints("split_heads", {batch, seq, heads, dh});
  const std::string first_two = g.ints("first_two", {0, 1});
  const std::string minus_one = g.ints("minus_one", {-1});
  // A causal mask (bool, lower triangle) applied with Where, as torch exports masked_fill.
  auto& tri =
      g.node("Trilu", {g.floats("ones_ss", {seq, seq}, std::vector<float>(static_cast<size_t>(seq * seq), 1.0f))});
  GraphBuilder::attr(tri, "upper", int64_t{0});
  auto& cast = g.node("Cast", {tri.output(0)});
  GraphBuilder::attr(cast, "to", int64_t{::onnx::TensorProto::BOOL});
  const std::string causal = cast.output(0);
  const std::string masked = g.floats("masked", {}, {-1e9f});
  const std::string scale = g.floats("attn_scale", {}, {1.0f / std::sqrt(static_cast<float>(dh))});
  const std::string sqrt2 = g.floats("sqrt2", {}, {std::sqrt(2.0f)});
  const std::string one = g.floats("one", {}, {1.0f});
  const std::string half = g.floats("half", {}, {0.5f});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "layers." + std::to_string(l);
    auto heads_of = [&](const std::string& name, std::vector<int64_t> perm) {
      auto& t = g.node("Transpose", {g.op("Reshape", {linear(g, x, p + ".attn." + name, d, d), split_heads})});
      GraphBuilder::attr(t, "perm", perm);
      return t.output(0);
    };
    const std::string q = heads_of("q", {0, 2, 1, 3});  // [b, h, s, dh]
    const std::string k = heads_of("k", {0, 2, 3, 1});  // [b, h, dh, s]
    const std::string v = heads_of("v", {0, 2, 1, 3});
    const std::string scores = g.op("Mul", {g.op("MatMul", {q, k}), scale});
    auto& sm = g.node("Softmax", {g.op("Where", {causal, scores, masked})});
    GraphBuilder::attr(sm, "axis", int64_t{-1});
    auto& merged = g.node("Transpose", {g.op("MatMul", {sm.output(0), v})});
    GraphBuilder::attr(merged, "perm", std::vector<int64_t>{0, 2, 1, 3});
    // The merged shape from the input's own, as torch exports a reshape to x.shape[:2] + (-1,).
    auto& lead = g.node("Gather", {g.op("Shape", {x}), first_two});
    GraphBuilder::attr(lead, "axis", int64_t{0});
    auto& merged_shape = g.node("Concat", {lead.output(0), minus_one});
    GraphBuilder::attr(merged_shape, "axis", int64_t{0});
    const std::string attn =
        linear(g, g.op("Reshape", {merged.output(0), merged_shape.output(0)}), p + ".attn.out", d, d);
    x = layer_norm(g, g.op("Add", {x, attn}), p + ".norm1", d);
    const std::string h = linear(g, x, p + ".ff.0", d, 4 * d);
    // GELU as torch exports it below opset 20: x * 0.5 * (1 + erf(x / sqrt(2)))
    const std::string gelu =
        g.op("Mul", {g.op("Mul", {h, g.op("Add", {g.op("Erf", {g.op("Div", {h, sqrt2})}), one})}), half});
    x = layer_norm(g, g.op("Add", {x, linear(g, gelu, p + ".ff.2", 4 * d, d)}), p + ".norm2", d);
  }
  auto& pooled = g.node("ReduceMean", {x});
  GraphBuilder::attr(pooled, "axes", std::vector<int64_t>{1});
  GraphBuilder::attr(pooled, "keepdims", int64_t{0});
  const float bound = 1.0f / std::sqrt(static_cast<float>(d));
  auto& head = g.node("Gemm",
                      {pooled.output(0), g.uniform("head.weight", {classes, d}, -bound, bound),
                       g.uniform("head.bias", {classes}, -bound, bound)},
                      "logits");
  GraphBuilder::attr(head, "transB", int64_t{1});
  g.output("logits", ::onnx::TensorProto::FLOAT, {batch, classes});
  return g.bytes();
}

}  // namespace burn::onnx_test
