// The models `burn export-onnx` knows by name (torchvision's ResNet-18, the nn examples' MLP, ConvNet
// and transformer text classifier, the demo's FashionCnn): how each is built from a seed, the example
// inputs its forward is traced on, and the trace itself. Shared by the command and the export tests,
// so that both export the very same model from the same seed.
#pragma once

#include <burn/nn.hpp>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "burn/import/load.hpp"
#include "burn/import/onnx_export.hpp"
#include "classifiers.hpp"
#include "fashion_cnn.hpp"
#include "resnet.hpp"

namespace burn::models {

struct ExportSpec {
  Device device = Device::get("cpu");
  uint64_t seed = 1;         // the model's initial weights and the example inputs
  int64_t batch = 2;         // of the example inputs
  int64_t image_size = 224;  // ResNet-18's input height and width
  std::string weights;       // loaded into the model when not empty (any importable file)
  import::ModuleImportOptions load = {.strict = true};
  // Batch norm statistics and norm affine parameters drawn at random instead of (0, 1) and (1, 0),
  // so that a test of the exported normalisation sees more than the identity.
  bool random_norms = false;
  import::OnnxExportOptions onnx = {};
};

struct ExportedModel {
  std::string bytes;                  // the ONNX ModelProto
  std::vector<TensorHandle> inputs;   // the example inputs it was traced on
  std::vector<TensorHandle> outputs;  // the module's own forward on them
};

namespace detail {

inline void randomize_norms(nn::ModuleRef m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const nn::NamedParam& p : nn::detail::named_params(m)) {
    const std::string& path = p.path;
    auto ends = [&](const char* s) {
      const std::string t = s;
      return path.size() >= t.size() && path.compare(path.size() - t.size(), t.size(), t) == 0;
    };
    double lo = 0, hi = 0;
    if (ends("running_var") || ends("gamma"))
      lo = 0.5, hi = 1.5;
    else if (ends("running_mean") || ends("beta"))
      lo = -0.3, hi = 0.3;
    else
      continue;
    const TensorHandle& h = p.param->handle();
    h.device.seed(rng());
    p.param->set_handle(api::random(h.device, h.prim->shape(), Distribution::uniform(lo, hi), h.prim->dtype()));
  }
}

template <class M, class F>
ExportedModel trace(M model, const ExportSpec& s, std::vector<TensorHandle> inputs, F forward) {
  if (!s.weights.empty()) import::load_into(model, s.weights, s.load);
  if (s.random_norms) randomize_norms(model, s.seed + 7);
  model = model.valid();
  ExportedModel out;
  out.inputs = inputs;
  out.outputs = forward(model, inputs);
  out.bytes = import::export_onnx_bytes(model, inputs, forward, s.onnx);
  return out;
}

inline TensorHandle normal_input(const ExportSpec& s, const Shape& shape) {
  s.device.seed(s.seed + 1);
  return api::random(s.device, shape, Distribution::normal(0, 1), DType::F32);
}

}  // namespace detail

using Outputs = std::vector<TensorHandle>;

inline ExportedModel export_mlp(const ExportSpec& s) {
  s.device.seed(s.seed);
  const MlpConfig c;
  Mlp model = c.init(s.device);  // before the inputs: both draw from the device's generator
  return detail::trace(
      std::move(model), s, {detail::normal_input(s, Shape{s.batch, c.d_input})},
      [](const Mlp& m, const Outputs& in) -> Outputs { return {m.forward(Tensor<2>(in[0])).handle()}; });
}

inline ExportedModel export_convnet(const ExportSpec& s) {
  s.device.seed(s.seed);
  ConvNet model = ConvNetConfig{}.init(s.device);
  return detail::trace(
      std::move(model), s, {detail::normal_input(s, Shape{s.batch, 1, 16, 16})},
      [](const ConvNet& m, const Outputs& in) -> Outputs { return {m.forward(Tensor<4>(in[0])).handle()}; });
}

