// The ONNX engine beyond the backend cases: an exported PyTorch conv net (gen_onnx_fixtures.py) runs
// and trains on autodiff<cpu> with PyTorch's output and gradients, its initializers are named Params
// for burn-nn's walkers, the `onnx` importer lists and reads them, and bad models give clear errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "burn/import/importer.hpp"
#include "burn/onnx/model.hpp"
#include "burn/tensor/autodiff.hpp"

using namespace burn;

namespace {

const std::string kDir = BURN_IMPORT_FIXTURES "/onnx/";

nlohmann::json fixture() {
  std::ifstream f(kDir + "convnet.json");
  return nlohmann::json::parse(f);
}

TensorData data_of(const nlohmann::json& j) {
  std::vector<float> v;
  for (double x : j["values"]) v.push_back(static_cast<float>(x));
  return TensorData::from_vector(v, Shape(j["shape"].get<std::vector<int64_t>>()));
}

void expect_close(const TensorHandle& got, const nlohmann::json& want, const std::string& what) {
  TensorData g = api::into_data(got);
  g.assert_approx_eq(data_of(want), 1e-4, 1e-5);
  SCOPED_TRACE(what);
}

TEST(OnnxEngine, ImportedConvNetMatchesPyTorchForwardAndGradients) {
  auto fx = fixture();
  Device ad = Device::get("autodiff<cpu>");
  auto model = burn::onnx::OnnxModel::load(kDir + "convnet.onnx", {ad, true});
  EXPECT_EQ(model->input_names(), std::vector<std::string>{"x"});
  EXPECT_EQ(model->output_names(), std::vector<std::string>{"y"});

  std::vector<std::string> names;
  for (const auto& p : model->named_params()) names.push_back(p.path);
  EXPECT_EQ(names,
            (std::vector<std::string>{"conv.weight", "conv.bias", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}));
  EXPECT_EQ(model->num_params(), 3 * 2 * 9 + 3 + 12 * 5 + 5 + 5 * 4 + 4);

  TensorHandle x = api::from_data(ad, data_of(fx["x"]), Kind::Float);
  auto out = model->forward({x});
  ASSERT_EQ(out.size(), 1u);
  expect_close(out[0], fx["y"], "y");

  TensorHandle w = api::from_data(ad, data_of(fx["w_out"]), Kind::Float);
  TensorHandle loss = api::reduce_all(OpId::sum, api::mul(out[0], w));
  Gradients grads = api::backward(loss, {});
  for (const auto& p : model->named_params()) {
    auto g = api::grad(p.param->handle(), grads);
    ASSERT_TRUE(g.has_value()) << p.path << " has no gradient";
    api::into_data(*g).assert_approx_eq(data_of(fx["grads"][p.path]), 1e-4, 1e-5);
  }

  // valid(): the same model on the inner device, no longer tracked; same output.
  model->valid();
  EXPECT_EQ(model->named_params()[0].param->handle().device, Device::get("cpu"));
  auto out2 = model->forward({api::from_data(Device::get("cpu"), data_of(fx["x"]), Kind::Float)});
  expect_close(out2[0], fx["y"], "y after valid()");
}

::onnx::ModelProto one_node_model(const std::string& op, int opset) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("a");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  auto* n = g->add_node();
  n->set_name("my_node");
  n->set_op_type(op);
  n->add_input("a");
  n->add_output("b");
  g->add_output()->set_name("b");
  return m;
}

TEST(OnnxEngine, UnsupportedNodeNamesTheNodeTheOpAndTheOpset) {
  try {
    burn::onnx::OnnxModel::parse(one_node_model("FancyOp", 13).SerializeAsString(), "fancy.onnx");
    FAIL() << "no error";
  } catch (const Unsupported& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("my_node"), std::string::npos) << m;
    EXPECT_NE(m.find("FancyOp"), std::string::npos) << m;
    EXPECT_NE(m.find("opset 13"), std::string::npos) << m;
  }
  // An opset newer than the engine knows: the node, the op and both opsets named.
  try {
    burn::onnx::OnnxModel::parse(one_node_model("Relu", 23).SerializeAsString(), "new.onnx");
    FAIL() << "no error";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()),
              "[onnx] 'new.onnx' node 'my_node' (Relu, opset 23): the model imports opset 23, newer than the engine "
              "knows (opsets 1 to 22)");
  }
  // A supported node runs.
  auto m =
      burn::onnx::OnnxModel::parse(one_node_model("Relu", 13).SerializeAsString(), "relu.onnx", {Device::get("cpu")});
  auto x =
      api::from_data(Device::get("cpu"), TensorData::from_vector(std::vector<float>{-1, 2}, Shape{2}), Kind::Float);
  std::vector<float> y = api::into_data(m->forward({x})[0]).to_vec<float>();
  EXPECT_EQ(y, (std::vector<float>{0, 2}));
}

// ImageDecoder is refused at load with the reason; float8 types (opset 19) name the type.
TEST(OnnxEngine, ImageDecoderAndFloat8AreRefusedClearly) {
  try {
    burn::onnx::OnnxModel::parse(one_node_model("ImageDecoder", 20).SerializeAsString(), "img.onnx");
    FAIL() << "no error";
  } catch (const Unsupported& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("node 'my_node' (ImageDecoder, opset 20): ImageDecoder is refused: decoding encoded images"),
              std::string::npos)
        << m;
  }
  ::onnx::ModelProto proto = one_node_model("Cast", 19);
  auto* to = proto.mutable_graph()->mutable_node(0)->add_attribute();
  to->set_name("to");
  to->set_type(::onnx::AttributeProto::INT);
  to->set_i(17);  // FLOAT8E4M3FN
  const Device cpu = Device::get("cpu");
  auto m = burn::onnx::OnnxModel::parse(proto.SerializeAsString(), "f8.onnx", {cpu});
  auto x = api::from_data(cpu, TensorData::from_vector(std::vector<float>{1, 2}, Shape{2}), Kind::Float);
  try {
    m->forward({x});
    FAIL() << "no error";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("(Cast, opset 19): element type FLOAT8E4M3FN (17) has no burn dtype"),
              std::string::npos)
        << e.what();
  }
}

