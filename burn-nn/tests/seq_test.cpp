// Sequence layers against PyTorch (fixtures/seq.json from gen_fixtures_seq.py): MultiHeadAttention
// with masks and its decoding cache, the position encodings, and the recurrent layers.
#include <gtest/gtest.h>

#include "burn/nn/attention.hpp"
#include "burn/nn/positional.hpp"
#include "burn/nn/rnn.hpp"
#include "burn/nn/transformer.hpp"
#include "fixture.hpp"

using namespace burn;
using burn::test::ad;
using burn::test::cpu;
using burn::test::expect_close;
using burn::test::fixture_data;
using burn::test::fixture_tensor;

namespace {

const nlohmann::json& seq() { return burn::test::fixture("seq.json"); }

// Loads the fixture's Burn-layout parameters strictly: every path must exist, every shape match.
template <class M>
void load_params(M& m, const nlohmann::json& params) {
  record::Record rec;
  for (const auto& [path, t] : params.items()) rec.set(path, fixture_data(t));
  const nn::LoadReport r = m.load_record(rec);
  ASSERT_TRUE(r.ok()) << r.to_string();
}

nn::MultiHeadAttention mha_from(const nlohmann::json& c, const Device& d) {
  const int64_t e = c["query"]["shape"][2];
  nn::MultiHeadAttention m =
      nn::MultiHeadAttentionConfig{.d_model = e, .n_heads = c["n_heads"], .dropout = 0.0}.init(d);
  load_params(m, c["params"]);
  return m;
}

nn::MhaInput mha_input(const nlohmann::json& c, const Device& d) {
  nn::MhaInput in = nn::MhaInput::cross(fixture_tensor<3>(c["query"], d), fixture_tensor<3>(c["key"], d),
                                        fixture_tensor<3>(c["value"], d));
  if (c.contains("mask_pad")) in.mask_pad = fixture_tensor<2, Bool>(c["mask_pad"], d);
  if (c.contains("mask_attn")) in.mask_attn = fixture_tensor<3, Bool>(c["mask_attn"], d);
  return in;
}

}  // namespace

TEST(MultiHeadAttention, MatchesPyTorch) {
  for (const char* name : {"mha_self", "mha_masks"}) {
    const nlohmann::json& c = seq()[name];
    nn::MultiHeadAttention m = mha_from(c, ad());
    nn::MhaInput in = mha_input(c, ad());
    in.query = in.query.require_grad();
    const nn::MhaOutput out = m.forward(in);
    expect_close(out.context.into_data(), c["context"], 1e-5, 1e-4, name);
    expect_close(out.weights.into_data(), c["weights"], 1e-5, 1e-4, name);
    Gradients grads = (out.context * fixture_tensor<3>(c["grad_out"], ad())).sum().backward();
    expect_close(in.query.grad(grads)->into_data(), c["grad_query"], 1e-5, 1e-4, std::string(name) + " grad_query");
    expect_close(m.query.weight.val().grad(grads)->into_data(), c["grad_query_weight"], 1e-5, 1e-4,
                 std::string(name) + " grad_query_weight");
  }
}

// Decoding one position at a time with the cache equals causal attention over the whole sequence.
TEST(MultiHeadAttention, CacheDecodingEqualsCausalAttention) {
  cpu().seed(5);
  nn::MultiHeadAttention m = nn::MultiHeadAttentionConfig{.d_model = 8, .n_heads = 2, .dropout = 0.0}.init(cpu());
  const Tensor<3> x = Tensor<3>::random({2, 6, 8}, Distribution::normal(0, 1), cpu());
  const Tensor<3, Bool> causal = nn::autoregressive_mask(2, 6, cpu());
  EXPECT_EQ(causal.to_vec<bool>()[1], true);  // position 0 may not see position 1
  const Tensor<3> full = m.forward(nn::MhaInput::self_attn(x).with_mask_attn(causal)).context;
  nn::MhaCache cache;
  std::vector<Tensor<3>> steps;
  for (int64_t t = 0; t < 6; ++t) {
    const Tensor<3> xt = x.narrow(1, t, 1);
    steps.push_back(m.forward_cache(nn::MhaInput::self_attn(xt), cache).context);
  }
  EXPECT_EQ(cache.length(), 6);
  const std::vector<float> a = full.to_vec<float>(), b = Tensor<3>::cat(steps, 1).to_vec<float>();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << i;
}

TEST(MultiHeadAttention, BadShapesAndConfigs) {
  nn::MultiHeadAttention m = nn::MultiHeadAttentionConfig{.d_model = 8, .n_heads = 2}.init(cpu());
  const Tensor<3> x = Tensor<3>::zeros({2, 3, 8}, cpu());
  EXPECT_THROW(m.forward(nn::MhaInput::self_attn(Tensor<3>::zeros({2, 3, 6}, cpu()))), ShapeError);
  EXPECT_THROW(m.forward(nn::MhaInput::self_attn(x).with_mask_pad(Tensor<2, Bool>::zeros({2, 4}, cpu()))), ShapeError);
  EXPECT_THROW((nn::MultiHeadAttentionConfig{.d_model = 8, .n_heads = 3}.init(cpu())), ValueError);
  // PyTorch's init: zero biases, q/k/v weights within xavier's bound for [3 d_model, d_model].
  for (float v : m.query.bias->val().to_vec<float>()) EXPECT_EQ(v, 0.0f);
  for (float v : m.key.weight.val().to_vec<float>()) EXPECT_LE(std::abs(v), std::sqrt(6.0 / 32.0));
}