inline ExportedModel export_text_classifier(const ExportSpec& s) {
  s.device.seed(s.seed);
  // Sentences of 4 to 16 tokens padded with kPad, as the example trains on.
  std::mt19937_64 rng(s.seed + 1);
  std::vector<int64_t> tokens(static_cast<size_t>(s.batch * TextClassifier::kLen), TextClassifier::kPad);
  for (int64_t b = 0; b < s.batch; ++b) {
    const int64_t len = 4 + static_cast<int64_t>(rng() % (TextClassifier::kLen - 3));
    for (int64_t t = 0; t < len; ++t)
      tokens[static_cast<size_t>(b * TextClassifier::kLen + t)] =
          1 + static_cast<int64_t>(rng() % (TextClassifier::kVocab - 1));
  }
  const Tensor<2, Int> x = Tensor<2, Int>::from_vector(tokens, {s.batch, TextClassifier::kLen}, s.device);
  TextClassifier model = TextClassifierConfig{}.init(s.device);
  return detail::trace(std::move(model), s, {x.handle()}, [](const TextClassifier& m, const Outputs& in) -> Outputs {
    return {m.forward(Tensor<2, Int>(in[0])).handle()};
  });
}

inline ExportedModel export_resnet18(const ExportSpec& s) {
  s.device.seed(s.seed);
  ResNet model = ResNetConfig{}.init(s.device);
  return detail::trace(
      std::move(model), s, {detail::normal_input(s, Shape{s.batch, 3, s.image_size, s.image_size})},
      [](const ResNet& m, const Outputs& in) -> Outputs { return {m.forward(Tensor<4>(in[0])).handle()}; });
}

inline ExportedModel export_fashion_cnn(const ExportSpec& s) {
  s.device.seed(s.seed);
  ::examples::FashionCnn model = ::examples::FashionCnnConfig{}.init(s.device);
  return detail::trace(std::move(model), s, {detail::normal_input(s, Shape{s.batch, 28, 28})},
                       [](const ::examples::FashionCnn& m, const Outputs& in) -> Outputs {
                         return {m.forward(Tensor<3>(in[0])).handle()};
                       });
}

// The ops the exporter maps that the models above do not reach (more in op-sweep-2 and op-sweep-19
// below), each in an output of its own (for testing the exporter against ONNX Runtime and the
// project's engine).
struct OpSweep {
  nn::Param<Tensor<4>> conv_w, convt_w;
  nn::Param<Tensor<1>> bias, norm_w;
  BURN_MODULE(conv_w, convt_w, bias, norm_w)
};