// Builds a graph of `nodes` at `opset` whose inputs and outputs are float tensors.
struct GraphBuilder {
  ::onnx::ModelProto m;
  explicit GraphBuilder(int opset) {
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_version(opset);
  }
  ::onnx::NodeProto* node(const std::string& op, std::vector<std::string> ins, const std::string& out) {
    auto* n = m.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(out);
    for (auto& i : ins) n->add_input(i);
    n->add_output(out);
    m.mutable_graph()->add_output()->set_name(out);
    return n;
  }
  void input(const std::string& name) { m.mutable_graph()->add_input()->set_name(name); }
  static void f(::onnx::NodeProto* n, const char* name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void i(::onnx::NodeProto* n, const char* name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void ints(::onnx::NodeProto* n, const char* name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
};

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double std_of(const std::vector<double>& v) {
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

// The Random* ops, Bernoulli and Multinomial draw from the device's generator; a node's seed re-seeds
// it first (the float's bit pattern), so seeded nodes repeat exactly and differ between seeds.
TEST(OnnxEngine, RandomOpsAreSeededAndDrawTheirDistributions) {
  GraphBuilder g(22);
  g.input("p");
  g.input("logits");
  auto* normal = g.node("RandomNormal", {}, "normal");
  GraphBuilder::ints(normal, "shape", {4000});
  GraphBuilder::f(normal, "mean", 2.0f);
  GraphBuilder::f(normal, "scale", 0.5f);
  GraphBuilder::f(normal, "seed", 3.0f);
  auto* uni = g.node("RandomUniform", {}, "uniform");
  GraphBuilder::ints(uni, "shape", {4000});
  GraphBuilder::f(uni, "low", -1.0f);
  GraphBuilder::f(uni, "high", 3.0f);
  GraphBuilder::f(uni, "seed", 4.0f);
  GraphBuilder::i(uni, "dtype", ::onnx::TensorProto::DOUBLE);
  auto* like = g.node("RandomUniformLike", {"p"}, "like");
  GraphBuilder::f(like, "seed", 4.0f);
  auto* bern = g.node("Bernoulli", {"p"}, "bernoulli");
  GraphBuilder::f(bern, "seed", 5.0f);
  auto* multi = g.node("Multinomial", {"logits"}, "multinomial");
  GraphBuilder::i(multi, "sample_size", 50);
  GraphBuilder::i(multi, "dtype", ::onnx::TensorProto::INT64);
  GraphBuilder::f(multi, "seed", 6.0f);
  g.node("RandomNormalLike", {"p"}, "unseeded");
  const Device cpu = Device::get("cpu");
  auto model = burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "random.onnx", {cpu});
  std::vector<float> pv(4000);
  for (size_t k = 0; k < pv.size(); ++k) pv[k] = k < 1000 ? 0.f : k < 2000 ? 1.f : 0.25f;
  TensorHandle p = api::from_data(cpu, TensorData::from_vector(pv, Shape{4000}), Kind::Float);
  TensorHandle logits =
      api::from_data(cpu, TensorData::from_vector(std::vector<float>{10, -10, -10, 10}, Shape{2, 2}), Kind::Float);
  auto a = model->forward({p, logits}), b = model->forward({p, logits});
  ASSERT_EQ(a.size(), 6u);
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(api::into_data(a[k]), api::into_data(b[k])) << "output " << k;

  std::vector<double> n = api::into_data(a[0]).to_f64_vec(), u = api::into_data(a[1]).to_f64_vec();
  EXPECT_EQ(api::into_data(a[0]).dtype(), DType::F32);
  EXPECT_NEAR(mean_of(n), 2.0, 0.05);
  EXPECT_NEAR(std_of(n), 0.5, 0.05);
  EXPECT_EQ(api::into_data(a[1]).dtype(), DType::F64);
  EXPECT_NEAR(mean_of(u), 1.0, 0.1);
  EXPECT_GE(*std::min_element(u.begin(), u.end()), -1.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 3.0);
  // The same seed gives the same draws: RandomUniformLike with seed 4 is RandomUniform's with seed 4
  // mapped from [-1, 3) back to [0, 1).
  std::vector<double> l = api::into_data(a[2]).to_f64_vec();
  for (size_t k = 0; k < 10; ++k) EXPECT_NEAR(l[k], (u[k] + 1.0) / 4.0, 1e-6);
  std::vector<double> bern_v = api::into_data(a[3]).to_f64_vec();
  EXPECT_EQ(std::count(bern_v.begin(), bern_v.begin() + 1000, 1.0), 0);            // p = 0
  EXPECT_EQ(std::count(bern_v.begin() + 1000, bern_v.begin() + 2000, 1.0), 1000);  // p = 1
  EXPECT_NEAR(mean_of(std::vector<double>(bern_v.begin() + 2000, bern_v.end())), 0.25, 0.04);
  TensorData mv = api::into_data(a[4]);
  EXPECT_EQ(mv.dtype(), DType::I64);
  EXPECT_EQ(mv.shape(), (Shape{2, 50}));
  std::vector<int64_t> mi = mv.to_vec<int64_t>();
  EXPECT_EQ(std::count(mi.begin(), mi.begin() + 50, 0), 50);  // p(class 0) = 1 - 2e-9
  EXPECT_EQ(std::count(mi.begin() + 50, mi.end(), 1), 50);
  EXPECT_EQ(api::into_data(a[5]).shape(), Shape{4000});

  // Another seed, other values.
  normal->mutable_attribute(3)->set_f(7.0f);
  auto other = burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "random2.onnx", {cpu})->forward({p, logits});
  EXPECT_NE(api::into_data(other[0]), api::into_data(a[0]));
}

// What the opset 18-22 ops refuse, each a clear error naming the node and the value.
TEST(OnnxEngine, NewerOpsRefuseBadValuesClearly) {
  const Device cpu = Device::get("cpu");
  auto tensor = [&](std::vector<float> v, Shape s) {
    return api::from_data(cpu, TensorData::from_vector(v, std::move(s)), Kind::Float);
  };
  auto ints = [&](std::vector<int64_t> v) {
    Shape s{static_cast<int64_t>(v.size())};
    return api::from_data(cpu, TensorData::from_vector(v, s), Kind::Int);
  };
  auto error_of = [&](GraphBuilder& g, const std::vector<TensorHandle>& in) -> std::string {
    try {
      burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "bad.onnx", {cpu})->forward(in);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  {
    GraphBuilder g(18);
    for (const char* n : {"x", "i", "u"}) g.input(n);
    auto* n = g.node("ScatterElements", {"x", "i", "u"}, "y");
    n->add_attribute()->set_name("reduction");
    n->mutable_attribute(0)->set_type(::onnx::AttributeProto::STRING);
    n->mutable_attribute(0)->set_s("max");
    auto idx = api::from_data(cpu, TensorData::from_vector(std::vector<int64_t>{0, 5}, Shape{1, 2}), Kind::Int);
    EXPECT_EQ(error_of(g, {tensor({1, 2, 3, 4}, Shape{2, 2}), idx, tensor({1, 1}, Shape{1, 2})}),
              "[onnx] node 'y' (ScatterElements, opset 18): index 5 outside [0, 2)");
  }
  {
    GraphBuilder g(19);
    g.input("x");
    g.input("pads");
    auto* n = g.node("Pad", {"x", "pads"}, "y");
    n->add_attribute()->set_name("mode");
    n->mutable_attribute(0)->set_type(::onnx::AttributeProto::STRING);
    n->mutable_attribute(0)->set_s("wrap");
    EXPECT_EQ(error_of(g, {tensor({}, Shape{0}), ints({1, 1})}),
              "[onnx] node 'y' (Pad, opset 19): wrap padding of the empty dim 0");
  }
  {
    GraphBuilder g(18);
    g.input("x");
    g.input("scales");
    auto* n = g.node("Resize", {"x", "", "scales"}, "y");
    n->add_attribute()->set_name("mode");
    n->mutable_attribute(0)->set_type(::onnx::AttributeProto::STRING);
    n->mutable_attribute(0)->set_s("linear");
    GraphBuilder::i(n, "antialias", 1);
    std::string e = error_of(g, {tensor({1, 2, 3, 4}, Shape{1, 4}), tensor({1.0f, 0.5f}, Shape{2})});
    EXPECT_EQ(e, "[onnx] node 'y' (Resize, opset 18): antialias=1 when downsampling with mode 'linear'");
  }
  {
    GraphBuilder g(21);
    g.input("x");
    g.input("s");
    GraphBuilder::i(g.node("DequantizeLinear", {"x", "s"}, "y"), "block_size", 2);
    auto q = api::from_data(cpu, TensorData::from_vector(std::vector<int64_t>{1, 2}, Shape{2}), Kind::Int);
    EXPECT_EQ(error_of(g, {api::cast(q, DType::U8), tensor({0.5f}, Shape{1})}),
              "[onnx] node 'y' (DequantizeLinear, opset 21): block_size 2");
  }
  {
    GraphBuilder g(18);
    for (const char* n : {"x", "image", "block"}) g.input(n);
    g.node("Col2Im", {"x", "image", "block"}, "y");
    EXPECT_EQ(error_of(g, {tensor(std::vector<float>(8), Shape{1, 8, 1}), ints({2, 2, 2}), ints({2, 2, 2})}),
              "[onnx] node 'y' (Col2Im, opset 18): Col2Im with 3 spatial dims (2 only)");
  }
}

// BitwiseNot of the unsigned types the engine holds wider (uint16 in i32, uint32 in i64) is max - x, by
// the element type the graph gives (a declared input, an initializer, a Cast, an Identity of one);
// uint64's bit pattern in i64 and the signed types complement as they are.
TEST(OnnxEngine, BitwiseNotOfUnsignedTypesFollowsTheirWidth) {
  using TP = ::onnx::TensorProto;
  const Device cpu = Device::get("cpu");
  GraphBuilder g(18);
  for (auto [name, type] : std::vector<std::pair<const char*, int>>{
           {"u16", TP::UINT16}, {"u32", TP::UINT32}, {"u64", TP::UINT64}, {"i16", TP::INT16}, {"i64", TP::INT64}}) {
    auto* vi = g.m.mutable_graph()->add_input();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  auto* w = g.m.mutable_graph()->add_initializer();
  w->set_name("w16");
  w->set_data_type(TP::UINT16);
  w->add_dims(2);
  w->add_int32_data(0);
  w->add_int32_data(40000);
  for (const char* x : {"u16", "u32", "u64", "i16", "w16"}) g.node("BitwiseNot", {x}, std::string("not_") + x);
  g.node("Identity", {"u16"}, "u16_copy");
  g.node("BitwiseNot", {"u16_copy"}, "not_u16_copy");
  GraphBuilder::i(g.node("Cast", {"i64"}, "i64_as_u32"), "to", TP::UINT32);
  g.node("BitwiseNot", {"i64_as_u32"}, "not_i64_as_u32");
  auto ints = [&](std::vector<int64_t> v, DType dt) {
    const Shape s{static_cast<int64_t>(v.size())};
    return api::cast(api::from_data(cpu, TensorData::from_vector(v, s), Kind::Int), dt);
  };
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const auto out = burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "bitwise_not.onnx", {cpu})
                       ->forward({ints({0, 1, 65535, 4660}, DType::I32),
                                  ints({0, 1, 4294967295, 305419896}, DType::I64), ints({0, 1, -1, kMin}, DType::I64),
                                  ints({0, -1, 5, -32768}, DType::I32), ints({7, 100}, DType::I64)});
  auto values = [&](size_t i) { return api::into_data(api::cast(out.at(i), DType::I64)).to_vec<int64_t>(); };
  ASSERT_EQ(out.size(), 9u);
  EXPECT_EQ(out[0].prim->dtype(), DType::I32);
  EXPECT_EQ(values(0), (std::vector<int64_t>{65535, 65534, 0, 60875}));                 // uint16
  EXPECT_EQ(values(1), (std::vector<int64_t>{4294967295, 4294967294, 0, 3989547399}));  // uint32
  EXPECT_EQ(values(2), (std::vector<int64_t>{-1, -2, 0, kMax}));         // uint64: 2^64-1, 2^64-2, 0, 2^63-1 as bits
  EXPECT_EQ(values(3), (std::vector<int64_t>{-1, 0, -6, 32767}));        // int16
  EXPECT_EQ(values(4), (std::vector<int64_t>{65535, 25535}));            // a uint16 initializer
  EXPECT_EQ(values(6), (std::vector<int64_t>{65535, 65534, 0, 60875}));  // through Identity
  EXPECT_EQ(values(8), (std::vector<int64_t>{4294967288, 4294967195}));  // a Cast to uint32
}

// Inputs are checked against the graph's declaration before any node runs: a wrong dtype, rank or
// fixed dim names the input and both values; symbolic and unknown dims match any size.
TEST(OnnxEngine, InputsAreCheckedAgainstTheirDeclaredShapeAndDtype) {
  ::onnx::ModelProto proto = one_node_model("Relu", 13);
  auto* shape = proto.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_param("N");
  shape->add_dim()->set_dim_value(3);
  shape->add_dim();  // neither a value nor a name: any size
  const Device cpu = Device::get("cpu");
  auto m = burn::onnx::OnnxModel::parse(proto.SerializeAsString(), "declared.onnx", {cpu});
  auto run = [&](const TensorData& d) { return m->forward({api::from_data(cpu, d, api::kind_of(d.dtype()))}); };
  auto floats = [](const Shape& s) {
    return TensorData::from_vector(std::vector<float>(static_cast<size_t>(s.num_elements()), -1.f), s);
  };
  EXPECT_EQ(api::into_data(run(floats(Shape{2, 3, 1}))[0]).to_vec<float>(), std::vector<float>(6, 0.f));
  EXPECT_EQ(api::into_data(run(floats(Shape{5, 3, 7}))[0]).shape(), (Shape{5, 3, 7}));
  auto error_of = [&](const TensorData& d) -> std::string {
    try {
      run(d);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of(floats(Shape{2, 4, 1})),
            "[onnx] 'declared.onnx' input 'a': shape [2, 4, 1], the model declares [N, 3, ?] (dim 1 is 4, expected 3)");
  EXPECT_EQ(error_of(floats(Shape{2, 3})),
            "[onnx] 'declared.onnx' input 'a': shape [2, 3] has rank 2, the model declares [N, 3, ?] (rank 3)");
  EXPECT_EQ(error_of(TensorData::from_vector(std::vector<int64_t>(6, 1), Shape{2, 3, 1})),
            "[onnx] 'declared.onnx' input 'a': dtype i64, the model declares f32 (ONNX FLOAT)");
  EXPECT_THROW(run(floats(Shape{2, 4, 1})), ShapeError);
  EXPECT_THROW(run(TensorData::from_vector(std::vector<double>(3, 1.0), Shape{1, 3, 1})), DTypeError);
}

TEST(OnnxEngine, DamagedFilesGiveRecordErrors) {
  std::ifstream f(kDir + "convnet.onnx", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  ASSERT_GT(bytes.size(), 100u);
  EXPECT_THROW(burn::onnx::OnnxModel::parse(bytes.substr(0, bytes.size() / 2), "cut.onnx"), RecordError);
  EXPECT_THROW(burn::onnx::OnnxModel::parse(std::string(64, '\xff'), "junk.onnx"), RecordError);
  EXPECT_THROW(burn::onnx::OnnxModel::load(kDir + "missing.onnx"), RecordError);
  // An initializer whose data does not match its shape.
  ::onnx::ModelProto m = one_node_model("Relu", 13);
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(4);
  t->add_float_data(1.0f);
  try {
    burn::onnx::OnnxModel::parse(m.SerializeAsString(), "bad.onnx");
    FAIL() << "no error";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("'w'"), std::string::npos) << e.what();
  }
}

TEST(OnnxEngine, ImporterReadsTheInitializersAsARecord) {
  auto reader = import::open(kDir + "convnet.onnx");
  std::vector<std::string> paths;
  for (const auto& e : reader->entries()) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"conv", "conv.weight", "conv.bias", "fc1", "fc1.weight", "fc1.bias", "fc2",
                                             "fc2.weight", "fc2.bias"}));
  const auto* e = reader->find("conv.weight");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->shape, (Shape{3, 2, 3, 3}));
  EXPECT_EQ(e->bytes, 3u * 2 * 3 * 3 * 4);
  auto inits = burn::onnx::read_initializers(kDir + "convnet.onnx");
  ASSERT_EQ(inits.size(), 6u);
  EXPECT_EQ(inits[2].first, "fc1.weight");
  EXPECT_EQ(reader->read_tensor("fc1.weight"), inits[2].second);
  EXPECT_THROW(import::open(kDir + "convnet.onnx", {"onnx", "model"}), Unsupported);
}