TEST(PositionalEncoding, MatchesTheSinusoids) {
  const nlohmann::json& c = seq()["positional"];
  const nn::PositionalEncoding pe = nn::PositionalEncodingConfig{.d_model = 6}.init();
  expect_close(pe.forward(fixture_tensor<3>(c["x"], cpu())).into_data(), c["y"]);
  const nn::PositionalEncoding short_pe = nn::PositionalEncodingConfig{.d_model = 6, .max_sequence_size = 4}.init();
  EXPECT_THROW(short_pe.forward(fixture_tensor<3>(c["x"], cpu())), ValueError);
}

TEST(RotaryEncoding, MatchesTheReference) {
  const nlohmann::json& c = seq()["rotary"];
  const nn::RotaryEncoding rope = nn::RotaryEncodingConfig{.max_sequence_length = 16, .d_model = 8}.init();
  const Tensor<4> x = fixture_tensor<4>(c["x"], cpu());
  expect_close(rope.forward(x).into_data(), c["y"]);
  expect_close(rope.forward(x, 3).into_data(), c["y_start3"]);
  EXPECT_THROW(rope.forward(x, 12), ValueError);
}

namespace {

template <class M, class Run>
void check_recurrent(const char* name, M m, Run run) {
  const nlohmann::json& c = seq()[name];
  load_params(m, c["params"]);
  const Tensor<3> x = fixture_tensor<3>(c["x"], ad()).require_grad();
  auto [y, hidden, cell] = run(m, x);
  expect_close(y.into_data(), c["y"], 1e-5, 1e-4, name);
  expect_close(hidden.into_data(), c["hidden"], 1e-5, 1e-4, std::string(name) + " hidden");
  if (c.contains("cell")) expect_close(cell.into_data(), c["cell"], 1e-5, 1e-4, std::string(name) + " cell");
  Gradients grads = (y * fixture_tensor<3>(c["grad_out"], ad())).sum().backward();
  expect_close(x.grad(grads)->into_data(), c["grad_x"], 1e-5, 1e-4, std::string(name) + " grad_x");
  for (const auto& p : nn::named_params(m))
    if (p.path == c["first_weight_path"].get<std::string>())
      expect_close(Tensor<2>(p.param->handle()).grad(grads)->into_data(), c["grad_first_weight"], 1e-5, 1e-4,
                   std::string(name) + " grad weight");
}

Tensor<3> stack2(const Tensor<2>& a, const Tensor<2>& b) {
  return Tensor<3>::cat({a.unsqueeze<3>(), b.unsqueeze<3>()}, 0);
}

const nn::RnnConfig kRnn{.d_input = 5, .d_hidden = 6};

}  // namespace

TEST(Recurrent, LstmMatchesPyTorch) {
  check_recurrent("lstm", kRnn.init_lstm(ad()), [](const nn::Lstm& m, const Tensor<3>& x) {
    auto [y, s] = m.forward(x);
    return std::tuple{y, s.hidden.unsqueeze<3>(), s.cell.unsqueeze<3>()};
  });
  check_recurrent("bilstm", kRnn.init_bilstm(ad()), [](const nn::BiLstm& m, const Tensor<3>& x) {
    auto [y, s] = m.forward(x);
    return std::tuple{y, stack2(s.first.hidden, s.second.hidden), stack2(s.first.cell, s.second.cell)};
  });
}

TEST(Recurrent, GruMatchesPyTorch) {
  nn::RnnConfig time_major = kRnn;
  time_major.batch_first = false;
  check_recurrent("gru_time_major", time_major.init_gru(ad()), [](const nn::Gru& m, const Tensor<3>& x) {
    auto [y, h] = m.forward(x);
    return std::tuple{y, h.unsqueeze<3>(), h.unsqueeze<3>()};
  });
  check_recurrent("bigru", kRnn.init_bigru(ad()), [](const nn::BiGru& m, const Tensor<3>& x) {
    auto [y, h] = m.forward(x);
    return std::tuple{y, stack2(h.first, h.second), stack2(h.first, h.second)};
  });
}

TEST(Recurrent, RnnMatchesPyTorch) {
  check_recurrent("rnn", kRnn.init_rnn(ad()), [](const nn::Rnn& m, const Tensor<3>& x) {
    auto [y, h] = m.forward(x);
    return std::tuple{y, h.unsqueeze<3>(), h.unsqueeze<3>()};
  });
  check_recurrent("birnn", kRnn.init_birnn(ad()), [](const nn::BiRnn& m, const Tensor<3>& x) {
    auto [y, h] = m.forward(x);
    return std::tuple{y, stack2(h.first, h.second), stack2(h.first, h.second)};
  });
}