inline std::vector<TensorHandle> op_sweep_forward(const OpSweep& m, const std::vector<TensorHandle>& in) {
  using namespace api;
  const H x = in[0];  // [B, 4, 8, 8]
  const int64_t b = x.prim->shape()[0];
  const H pos = add_scalar(unary(OpId::abs, x), Scalar(1.0));
  Hs unaries;
  for (OpId op : {OpId::gelu, OpId::gelu_tanh, OpId::silu,  OpId::mish, OpId::sigmoid, OpId::log_sigmoid, OpId::tanh,
                  OpId::erf,  OpId::exp,       OpId::floor, OpId::ceil, OpId::round,   OpId::sin,         OpId::cos,
                  OpId::atan, OpId::neg,       OpId::sign,  OpId::selu, OpId::relu,    OpId::square})
    unaries.push_back(unary(op, x));
  for (OpId op : {OpId::sqrt, OpId::log, OpId::log1p, OpId::recip}) unaries.push_back(unary(op, pos));
  unaries.push_back(softplus(x, 2.0, 20.0));
  unaries.push_back(leaky_relu(x, 0.1));
  unaries.push_back(elu(x, 0.5));
  unaries.push_back(hard_sigmoid(x, 0.2, 0.5));
  unaries.push_back(clamp(x, Scalar(-0.5), Scalar(0.5)));
  unaries.push_back(clamp_min(x, Scalar(-0.2)));
  unaries.push_back(clamp_max(x, Scalar(0.3)));
  unaries.push_back(powf_scalar(pos, Scalar(1.5)));
  unaries.push_back(softmax(x, 1));
  unaries.push_back(log_softmax(x, 3));
  unaries.push_back(sub(x, mul_scalar(x, Scalar(0.5))));
  unaries.push_back(div(x, pos));
  unaries.push_back(mask_where(x, compare_elem(OpId::greater_elem, x, Scalar(0.0)), mul_scalar(x, Scalar(3.0))));
  unaries.push_back(mask_fill(x, compare_elem(OpId::lower_equal_elem, x, Scalar(0.1)), Scalar(-2.0)));
  const H elementwise = cat(unaries, 1);

  const H indices = reduce_dim(OpId::argmax, x, 1);  // [2, 1, 8, 8], i64
  const H layout =
      cat({flip(x, {2}), slice(x, {Slice::all(), Slice::all(), Slice::from(0, 2)}),
           repeat(slice(x, {Slice::all(), Slice::all(), Slice::range(0, 1)}), {1, 1, 2, 1}),
           permute(permute(x, {0, 1, 3, 2}), {0, 1, 3, 2}), gather(x, 1, expand(indices, {b, 4, 8, 8})),
           select(x, 2, from_data(x.device, TensorData::from_vector<int64_t>({7, 0, 3, 3}, Shape{4}), Kind::Int)),
           slice(x, {Slice::all(), Slice::all(), Slice::range(2, 5)})},
          2);

  ConvOptions co{.stride = {2, 2}, .padding = {1, 1}, .dilation = {1, 1}, .groups = 2};
  const H conv_out = conv(x, m.conv_w.val().handle(), m.bias.val().handle(), co);  // [2, 6, 4, 4]
  ConvTransposeOptions cto{.stride = {2, 2}, .padding = {1, 1}, .padding_out = {1, 1}, .dilation = {1, 1}, .groups = 1};
  const H convt_out = conv_transpose(conv_out, m.convt_w.val().handle(), std::nullopt, cto);  // [2, 4, 8, 8]
  const H pools = cat(
      {flatten(max_pool(x, PoolOptions{.kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}}), 2, 3),
       flatten(
           avg_pool(x, PoolOptions{.kernel = {2, 2}, .stride = {2, 2}, .padding = {1, 1}, .count_include_pad = false}),
           2, 3),
       flatten(adaptive_avg_pool(x, {4, 4}), 2, 3)},
      2);
  const H norms =
      add(layer_norm(x, std::nullopt, std::nullopt, 2, 1e-5), rms_norm(x, m.norm_w.val().handle(), 1, 1e-6));
  const H q = reshape(x, {b, 4, 16, 4});
  const H mask =
      compare_elem(OpId::greater_elem,
                   reshape(slice(x, {Slice::all(), Slice::all(), Slice::range(0, 2)}), {b, 4, 1, 16}), Scalar(1.0));
  const H full_mask = expand(mask, {b, 4, 16, 16});
  const H attn = attention(q, mul_scalar(q, Scalar(0.5)), add_scalar(q, Scalar(1.0)), full_mask, AttentionOptions{});
  const H reductions =
      cat({flatten(reduce_dim(OpId::sum_dim, x, 1), 1, 3), flatten(reduce_dim(OpId::mean_dim, x, 2), 1, 3),
           flatten(reduce_dim(OpId::max_dim, x, 3), 1, 3), flatten(reduce_dim(OpId::min_dim, x, 1), 1, 3)},
          1);
  const H totals = cat({reduce_all(OpId::sum, x), reduce_all(OpId::mean, x), reduce_all(OpId::max, x)}, 0);
  return {elementwise, layout,     convt_out, pools,   norms,
          attn,        reductions, totals,    indices, cast(compare(OpId::not_equal, x, flip(x, {3})), DType::F32)};
}

inline ExportedModel export_op_sweep(const ExportSpec& s) {
  s.device.seed(s.seed);
  auto rnd = [&](Shape shape) { return api::random(s.device, shape, Distribution::normal(0, 0.5), DType::F32); };
  OpSweep m;
  m.conv_w = nn::Param<Tensor<4>>(Tensor<4>(rnd(Shape{6, 2, 3, 3})));
  m.convt_w = nn::Param<Tensor<4>>(Tensor<4>(rnd(Shape{6, 4, 3, 3})));
  m.bias = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{6})));
  m.norm_w = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{8})));
  return detail::trace(std::move(m), s, {detail::normal_input(s, Shape{s.batch, 4, 8, 8})}, op_sweep_forward);
}

// The ops opset 17 writes as decompositions or newer nodes (group norm, interpolate, cumsum, sort,
// argsort, topk, causal attention), in 6 outputs; the sort inputs have ties (x rounded to halves).
struct OpSweep2 {
  nn::Param<Tensor<1>> gn_w, gn_b;
  BURN_MODULE(gn_w, gn_b)
};