// initializers.onnx (gen_onnx_fixtures.py): every element type, stored as raw bytes and in the typed
// fields, read through the importer with the values numpy wrote; narrow unsigned types widen.
TEST(OnnxEngine, ImporterReadsEveryElementTypeRawAndTyped) {
  std::ifstream f(kDir + "initializers.json");
  const auto want = nlohmann::json::parse(f);
  const std::map<std::string, DType> dtypes = {
      {"float32", DType::F32}, {"float64", DType::F64}, {"float16", DType::F16}, {"int64", DType::I64},
      {"int32", DType::I32},   {"int16", DType::I32},   {"int8", DType::I8},     {"uint8", DType::U8},
      {"uint16", DType::I32},  {"uint32", DType::I64},  {"bool", DType::Bool}};
  auto reader = import::open(kDir + "initializers.onnx");
  ASSERT_EQ(want.size(), dtypes.size());
  for (const auto& [name, expected] : want.items()) {
    for (const char* storage : {"raw.", "typed."}) {
      SCOPED_TRACE(std::string(storage) + name);
      const auto* e = reader->find(storage + name);
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->dtype, dtypes.at(name));
      TensorData got = reader->read_tensor(storage + name);
      EXPECT_EQ(got.dtype(), dtypes.at(name));
      EXPECT_EQ(got.shape(), Shape(expected["shape"].get<std::vector<int64_t>>()));
      // f16 holds the numpy value exactly; every other type is exact too.
      EXPECT_EQ(got.to_f64_vec(), expected["values"].get<std::vector<double>>());
    }
  }
  EXPECT_EQ(reader->read_tensor("scalar").shape(), Shape{});
  EXPECT_EQ(reader->read_tensor("scalar").to_f64_vec(), std::vector<double>{3.5});
  EXPECT_EQ(reader->read_tensor("empty").shape(), (Shape{0, 4}));
  const std::string* opset = reader->metadata().find("onnx_opset");
  ASSERT_NE(opset, nullptr);
  EXPECT_EQ(*opset, "13");
}