TEST(Recurrent, BadShapesAndDefaultInit) {
  const nn::Lstm l = kRnn.init_lstm(cpu());
  EXPECT_THROW(l.forward(Tensor<3>::zeros({2, 3, 4}, cpu())), ShapeError);
  EXPECT_THROW(l.forward(Tensor<3>::zeros({2, 3, 5}, cpu()),
                         nn::LstmState{Tensor<2>::zeros({3, 6}, cpu()), Tensor<2>::zeros({3, 6}, cpu())}),
               ShapeError);
  // PyTorch's default: every weight and bias within 1/sqrt(d_hidden).
  for (const auto& p : nn::named_params(const_cast<nn::Lstm&>(l)))
    for (float v : api::into_data(p.param->handle()).to_vec<float>()) EXPECT_LE(std::abs(v), 1.0 / std::sqrt(6.0));
  EXPECT_EQ(l.num_params(), 4 * (5 * 6 + 6 + 6 * 6 + 6));
}

namespace {

nn::TransformerConfig transformer_config(const nlohmann::json& c, bool norm_first, nn::FeedForwardActivation a) {
  return nn::TransformerConfig{.d_model = 8,
                               .d_ff = c["d_ff"],
                               .n_heads = c["n_heads"],
                               .n_layers = c["n_layers"],
                               .dropout = 0.0,
                               .norm_first = norm_first,
                               .activation = a};
}

}  // namespace

TEST(Transformer, EncoderMatchesPyTorch) {
  for (auto [name, norm_first, act] : {std::tuple{"encoder_post_relu", false, nn::FeedForwardActivation::Relu},
                                       std::tuple{"encoder_pre_gelu", true, nn::FeedForwardActivation::Gelu}}) {
    const nlohmann::json& c = seq()[name];
    nn::TransformerEncoder enc = transformer_config(c, norm_first, act).init_encoder(ad());
    load_params(enc, c["params"]);
    const Tensor<3> x = fixture_tensor<3>(c["x"], ad()).require_grad();
    const Tensor<3> y =
        enc.forward({x, fixture_tensor<2, Bool>(c["mask_pad"], ad()), fixture_tensor<3, Bool>(c["mask_attn"], ad())});
    expect_close(y.into_data(), c["y"], 1e-5, 1e-4, name);
    Gradients grads = (y * fixture_tensor<3>(c["grad_out"], ad())).sum().backward();
    expect_close(x.grad(grads)->into_data(), c["grad_x"], 1e-5, 1e-4, std::string(name) + " grad_x");
  }
}

TEST(Transformer, DecoderMatchesPyTorch) {
  for (auto [name, norm_first] : {std::pair{"decoder_post", false}, std::pair{"decoder_pre", true}}) {
    const nlohmann::json& c = seq()[name];
    nn::TransformerDecoder dec = transformer_config(c, norm_first, nn::FeedForwardActivation::Relu).init_decoder(ad());
    load_params(dec, c["params"]);
    nn::TransformerDecoderInput in;
    in.target = fixture_tensor<3>(c["target"], ad()).require_grad();
    in.memory = fixture_tensor<3>(c["memory"], ad()).require_grad();
    in.target_mask_attn = fixture_tensor<3, Bool>(c["target_mask_attn"], ad());
    in.memory_mask_pad = fixture_tensor<2, Bool>(c["memory_mask_pad"], ad());
    const Tensor<3> y = dec.forward(in);
    expect_close(y.into_data(), c["y"], 1e-5, 1e-4, name);
    Gradients grads = (y * fixture_tensor<3>(c["grad_out"], ad())).sum().backward();
    expect_close(in.target.grad(grads)->into_data(), c["grad_target"], 1e-5, 1e-4, std::string(name) + " target");
    expect_close(in.memory.grad(grads)->into_data(), c["grad_memory"], 1e-5, 1e-4, std::string(name) + " memory");
  }
}

TEST(Transformer, ConfigRoundTripAndPaths) {
  const nn::TransformerConfig c{.d_model = 8, .d_ff = 16, .n_heads = 2, .n_layers = 3, .norm_first = true};
  const nn::TransformerConfig back = nn::TransformerConfig::from_json(c.to_json());
  EXPECT_EQ(back.n_layers, 3);
  EXPECT_TRUE(back.norm_first);
  EXPECT_EQ(back.activation, nn::FeedForwardActivation::Gelu);
  EXPECT_THROW(nn::TransformerConfig::from_json(R"({"activation": "swish"})"), ValueError);
  nn::TransformerEncoder enc = c.init_encoder(cpu());
  EXPECT_EQ(nn::named_params(enc)[0].path, "layers.0.mha.query.weight");
  EXPECT_EQ(enc.num_params(), 3 * (4 * (8 * 8 + 8) + (8 * 16 + 16 + 16 * 8 + 8) + 2 * 16));
}