inline std::vector<TensorHandle> op_sweep_2_forward(const OpSweep2& m, const std::vector<TensorHandle>& in) {
  using namespace api;
  const H x = in[0];  // [B, 4, 8, 8]
  const int64_t b = x.prim->shape()[0];
  const H norms = cat(
      {group_norm(x, m.gn_w.val().handle(), m.gn_b.val().handle(), 2, 1e-5),
       group_norm(x, std::nullopt, m.gn_b.val().handle(), 4, 1e-3), group_norm(x, std::nullopt, std::nullopt, 1, 1e-5)},
      1);
  using M = InterpolateMode;
  Hs resized;
  for (auto [mode, align, h, w] : std::vector<std::tuple<M, bool, int64_t, int64_t>>{{M::Nearest, false, 12, 6},
                                                                                     {M::Nearest, false, 3, 16},
                                                                                     {M::Linear, false, 16, 16},
                                                                                     {M::Linear, false, 5, 3},
                                                                                     {M::Linear, false, 1, 3},
                                                                                     {M::Linear, true, 12, 5},
                                                                                     {M::Linear, true, 1, 9},
                                                                                     {M::Cubic, false, 11, 16},
                                                                                     {M::Cubic, false, 4, 3},
                                                                                     {M::Cubic, true, 16, 7}})
    resized.push_back(flatten(interpolate(x, {h, w}, InterpolateOptions{.mode = mode, .align_corners = align}), 2, 3));
  const H interps = cat(resized, 2);
  const H cums = cat({reduce_dim(OpId::cumsum, x, 3), reduce_dim(OpId::cumsum, x, 1)}, 1);
  const H ties = unary(OpId::round, mul_scalar(x, Scalar(2.0)));
  const auto [asc, asc_i] = sort_with_indices(x, 3, false, false);
  const auto [desc, desc_i] = sort_with_indices(ties, 2, true, true);
  const auto [top, top_i] = topk_with_indices(ties, 3, 3, true);
  const auto [bottom, bottom_i] = topk_with_indices(x, 2, 1, false);
  const H sorted = cat({flatten(asc, 1, 3), flatten(desc, 1, 3), flatten(top, 1, 3), flatten(bottom, 1, 3)}, 1);
  const H indices = cat({flatten(asc_i, 1, 3), flatten(desc_i, 1, 3), flatten(top_i, 1, 3), flatten(bottom_i, 1, 3),
                         flatten(argsort(ties, 3, false, true), 1, 3), flatten(argsort(x, 1, true, false), 1, 3)},
                        1);
  const H q = reshape(x, {b, 4, 16, 4});
  const H k = mul_scalar(q, Scalar(0.5)), v = add_scalar(q, Scalar(1.0));
  const H attn = cat({attention(q, k, v, std::nullopt, AttentionOptions{.causal = true}),
                      attention(slice(q, {Slice::all(), Slice::all(), Slice::range(3, 9)}), k, v, std::nullopt,
                                AttentionOptions{.causal = true, .scale = 0.3})},
                     2);
  return {norms, interps, cums, sorted, indices, attn};
}

inline ExportedModel export_op_sweep_2(const ExportSpec& s) {
  s.device.seed(s.seed);
  auto rnd = [&](Shape shape) { return api::random(s.device, shape, Distribution::normal(0, 0.5), DType::F32); };
  OpSweep2 m;
  m.gn_w = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{4})));
  m.gn_b = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{4})));
  return detail::trace(std::move(m), s, {detail::normal_input(s, Shape{s.batch, 4, 8, 8})}, op_sweep_2_forward);
}

// The ops that need opset 18 or 19 (DeformConv with and without its mask and bias, offset and weight
// groups; GroupNormalization; the reductions with axes as an input), exported at opset 19 unless told.
struct OpSweep19 {
  nn::Param<Tensor<4>> offset_w, mask_w, offset2_w, dc_w, dc2_w;
  nn::Param<Tensor<1>> dc_b, gn_w, gn_b, norm_w;
  BURN_MODULE(offset_w, mask_w, offset2_w, dc_w, dc2_w, dc_b, gn_w, gn_b, norm_w)
};