TEST(OnnxEngine, OpTableRangesAreWithinTheOpsetsAndDoNotOverlap) {
  auto ops = burn::onnx::supported_ops();
  EXPECT_GT(ops.size(), 150u);
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_LE(ops[i].since, ops[i].until) << ops[i].op;
    if (ops[i].op.find('/') == std::string::npos) {
      EXPECT_GE(ops[i].since, burn::onnx::kMinOpset) << ops[i].op;
      EXPECT_LE(ops[i].until, burn::onnx::kMaxOpset) << ops[i].op;
    }
    for (size_t j = i + 1; j < ops.size(); ++j)
      if (ops[i].op == ops[j].op)
        EXPECT_TRUE(ops[i].until < ops[j].since || ops[j].until < ops[i].since) << ops[i].op << " rows overlap";
  }
  auto has = [&](const std::string& op, int opset) {
    return std::any_of(ops.begin(), ops.end(),
                       [&](const auto& r) { return r.op == op && r.since <= opset && opset <= r.until; });
  };
  EXPECT_TRUE(has("Conv", 7));
  EXPECT_TRUE(has("Conv", 17));
  EXPECT_TRUE(has("LayerNormalization", 17));
  EXPECT_FALSE(has("LayerNormalization", 16));  // introduced in opset 17
  EXPECT_TRUE(has("Conv", 22));
  EXPECT_TRUE(has("Gelu", 20));
  EXPECT_FALSE(has("Gelu", 19));  // introduced in opset 20
  EXPECT_TRUE(has("GroupNormalization", 21));
  EXPECT_FALSE(has("Relu", 23));
}

