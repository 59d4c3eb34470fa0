// burn's RobertaModel against a plain-PyTorch twin of Hugging Face's (gen_fixture_roberta.py): a small
// config's state dict (the generator's names, shapes and formula) loaded through the PyTorch adapter
// gives the twin's last hidden state and pooler output, padded positions included; the full-size
// roberta-base state dict's names and shapes load strictly; the twin's ONNX export runs through the onnx importer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "burn/import/importer.hpp"
#include "burn/import/load.hpp"
#include "burn/import/model.hpp"
#include "roberta.hpp"

using namespace burn;

namespace {

nlohmann::json examples_json(const std::string& name) {
  std::ifstream in(std::string(BURN_EXAMPLES_DIR) + "/models/" + name);
  return nlohmann::json::parse(in);
}

// Parameter k of the state dict, its n elements in PyTorch's layout (gen_fixture_roberta.py's value()).
std::vector<float> roberta_param(const std::string& name, const std::vector<int64_t>& shape, int64_t k) {
  const Shape s(shape);
  std::vector<float> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    const double j = static_cast<double>(i);
    const double x = std::sin(2.1 * j + 0.001 * j * j + 0.7 * static_cast<double>(k) + 0.3);
    const double scaled = name.ends_with("embeddings.weight")  ? x
                          : shape.size() == 2                  ? x * 1.5 / std::sqrt(double(shape[1]))
                          : name.ends_with("LayerNorm.weight") ? 1 + 0.5 * x
                                                               : 0.05 * x;
    v[i] = static_cast<float>(scaled);
  }
  return v;
}

record::Record fixture_record(const nlohmann::json& fx) {
  record::Record rec;
  int64_t k = 0;
  for (const auto& e : fx["state_dict"]) {
    const std::string name = e["name"];
    const auto shape = e["shape"].get<std::vector<int64_t>>();
    rec.set(name, TensorData::from_vector(roberta_param(name, shape, k++), Shape(shape)));
  }
  return rec;
}

// The fixture's state dict as PyTorch would save it, loaded through the PyTorch adapter (strictly by
// default). (burn:: spelled out: a line starting with `import` reads as a module import to clang-format.)
burn::import::ImportReport load_fixture(models::RobertaModel& net, const nlohmann::json& fx, bool strict = true,
                                        std::optional<record::Record> rec = std::nullopt) {
  burn::import::ModuleImportOptions o;
  o.adapter = burn::import::Adapter::PyTorch;
  o.strict = strict;
  return burn::import::load_record_into(net, rec ? std::move(*rec) : fixture_record(fx), o);
}

models::RobertaConfig small_config(const nlohmann::json& fx) {
  const nlohmann::json& c = fx["config"];
  return {.vocab_size = c["vocab_size"],
          .hidden_size = c["hidden_size"],
          .num_hidden_layers = c["num_hidden_layers"],
          .num_attention_heads = c["num_attention_heads"],
          .intermediate_size = c["intermediate_size"],
          .max_position_embeddings = c["max_position_embeddings"],
          .type_vocab_size = c["type_vocab_size"]};
}

Tensor<2, Int> ints(const nlohmann::json& t, const Device& d) {
  return Tensor<2, Int>::from_vector(t["values"].get<std::vector<int64_t>>(),
                                     Shape(t["shape"].get<std::vector<int64_t>>()), d);
}

double max_diff(const std::vector<float>& got, const nlohmann::json& want) {
  const std::vector<double> w = want["values"].get<std::vector<double>>();
  EXPECT_EQ(got.size(), w.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(got.size(), w.size()); ++i) worst = std::max(worst, std::abs(got[i] - w[i]));
  return worst;
}

}  // namespace

TEST(Roberta, PositionIdsCountNonPadTokensFromPaddingIdxPlusOne) {
  const nlohmann::json fx = examples_json("fixture_roberta.json");
  const Device cpu = Device::get("cpu");
  const std::vector<int64_t> got = models::roberta_position_ids(ints(fx["input_ids"], cpu), 1).to_vec<int64_t>();
  EXPECT_EQ(got, fx["position_ids"]["values"].get<std::vector<int64_t>>());
  // The padded row: 2, 3, 4, 5 for its four tokens, padding_idx 1 for its three pads.
  EXPECT_EQ(std::vector<int64_t>(got.begin() + 7, got.end()), (std::vector<int64_t>{2, 3, 4, 5, 1, 1, 1}));
}