inline std::vector<TensorHandle> op_sweep_19_forward(const OpSweep19& m, const std::vector<TensorHandle>& in) {
  using namespace api;
  const H x = in[0];  // [B, 4, 8, 8]
  const ConvOptions same{.stride = {1, 1}, .padding = {1, 1}, .dilation = {1, 1}, .groups = 1};
  const ConvOptions half{.stride = {2, 2}, .padding = {1, 1}, .dilation = {1, 1}, .groups = 1};
  const H offset = conv(x, m.offset_w.val().handle(), std::nullopt, same);                    // [B, 18, 8, 8]
  const H mask = unary(OpId::sigmoid, conv(x, m.mask_w.val().handle(), std::nullopt, same));  // [B, 9, 8, 8]
  const H dc = deform_conv2d(x, offset, m.dc_w.val().handle(), mask, m.dc_b.val().handle(),
                             DeformConvOptions{.stride = {1, 1}, .padding = {1, 1}, .dilation = {1, 1}});
  const H offset2 = conv(x, m.offset2_w.val().handle(), std::nullopt, half);  // [B, 36, 4, 4]
  const H dc2 = deform_conv2d(
      x, offset2, m.dc2_w.val().handle(), std::nullopt, std::nullopt,
      DeformConvOptions{
          .stride = {2, 2}, .padding = {2, 2}, .dilation = {2, 2}, .weight_groups = 2, .offset_groups = 2});
  const H norms =
      cat({group_norm(x, m.gn_w.val().handle(), m.gn_b.val().handle(), 2, 1e-5),
           group_norm(x, std::nullopt, std::nullopt, 4, 1e-5), rms_norm(x, m.norm_w.val().handle(), 1, 1e-6)},
          1);
  const H reductions = cat({reduce_dim(OpId::mean_dim, x, 2), reduce_dim(OpId::max_dim, x, 2),
                            reduce_dim(OpId::min_dim, x, 2), reduce_dim(OpId::prod_dim, x, 2)},
                           1);
  return {dc, dc2, norms, reductions};
}

inline ExportedModel export_op_sweep_19(const ExportSpec& s) {
  s.device.seed(s.seed);
  auto rnd = [&](Shape shape, double sd) {
    return api::random(s.device, shape, Distribution::normal(0, sd), DType::F32);
  };
  OpSweep19 m;
  m.offset_w = nn::Param<Tensor<4>>(Tensor<4>(rnd(Shape{18, 4, 3, 3}, 0.2)));
  m.mask_w = nn::Param<Tensor<4>>(Tensor<4>(rnd(Shape{9, 4, 3, 3}, 0.3)));
  m.offset2_w = nn::Param<Tensor<4>>(Tensor<4>(rnd(Shape{36, 4, 3, 3}, 0.2)));
  m.dc_w = nn::Param<Tensor<4>>(Tensor<4>(rnd(Shape{6, 4, 3, 3}, 0.5)));
  m.dc2_w = nn::Param<Tensor<4>>(Tensor<4>(rnd(Shape{4, 2, 3, 3}, 0.5)));
  m.dc_b = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{6}, 0.5)));
  m.gn_w = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{4}, 0.5)));
  m.gn_b = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{4}, 0.5)));
  m.norm_w = nn::Param<Tensor<1>>(Tensor<1>(rnd(Shape{8}, 0.5)));
  return detail::trace(std::move(m), s, {detail::normal_input(s, Shape{s.batch, 4, 8, 8})}, op_sweep_19_forward);
}

struct ExportableModel {
  const char* name;
  const char* summary;
  ExportedModel (*run)(const ExportSpec&);
  int opset = 17;  // written at this opset unless told otherwise (the ops of op-sweep-19 need 19)
};

inline const std::vector<ExportableModel>& exportable_models() {
  static const std::vector<ExportableModel> models{
      {"resnet18", "torchvision's ResNet-18, input [B, 3, S, S] (S: --image-size), 1000 logits", export_resnet18},
      {"mlp", "the mlp example: input [B, 32], 4 logits", export_mlp},
      {"convnet", "the convnet example: input [B, 1, 16, 16], 4 logits", export_convnet},
      {"text-classifier", "the text_classifier example: int64 tokens [B, 16] (0 pads), 2 logits",
       export_text_classifier},
      {"fashion-cnn", "the demo's FashionCnn: input [B, 28, 28], 10 logits", export_fashion_cnn},
      {"op-sweep", "the ops the exporter maps, in 10 outputs (for testing): input [B, 4, 8, 8]", export_op_sweep},
      {"op-sweep-2", "group norm, interpolate, cumsum, sorts, causal attention (for testing): input [B, 4, 8, 8]",
       export_op_sweep_2},
      {"op-sweep-19", "deformable conv, group norm, reductions at opset 19 (for testing): input [B, 4, 8, 8]",
       export_op_sweep_19, 19},
  };
  return models;
}

inline const ExportableModel& exportable_model(const std::string& name) {
  std::string known;
  for (const auto& m : exportable_models()) {
    if (name == m.name) return m;
    known += (known.empty() ? "" : ", ") + std::string(m.name);
  }
  throw ValueError("export-onnx", "no model named '" + name + "' (known: " + known + ")");
}

}  // namespace burn::models