// Damaged copies of a real model (bytes flipped, truncated) load, run or fail with a burn::Error:
// never another exception, a crash or an allocation sized by a corrupt count.
TEST(OnnxEngine, MutatedModelsFailCleanly) {
  std::ifstream f(kDir + "convnet.onnx", std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(f)), {});
  auto fx = fixture();
  Device cpu = Device::get("cpu");
  TensorHandle x = api::from_data(cpu, data_of(fx["x"]), Kind::Float);
  std::mt19937 rng(1234);
  const char* env = std::getenv("BURN_ONNX_MUTATIONS");  // more by hand
  const int iterations = env ? std::atoi(env) : 3000;
  int loaded = 0, failed = 0;
  for (int it = 0; it < iterations; ++it) {
    std::string m = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) m[rng() % m.size()] = static_cast<char>(rng() & 0xff);
    if (it % 5 == 0) m.resize(rng() % m.size());
    try {
      auto model = burn::onnx::OnnxModel::parse(m, "mutated.onnx", {cpu, false});
      ++loaded;
      if (model->input_names().size() == 1) model->forward({x});
    } catch (const burn::Error&) {
      ++failed;
    }
  }
  EXPECT_GT(failed, 100);  // the mutations do reach the checks
  EXPECT_GT(loaded, 100);  // and many damaged files still parse (flipped weights, names)
}

// Runs the committed case opsets/<name> (its inputs) on dev.
std::vector<TensorHandle> run_opset_case(const std::string& name, Device dev, TraceCounters* counters) {
  const std::string dir = kDir + "opsets/" + name + "/";
  auto model = burn::onnx::OnnxModel::load(dir + "model.onnx", {dev, false});
  std::vector<TensorHandle> inputs;
  for (size_t i = 0; i < model->input_names().size(); ++i) {
    const TensorData d = burn::onnx::read_tensor_proto_file(dir + "test_data_set_0/input_" + std::to_string(i) + ".pb");
    inputs.push_back(api::from_data(dev, d, api::kind_of(d.dtype())));
  }
  counters->reset();
  return model->forward(inputs);
}