// Hidden 32, 2 layers, 4 heads, f32 against the twin's f64: every position of both sequences (the
// pads' rows too) and the pooled <s> within 1e-4.
TEST(Roberta, SmallConfigMatchesPyTorch) {
  const nlohmann::json fx = examples_json("fixture_roberta.json");
  const Device cpu = Device::get("cpu");
  models::RobertaModel net = small_config(fx).init(cpu);
  const import::ImportReport r = load_fixture(net, fx);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), fx["state_dict"].size());
  EXPECT_EQ(net.num_params(), fx["num_params"].get<int64_t>());
  const Tensor<2, Int> ids = ints(fx["input_ids"], cpu);
  const Tensor<2, Bool> mask = models::roberta_padding_mask(ids);
  EXPECT_EQ(mask.to_int().to_vec<int64_t>(),
            (ints(fx["attention_mask"], cpu).equal_elem(0).to_int().to_vec<int64_t>()));
  const models::RobertaModelOutput out = net.forward(ids, mask);
  ASSERT_TRUE(out.pooler_output.has_value());
  EXPECT_EQ(out.last_hidden_state.shape(), (Shape{2, 7, 32}));
  const double hidden = max_diff(out.last_hidden_state.to_vec<float>(), fx["last_hidden_state"]);
  const double pooled = max_diff(out.pooler_output->to_vec<float>(), fx["pooler_output"]);
  EXPECT_LT(hidden, 1e-4);
  EXPECT_LT(pooled, 1e-4);
  std::printf("small RoBERTa, f32: max |last hidden - PyTorch's| = %.3g, |pooled - PyTorch's| = %.3g\n", hidden,
              pooled);
  // The mask is what makes the padded row right: without it the pads are attended and it moves.
  const double unmasked = max_diff(net.forward(ids).last_hidden_state.to_vec<float>(), fx["last_hidden_state"]);
  EXPECT_GT(unmasked, 1e-2);
}

TEST(Roberta, RejectsASequenceLongerThanThePositionTable) {
  const nlohmann::json fx = examples_json("fixture_roberta.json");
  const Device cpu = Device::get("cpu");
  models::RobertaModel net = small_config(fx).init(cpu);  // 16 positions: 14 tokens after padding_idx + 1
  const Tensor<2, Int> ids = Tensor<2, Int>::ones({1, 15}, cpu) * int64_t{5};
  try {
    net.forward(ids);
    FAIL() << "a 15-token sequence was accepted";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("(14)"), std::string::npos) << e.what();
  }
}

// roberta-base's 124,645,632 parameters in 199 tensors (5 embedding, 16 a layer, 2 pooler): the twin's names, shapes
// and order (roberta_base_names.json; zeros: the 500 MB of weights are not the point) load strictly.
TEST(Roberta, BaseStateDictNamesAndShapesLoadStrictly) {
  const nlohmann::json names = examples_json("roberta_base_names.json");
  record::Record rec;
  for (const auto& e : names["state_dict"]) {
    const std::string name = e["name"];
    ASSERT_EQ(e["dtype"], "float32") << name;
    const Shape s(e["shape"].get<std::vector<int64_t>>());
    rec.set(name, TensorData::from_vector(std::vector<float>(static_cast<size_t>(s.num_elements())), s));
  }
  models::RobertaModel net = models::RobertaConfig{}.init(Device::get("cpu"));
  EXPECT_EQ(net.num_params(), names["num_params"].get<int64_t>());
  EXPECT_EQ(net.num_params(), 124645632);
  import::ModuleImportOptions o;
  o.adapter = import::Adapter::PyTorch;
  o.strict = true;
  const import::ImportReport r = import::load_record_into(net, std::move(rec), o);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.loaded.size(), names["state_dict"].size());
  EXPECT_EQ(r.loaded.size(), nn::named_params(net).size());
  EXPECT_EQ(r.loaded.size(), 199u);
  EXPECT_EQ(net.encoder.layer[11].intermediate.dense.weight.shape(), (Shape{768, 3072}));  // burn's [in, out]
}

namespace {

void expect_grad(const Tensor<2>& weight, const Gradients& grads, const nlohmann::json& want, bool transpose,
                 const char* what) {
  const std::optional<Tensor<2>> g = weight.grad(grads);
  ASSERT_TRUE(g.has_value()) << what;
  const double d = max_diff((transpose ? g->transpose() : *g).to_vec<float>(), want);
  EXPECT_LT(d, 1e-4) << what;
  std::printf("small RoBERTa, f32: max |grad %s - PyTorch's| = %.3g\n", what, d);
}

}  // namespace

// The training path (an autodiff device, grad enabled, attention dropout on: scores, softmax, dropout
// and matmul unfused) with every dropout at 1e-9, so that it keeps all but runs: PyTorch's outputs,
// and the gradients of the generator's loss for layer 0's query weight and the word and position tables
// (PyTorch's padding_idx: none in their padding rows).
TEST(Roberta, TrainingPathForwardAndGradientsMatchPyTorch) {
  const nlohmann::json fx = examples_json("fixture_roberta.json");
  const Device ad = Device::get("autodiff<cpu>");
  ad.seed(7);
  models::RobertaModel net = small_config(fx).init(ad);
  ASSERT_TRUE(load_fixture(net, fx).ok());
  net.embeddings.dropout.prob = 1e-9;
  for (models::RobertaLayer& l : net.encoder.layer)
    l.attention.self.dropout.prob = l.attention.output.dropout.prob = l.output.dropout.prob = 1e-9;
  const Tensor<2, Int> ids = ints(fx["input_ids"], ad);
  const models::RobertaModelOutput out = net.forward(ids, models::roberta_padding_mask(ids));
  EXPECT_LT(max_diff(out.last_hidden_state.to_vec<float>(), fx["last_hidden_state"]), 1e-4);
  EXPECT_LT(max_diff(out.pooler_output->to_vec<float>(), fx["pooler_output"]), 1e-4);
  const int64_t n = out.last_hidden_state.shape().num_elements();
  std::vector<float> c(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) c[j] = static_cast<float>(std::cos(0.1 * static_cast<double>(j)));
  const Tensor<3> weights = Tensor<3>::from_vector(c, out.last_hidden_state.shape(), ad);
  const Tensor<1> loss = (out.last_hidden_state * weights).sum() + out.pooler_output->sum();
  EXPECT_NEAR(loss.item<float>(), fx["loss"].get<double>(), 1e-3);
  const Gradients grads = loss.backward();
  expect_grad(net.encoder.layer[0].attention.self.query.weight.val(), grads,
              fx["grads"]["encoder.layer.0.attention.self.query.weight"], true, "layer 0 query weight");
  expect_grad(net.embeddings.word_embeddings.weight.val(), grads, fx["grads"]["embeddings.word_embeddings.weight"],
              false, "word embeddings");
  expect_grad(net.embeddings.position_embeddings.weight.val(), grads,
              fx["grads"]["embeddings.position_embeddings.weight"], false, "position embeddings");
}

// fusion<cpu> (the benchmark's _fused rows) gives the same outputs.
TEST(Roberta, SmallConfigMatchesPyTorchOnFusion) {
  const nlohmann::json fx = examples_json("fixture_roberta.json");
  const Device fusion = Device::get("fusion<cpu>");
  models::RobertaModel net = small_config(fx).init(fusion);
  ASSERT_TRUE(load_fixture(net, fx).ok());
  const Tensor<2, Int> ids = ints(fx["input_ids"], fusion);
  const models::RobertaModelOutput out = net.forward(ids, models::roberta_padding_mask(ids));
  EXPECT_LT(max_diff(out.last_hidden_state.to_vec<float>(), fx["last_hidden_state"]), 1e-4);
  EXPECT_LT(max_diff(out.pooler_output->to_vec<float>(), fx["pooler_output"]), 1e-4);
}