// out against the case's ONNX Runtime outputs: integers exactly, f32 to 1e-5, f16 to 4e-3 (the f16 reference rounds
// each dequantized operand to f16 before its product).
void expect_onnx_runtime_outputs(const std::string& name, const std::vector<TensorHandle>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const TensorData want = burn::onnx::read_tensor_proto_file(kDir + "opsets/" + name + "/test_data_set_0/output_" +
                                                               std::to_string(i) + ".pb");
    const TensorData got = api::into_data(out[i]);
    ASSERT_EQ(got.dtype(), want.dtype()) << "output " << i;
    if (want.dtype() == DType::F16)
      got.assert_approx_eq(want, 4e-3, 4e-3);
    else if (is_float(want.dtype()))
      got.assert_approx_eq(want, 1e-5, 1e-5);
    else
      EXPECT_EQ(got.convert(DType::I64).to_vec<int64_t>(), want.convert(DType::I64).to_vec<int64_t>())
          << "output " << i;
  }
}

// The quantized models of gen_onnx_opset_fixtures.py (QDQ, QOperator, the dynamic chain, full-range MatMulInteger,
// ConvInteger and QLinearConv of 1 to 3 spatial dims and grouped, MatMulInteger and QLinearMatMul with a batched b,
// QDQ Convs, the benchmark's QDQ CNN with its Gemm and dynamic-quantized MLP; QDQ products with f16 scales, with
// weights that are not constants under computed activation parameters, with activation parameters per row, and
// QLinearMatMul's per-batch b parameters, 1-D b and f16 scales) run on trace<cpu>: their outputs are ONNX Runtime's
// (exact for the integer ones), and every product ran as the integer op matmul_integer (the cpu plugin's int8 GEMM),
// none as a float or f64 matmul or conv.
TEST(OnnxQuant, QuantizedMatMulsRunOnTheIntegerOp) {
  Device dev = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(dev->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  const std::map<std::string, uint64_t> cases = {{"qdq_matmul_per_column_op19", 1},
                                                 {"qdq_matmul_per_tensor_u8_op19", 1},
                                                 {"qlinear_matmul_op19", 1},
                                                 {"dynamic_quantize_matmul_integer_op19", 1},
                                                 {"matmul_integer_full_range_op19", 2},
                                                 {"conv_integer_op19", 1},
                                                 {"qlinear_conv_op19", 1},
                                                 {"conv_integer_grouped_op19", 2},       // one call per group
                                                 {"conv_integer_depthwise_1d_op19", 3},  // group = channels
                                                 {"conv_integer_3d_op19", 1},
                                                 {"qlinear_conv_grouped_op19", 2},
                                                 {"qlinear_conv_1d_op19", 1},
                                                 {"qlinear_conv_3d_op19", 1},
                                                 // b [3, K, N] under a [2, 3, M, K]: 6; b [2, K, N]: 2; b [1, K, N]: 1
                                                 {"matmul_integer_batched_op19", 9},
                                                 {"qlinear_matmul_batched_op19", 2},
                                                 {"qdq_conv_per_channel_op19", 1},
                                                 {"qdq_conv_grouped_op19", 2},
                                                 // the benchmark's forms (bench/onnxruntime/quantize_onnx.py): three
                                                 // convs and the Gemm; three MatMuls
                                                 {"qdq_cnn_op19", 4},
                                                 {"dynamic_quantized_mlp_op19", 3},
                                                 {"qdq_matmul_f16_scales_op19", 2},  // a MatMul and a Gemm
                                                 {"qdq_conv_f16_scales_op19", 1},
                                                 {"qdq_computed_weights_op19", 2},
                                                 {"qdq_conv_computed_weight_op19", 2},  // two groups
                                                 {"qdq_matmul_per_row_activation_op19", 2},
                                                 // b [2, K, N]: 2; MatMulInteger and QLinearMatMul of a 1-D b: 1 each
                                                 {"qlinear_matmul_batched_params_op19", 4},
                                                 {"qlinear_matmul_f16_scales_op21", 1}};
  for (const auto& [name, products] : cases) {
    SCOPED_TRACE(name);
    const std::vector<TensorHandle> out = run_opset_case(name, dev, counters);
    EXPECT_EQ(counters->count(OpId::matmul_integer), products);
    EXPECT_EQ(counters->count(OpId::matmul), 0u);
    EXPECT_EQ(counters->count(OpId::conv), 0u);
    expect_onnx_runtime_outputs(name, out);
  }
}

// The QDQ forms whose parameters do not factor out of the integer sum (docs/decisions.md, "quantized forms off the
// integer op"): an activation per index of the summed axis (a MatMul's K, a Conv's input channels), a weight per K,
// and int32 values; they run as the DequantizeLinear and the float product they are and give ONNX Runtime's outputs.
TEST(OnnxQuant, FormsOffTheIntegerOpMatchOnnxRuntime) {
  Device dev = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(dev->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  const std::vector<TensorHandle> out = run_opset_case("qdq_float_path_forms_op19", dev, counters);
  EXPECT_EQ(counters->count(OpId::matmul_integer), 0u);
  EXPECT_EQ(counters->count(OpId::matmul), 3u);
  EXPECT_EQ(counters->count(OpId::conv), 1u);
  ASSERT_EQ(out.size(), 4u);
  expect_onnx_runtime_outputs("qdq_float_path_forms_op19", out);
}

// QLinearMatMul's a and y parameters per row of a ([M]), which ONNX defines and ONNX Runtime refuses (so no fixture
// has them): on the integer op, requantized per row as ONNX Runtime does per tensor (the multiplier
// sa[m] * sb[n] / sy[m] in f32, float(acc) times it rounded half to even, plus zy[m], saturated).
TEST(OnnxQuant, QLinearMatMulPerRowParametersRunOnTheIntegerOp) {
  GraphBuilder g(19);
  for (const char* x : {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}) g.input(x);
  g.node("QLinearMatMul", {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}, "y");
  Device dev = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(dev->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  const int64_t M = 3, K = 7, N = 4;
  std::vector<int64_t> a(M * K), b(K * N), za = {120, 0, 255}, zb = {0, -3, 5, 127}, zy = {100, 0, 200};
  std::vector<float> sa = {0.02f, 0.05f, 0.011f}, sb = {0.01f, 0.004f, 0.02f, 0.007f}, sy = {0.3f, 0.25f, 0.1f};
  for (size_t i = 0; i < a.size(); ++i) a[i] = i % 4 == 0 ? 255 : static_cast<int64_t>((i * 41 + 9) % 256);
  for (size_t i = 0; i < b.size(); ++i) b[i] = i % 5 == 0 ? -128 : static_cast<int64_t>((i * 67 + 3) % 256) - 128;
  const auto ints = [&](const std::vector<int64_t>& v, Shape s, DType dt) {
    return api::cast(api::from_data(dev, TensorData::from_vector(v, s), Kind::Int), dt);
  };
  const auto floats = [&](const std::vector<float>& v) {
    return api::from_data(dev, TensorData::from_vector(v, Shape{static_cast<int64_t>(v.size())}), Kind::Float);
  };
  auto model = burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "qlinear_rows.onnx", {dev, false});
  counters->reset();
  const auto out = model->forward({ints(a, Shape{M, K}, DType::U8), floats(sa), ints(za, Shape{M}, DType::U8),
                                   ints(b, Shape{K, N}, DType::I8), floats(sb), ints(zb, Shape{N}, DType::I8),
                                   floats(sy), ints(zy, Shape{M}, DType::U8)});
  EXPECT_EQ(counters->count(OpId::matmul_integer), 1u);
  EXPECT_EQ(counters->count(OpId::matmul), 0u);
  std::vector<int64_t> want(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (a[i * K + k] - za[i]) * (b[k * N + j] - zb[j]);
      const float mult = sa[i] * sb[j] / sy[i];
      const double y = std::nearbyint(static_cast<double>(static_cast<float>(acc) * mult)) + zy[i];
      want[i * N + j] = static_cast<int64_t>(std::clamp(y, 0.0, 255.0));
    }
  const TensorData got = api::into_data(out.at(0));
  EXPECT_EQ(got.dtype(), DType::U8);
  EXPECT_EQ(got.convert(DType::I64).to_vec<int64_t>(), want);
}

// QDQ MatMuls by the scale type: bf16 scales (ONNX's from opset 19; ONNX Runtime has no bf16 DequantizeLinear to
// compare with) run on the integer op and give the bf16 of the exact product; f64 scales, which ONNX does not define,
// take the DequantizeLinear and f64 MatMul they are.
TEST(OnnxQuant, QdqScaleTypes) {
  Device dev = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(dev->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  const int64_t M = 2, K = 9, N = 3;
  std::vector<int64_t> a(M * K), w(K * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int64_t>((i * 73 + 5) % 256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>((i * 29 + 1) % 256) - 128;
  const int64_t za = 131;
  for (DType st : {DType::BF16, DType::F64}) {
    SCOPED_TRACE(dtype_name(st));
    GraphBuilder g(19);
    for (const char* x : {"aq", "sa", "za", "wq", "sw"}) g.input(x);
    g.node("DequantizeLinear", {"aq", "sa", "za"}, "ad");
    GraphBuilder::i(g.node("DequantizeLinear", {"wq", "sw"}, "wd"), "axis", 1);
    g.node("MatMul", {"ad", "wd"}, "y");
    const auto ints = [&](const std::vector<int64_t>& v, Shape s, DType dt) {
      return api::cast(api::from_data(dev, TensorData::from_vector(v, s), Kind::Int), dt);
    };
    const TensorHandle sa =
        api::cast(api::from_data(dev, TensorData::from_vector(std::vector<double>{0.0123}, Shape{}), Kind::Float), st);
    const TensorHandle sw = api::cast(
        api::from_data(dev, TensorData::from_vector(std::vector<double>{0.004, 0.0071, 0.002}, Shape{N}), Kind::Float),
        st);
    auto model = burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "qdq_scales.onnx", {dev, false});
    counters->reset();
    const auto out = model->forward(
        {ints(a, Shape{M, K}, DType::U8), sa, ints({za}, Shape{}, DType::U8), ints(w, Shape{K, N}, DType::I8), sw});
    const bool integer = st == DType::BF16;
    EXPECT_EQ(counters->count(OpId::matmul_integer), integer ? 1u : 0u);
    EXPECT_EQ(counters->count(OpId::matmul), integer ? 0u : 1u);
    const std::vector<double> sav = api::into_data(sa).to_f64_vec(), swv = api::into_data(sw).to_f64_vec();
    std::vector<double> want(M * N);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += (a[i * K + k] - za) * w[k * N + j];
        want[i * N + j] = static_cast<double>(acc) * sav[0] * swv[j];
      }
    const TensorData got = api::into_data(out.at(2));
    EXPECT_EQ(got.dtype(), st);
    got.assert_approx_eq(TensorData::from_vector(want, Shape{M, N}).convert(st), integer ? 8e-3 : 1e-12, 1e-12);
  }
}

// One DequantizeLinear read by two QDQ products (an activation feeding several projections) is dropped with them:
// its subtraction of the zero point never runs. Read also by a graph output, it is kept and runs once.
TEST(OnnxQuant, DequantizeLinearReadOnlyByFusedProductsIsDropped) {
  Device dev = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(dev->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  const int64_t M = 2, K = 6, N = 3;
  std::vector<int64_t> a(M * K), w(K * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int64_t>((i * 73 + 5) % 256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>((i * 29 + 1) % 256) - 128;
  const auto ints = [&](const std::vector<int64_t>& v, Shape s, DType dt) {
    return api::cast(api::from_data(dev, TensorData::from_vector(v, s), Kind::Int), dt);
  };
  const auto scale = [&](double v) {
    return api::from_data(dev, TensorData::from_vector(std::vector<float>{static_cast<float>(v)}, Shape{}),
                          Kind::Float);
  };
  for (bool ad_is_output : {false, true}) {
    SCOPED_TRACE(ad_is_output ? "ad also an output" : "ad read by the products only");
    GraphBuilder g(19);
    for (const char* x : {"aq", "sa", "za", "wq", "sw"}) g.input(x);
    g.node("DequantizeLinear", {"aq", "sa", "za"}, "ad");
    g.node("DequantizeLinear", {"wq", "sw"}, "wd");
    g.node("MatMul", {"ad", "wd"}, "y1");
    g.node("MatMul", {"ad", "wd"}, "y2");
    auto* outputs = g.m.mutable_graph()->mutable_output();
    outputs->Clear();  // GraphBuilder makes every node output a graph output
    for (const char* y : {"y1", "y2"}) outputs->Add()->set_name(y);
    if (ad_is_output) outputs->Add()->set_name("ad");
    auto model = burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "shared_dq.onnx", {dev, false});
    counters->reset();
    const auto out = model->forward({ints(a, Shape{M, K}, DType::U8), scale(0.02), ints({128}, Shape{}, DType::U8),
                                     ints(w, Shape{K, N}, DType::I8), scale(0.005)});
    EXPECT_EQ(counters->count(OpId::matmul_integer), 2u);
    EXPECT_EQ(counters->count(OpId::sub), ad_is_output ? 1u : 0u);
    ASSERT_EQ(out.size(), ad_is_output ? 3u : 2u);
    std::vector<double> want(M * N);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += (a[i * K + k] - 128) * w[k * N + j];
        want[i * N + j] = static_cast<double>(acc) * 0.02 * 0.005;
      }
    for (size_t o = 0; o < 2; ++o)
      api::into_data(out[o]).assert_approx_eq(TensorData::from_vector(want, Shape{M, N}).convert(DType::F32), 1e-5,
                                              1e-6);
  }
}

// MatMulInteger's a zero points per row, in ONNX's N-D form ([..., M, 1], one row per batch entry) and 1-D ([M]),
// under a batched b: ONNX Runtime takes a per-tensor a zero point only, so no fixture has them. They run on the
// integer op, one call per batch entry, and match the int64 sums.
TEST(OnnxQuant, BatchedZeroPointsPerRowRunOnTheIntegerOp) {
  GraphBuilder g(19);
  for (const char* x : {"a", "b", "za", "zb", "zr"}) g.input(x);
  g.node("MatMulInteger", {"a", "b", "za", "zb"}, "y");
  g.node("MatMulInteger", {"a", "b", "zr"}, "y_rows");
  Device dev = Device::get("trace<cpu>");
  auto* counters = static_cast<TraceCounters*>(dev->query_interface("trace"));
  ASSERT_NE(counters, nullptr);
  const int64_t B = 2, M = 3, K = 5, N = 4;
  std::vector<int64_t> a(B * M * K), b(B * K * N), za(B * M), zb(B * N), zr(M);
  for (size_t i = 0; i < a.size(); ++i) a[i] = i == 0 ? 255 : static_cast<int64_t>((i * 37 + 11) % 256);
  for (size_t i = 0; i < b.size(); ++i) b[i] = i == 0 ? -128 : static_cast<int64_t>((i * 53 + 7) % 256) - 128;
  for (size_t i = 0; i < za.size(); ++i) za[i] = static_cast<int64_t>((i * 29 + 3) % 256);
  for (size_t i = 0; i < zb.size(); ++i) zb[i] = static_cast<int64_t>(i * 7) - 10;
  for (size_t i = 0; i < zr.size(); ++i) zr[i] = static_cast<int64_t>(100 + 50 * i);
  const auto tensor = [&](const std::vector<int64_t>& v, Shape s, DType dt) {
    return api::cast(api::from_data(dev, TensorData::from_vector(v, s), Kind::Int), dt);
  };
  auto model = burn::onnx::OnnxModel::parse(g.m.SerializeAsString(), "zero_points.onnx", {dev, false});
  counters->reset();
  const auto out = model->forward({tensor(a, Shape{B, M, K}, DType::U8), tensor(b, Shape{B, K, N}, DType::I8),
                                   tensor(za, Shape{B, M, 1}, DType::U8), tensor(zb, Shape{B, 1, N}, DType::I8),
                                   tensor(zr, Shape{M}, DType::U8)});
  EXPECT_EQ(counters->count(OpId::matmul_integer), 4u);  // two nodes, two batch entries each
  EXPECT_EQ(counters->count(OpId::matmul), 0u);
  ASSERT_EQ(out.size(), 2u);
  std::vector<int64_t> want(B * M * N), want_rows(B * M * N);
  for (int64_t e = 0; e < B; ++e)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int64_t s = 0, sr = 0;
        for (int64_t k = 0; k < K; ++k) {
          const int64_t av = a[(e * M + i) * K + k], bv = b[(e * K + k) * N + j];
          s += (av - za[e * M + i]) * (bv - zb[e * N + j]);
          sr += (av - zr[i]) * bv;
        }
        want[(e * M + i) * N + j] = s;
        want_rows[(e * M + i) * N + j] = sr;
      }
  for (size_t o = 0; o < 2; ++o) {
    const TensorData got = api::into_data(out[o]);
    EXPECT_EQ(got.dtype(), DType::I32);
    EXPECT_EQ(got.shape(), (Shape{B, M, N}));
    EXPECT_EQ(got.convert(DType::I64).to_vec<int64_t>(), o == 0 ? want : want_rows) << "output " << o;
  }
}

}  // namespace