// The same network through the ONNX importer: torch.onnx.export's graph of the twin
// (fixture_roberta_graph.onnx, its parameters graph inputs named as in the state dict, PyTorch's
// layouts), fed the formula's values, gives PyTorch's outputs too.
TEST(Roberta, OnnxExportOfTheTwinMatchesPyTorch) {
  const nlohmann::json fx = examples_json("fixture_roberta.json");
  const Device cpu = Device::get("cpu");
  const auto model = import::load_model(std::string(BURN_EXAMPLES_DIR) + "/models/fixture_roberta_graph.onnx",
                                        {.device = cpu, .trainable = false});
  std::map<std::string, std::pair<int64_t, std::vector<int64_t>>> params;  // name -> (k, PyTorch's shape)
  int64_t k = 0;
  for (const auto& e : fx["state_dict"]) params[e["name"]] = {k++, e["shape"].get<std::vector<int64_t>>()};
  std::vector<TensorHandle> inputs;
  for (const std::string& name : model->input_names()) {
    if (name == "input_ids") {
      inputs.push_back(ints(fx["input_ids"], cpu).handle());
    } else if (name == "attention_mask") {
      inputs.push_back(ints(fx["attention_mask"], cpu).handle());
    } else {
      ASSERT_TRUE(params.contains(name)) << "graph input " << name << " is no state dict entry";
      const auto& [index, shape] = params.at(name);
      inputs.push_back(
          api::from_data(cpu, TensorData::from_vector(roberta_param(name, shape, index), Shape(shape)), Kind::Float));
    }
  }
  EXPECT_EQ(inputs.size(), params.size() + 2);
  const std::vector<TensorHandle> out = model->forward(inputs);
  ASSERT_EQ(out.size(), 2u);
  const double hidden = max_diff(Tensor<3>(out[0]).to_vec<float>(), fx["last_hidden_state"]);
  const double pooled = max_diff(Tensor<2>(out[1]).to_vec<float>(), fx["pooler_output"]);
  EXPECT_LT(hidden, 1e-4);
  EXPECT_LT(pooled, 1e-4);
  std::printf("small RoBERTa from ONNX, f32: max |last hidden - PyTorch's| = %.3g, |pooled - PyTorch's| = %.3g\n",
              hidden, pooled);
}

// A checkpoint of transformers before 4.31 also holds the buffer embeddings.position_ids ([1, max
// positions], int64): strict loading names it, non-strict loading reports it unexpected and loads the rest.
TEST(Roberta, OlderCheckpointsPositionIdsBufferIsReportedUnexpected) {
  const nlohmann::json fx = examples_json("fixture_roberta.json");
  const Device cpu = Device::get("cpu");
  const auto with_buffer = [&] {
    record::Record rec = fixture_record(fx);
    std::vector<int64_t> ids(16);
    for (int64_t i = 0; i < 16; ++i) ids[i] = i;
    rec.set("embeddings.position_ids", TensorData::from_vector(ids, Shape{1, 16}));
    return rec;
  };
  models::RobertaModel net = small_config(fx).init(cpu);
  try {
    load_fixture(net, fx, true, with_buffer());
    FAIL() << "a strict load accepted embeddings.position_ids";
  } catch (const RecordError& e) {
    EXPECT_NE(std::string(e.what()).find("embeddings.position_ids"), std::string::npos) << e.what();
  }
  const auto r = load_fixture(net, fx, false, with_buffer());
  EXPECT_EQ(r.unexpected, std::vector<std::string>{"embeddings.position_ids"});
  EXPECT_EQ(r.loaded.size(), fx["state_dict"].size());
  const Tensor<2, Int> ids = ints(fx["input_ids"], cpu);
  const models::RobertaModelOutput out = net.forward(ids, models::roberta_padding_mask(ids));
  EXPECT_LT(max_diff(out.last_hidden_state.to_vec<float>(), fx["last_hidden_state"]), 1e-4);
}
