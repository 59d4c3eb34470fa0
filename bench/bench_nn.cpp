// burn-nn workloads as a user writes them (modules, losses, optimizers) on autodiff<cpu>, against
// PyTorch's nn modules and torch.optim in the same run (bench/torch/bench_torch.py) and, for ResNet-18
// inference, ONNX Runtime (bench/onnxruntime): an MLP and a small CNN train step with Adam, a
// transformer encoder layer forward + backward, ResNet-18 and ResNet-50 inference at batch 1 and 8 (cpu
// and fusion<cpu>), RoBERTa-base inference at batch 1 and 8, sequence 128, and its AdamW train step at
// batch 8 (cpu and fusion<cpu>), and RoBERTa-base imported from ONNX ($BURN_BENCH_ROBERTA_ONNX,
// bench/onnxruntime/export_roberta.py); the same ResNet-18
// imported from ONNX (torchvision's export, $BURN_BENCH_RESNET18_ONNX) through the onnx importer plugin;
// both files quantized to int8 by bench/onnxruntime/quantize_onnx.py ($BURN_BENCH_RESNET18_INT8_ONNX: QDQ,
// $BURN_BENCH_ROBERTA_INT8_ONNX: dynamic), against ONNX Runtime on the same files;
// the MLP step on autodiff<remote<...>> against a burn server ($BURN_BENCH_REMOTE, bench/remote_table.py);
// a Linear 768->3072 at batch 128 in f32 and under quantize_dynamic (int8) against PyTorch's quantize_dynamic.
#include <memory>
#include <typeinfo>

#include <burn/import/importer.hpp>
#include <burn/nn.hpp>
#include <burn/nn/loss.hpp>
#include <burn/optim.hpp>

#include "common.hpp"
#include "nn_models.hpp"
#include "remote_bench.hpp"
#include "resnet.hpp"
#include "roberta.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

Tensor<1, Int> labels(int64_t n, int64_t classes) {
  return Tensor<2>::random(Shape{n, 1}, Distribution::uniform(0, static_cast<double>(classes)), cpu())
      .to_int()
      .squeeze<1>(1)
      .to_device(ad());
}

// One Adam step per iteration: forward, cross-entropy, backward, update.
template <class M, class X>
void train_loop(benchmark::State& st, M model, const X& x, const Tensor<1, Int>& y) {
  optim::Optimizer opt = optim::AdamConfig{}.init();
  const nn::loss::CrossEntropyLoss loss = nn::loss::CrossEntropyLossConfig{}.init(x.device());
  for (auto _ : st) {
    Gradients grads = loss.forward(model.forward(x), y).backward();
    model = opt.step(1e-3, model, optim::GradientsParams::from_grads(grads, model));
    x.device().sync();  // on fusion, the update's recorded ops run now, inside this step
  }
}

// One transformer encoder layer (d 256, 4 heads, ReLU feed-forward 1024) forward + backward per
// iteration on `device`, whose inner device is `inner`.
void transformer_loop(benchmark::State& st, const Device& device, const Device& inner) {
  const nn::TransformerEncoder enc = make_transformer_layer(device);
  const Tensor<3> x = Tensor<3>::from_inner(input<3>({16, 128, 256}).to_device(inner), device).require_grad();
  for (auto _ : st) {
    Gradients grads = enc.forward({x, std::nullopt, std::nullopt}).mean().backward();
    // On fusion the gradients nobody reads would never be computed: a step computes them all, as the
    // unfused device does (an optimizer would read them).
    device.sync();
    benchmark::DoNotOptimize(grads);
  }
}

// ResNet-18 inference on `device`, batch norms folded into the convs as ONNX Runtime runs the network
// (PyTorch's eager side does not fold); on fusion<cpu> each conv and its relu / residual add / relu tail
// run as one fused program, the tail inside the conv kernel (the _fused case; 1-2% faster than cpu,
// docs/benchmarks-journal.md).
// ResNet-50 (BottleneckResNetConfig) the same way.
template <class Config>
void resnet_infer_loop(benchmark::State& st, const Device& device, int64_t batch) {
  using Net = decltype(Config{}.init(device).fold_batch_norms());
  const Net& net =
      made_once<Net>(typeid(Config).name() + device.name(), [&] { return Config{}.init(device).fold_batch_norms(); });
  const Tensor<4> x = input<4>({batch, 3, 224, 224}).to_device(device);
  for (auto _ : st) benchmark::DoNotOptimize(net.forward(x).into_data());
}

// RoBERTa-base (examples/models/roberta.hpp) on `device`: [batch, 128] token ids (fixed, none a pad:
// PyTorch's twin gets an all-ones attention mask, burn an all-false pad mask), last hidden state and
// pooler output read back.
void roberta_infer_loop(benchmark::State& st, const Device& device, int64_t batch) {
  const models::RobertaModel& net =
      made_once<models::RobertaModel>(device.name(), [&] { return models::RobertaConfig{}.init(device); });
  const Tensor<2, Int> ids =
      Tensor<2>::random(Shape{batch, 128}, Distribution::uniform(3, 50000), cpu()).to_int().to_device(device);
  const Tensor<2, Bool> mask = models::roberta_padding_mask(ids);
  for (auto _ : st) {
    const models::RobertaModelOutput out = net.forward(ids, mask);
    benchmark::DoNotOptimize(out.last_hidden_state.into_data());
    benchmark::DoNotOptimize(out.pooler_output->into_data());
  }
}

// A Linear 768->3072 with bias on [128, 768] inputs, forward only: f32, or (int8) under nn::quantize_dynamic, the
// weight int8 per output channel and each input row quantized to u8 at the call (the op quantized_linear; the cpu
// plugin packs the weight at the first call, the warm-up's).
void linear_infer_loop(benchmark::State& st, bool int8) {
  nn::Linear fc = nn::LinearConfig{768, 3072}.init(cpu());
  if (int8) fc = nn::quantize_dynamic(fc);
  if (int8 && !fc.quantized_weight) {
    st.SkipWithError("quantize_dynamic left the Linear's weight in f32");
    return;
  }
  const Tensor<2> x = input<2>({128, 768});
  for (auto _ : st) benchmark::DoNotOptimize(fc.forward(x));
}

// RoBERTa-base with a 2-class head on the pooled <s> (a sentence classifier), for the train step.
struct RobertaClassifier {
  models::RobertaModel roberta;
  nn::Linear classifier;
  BURN_MODULE(roberta, classifier)
  Tensor<2> forward(const Tensor<2, Int>& ids) const { return classifier.forward(*roberta.forward(ids).pooler_output); }
};

// One AdamW step (PyTorch's defaults: eps 1e-8, weight decay 0.01) of that classifier on [8, 128] token
// ids, dropout on (0.1), on an autodiff device; the model and the optimizer's state carry over from one
// repetition to the next, as PyTorch's side keeps its model and optimizer.
struct RobertaTraining {
  RobertaClassifier model;
  optim::Optimizer opt;
  Tensor<2, Int> ids;
  Tensor<1, Int> y;
  nn::loss::CrossEntropyLoss loss;
};

void roberta_train_loop(benchmark::State& st, const Device& device) {
  RobertaTraining& t = made_once<RobertaTraining>(device.name(), [&] {
    return RobertaTraining{
        RobertaClassifier{models::RobertaConfig{}.init(device), nn::LinearConfig{768, 2}.init(device)},
        optim::AdamWConfig{.epsilon = 1e-8, .weight_decay = 0.01}.init(),
        Tensor<2>::random(Shape{8, 128}, Distribution::uniform(3, 50000), cpu()).to_int().to_device(device),
        labels(8, 2).to_device(device), nn::loss::CrossEntropyLossConfig{}.init(device)};
  });
  for (auto _ : st) {
    Gradients grads = t.loss.forward(t.model.forward(t.ids), t.y).backward();
    t.model = t.opt.step(1e-5, t.model, optim::GradientsParams::from_grads(grads, t.model));
    device.sync();  // on fusion, the update's recorded ops run now, inside this step
  }
}

// An ONNX model on cpu through the onnx importer plugin, the file named by the environment variable `file_var`
// (bench/run.py writes and sets it): an image model on [batch, 3, 224, 224] (logits read back) ...
void onnx_image_loop(benchmark::State& st, const char* file_var, int64_t batch) {
  const char* path = std::getenv(file_var);
  if (!path) {
    st.SkipWithError((std::string(file_var) + " is not set (bench/run.py writes the file and sets it)").c_str());
    return;
  }
  const auto& model = made_once<std::shared_ptr<import::Model>>(path, [&] {
    return std::shared_ptr<import::Model>(import::load_model(path, {.device = cpu(), .trainable = false}));
  });
  const std::vector<TensorHandle> x = {input<4>({batch, 3, 224, 224}).handle()};
  for (auto _ : st) benchmark::DoNotOptimize(api::into_data(model->forward(x).at(0)));
}

// ... or RoBERTa-base's export on [batch, 128] token ids and an all-ones mask (both outputs read back).
void onnx_roberta_loop(benchmark::State& st, const char* file_var, int64_t batch) {
  const char* path = std::getenv(file_var);
  if (!path) {
    st.SkipWithError((std::string(file_var) + " is not set (bench/run.py writes the file and sets it)").c_str());
    return;
  }
  const auto& model = made_once<std::shared_ptr<import::Model>>(path, [&] {
    return std::shared_ptr<import::Model>(import::load_model(path, {.device = cpu(), .trainable = false}));
  });
  const Tensor<2, Int> ids = Tensor<2>::random(Shape{batch, 128}, Distribution::uniform(3, 50000), cpu()).to_int();
  const std::vector<TensorHandle> x = {ids.handle(), Tensor<2, Int>::ones({batch, 128}, cpu()).handle()};
  for (auto _ : st) {
    const std::vector<TensorHandle> out = model->forward(x);
    benchmark::DoNotOptimize(api::into_data(out.at(0)));
    benchmark::DoNotOptimize(api::into_data(out.at(1)));
  }
}

void register_cases() {
  add_case("nn_mlp_train_adam/784-512-512-10_b128", [](benchmark::State& st) {
    train_loop(st, make_mlp(ad()), Tensor<2>::from_inner(input<2>({128, 784}), ad()), labels(128, 10));
  });
  // The same step on autodiff<fusion<cpu>> (the target: not slower with fusion than without).
  add_case("nn_mlp_train_adam_fused/784-512-512-10_b128", [](benchmark::State& st) {
    const Device fad = Device::get("autodiff<fusion<cpu>>");
    const Tensor<2> x = Tensor<2>::from_inner(input<2>({128, 784}).to_device(Device::get("fusion<cpu>")), fad);
    train_loop(st, make_mlp(fad), x, labels(128, 10).to_device(fad));
  });
  // The same step on autodiff<remote<...>>: the server ($BURN_BENCH_REMOTE, started by bench/remote_table.py)
  // runs it on its cpu device; the counters say what one step sent and how often it waited.
  add_case("remote_mlp_train_adam/784-512-512-10_b128", [](benchmark::State& st) {
    const std::string address = remote_address(st);
    if (address.empty()) return;
    const Device device = Device::get("remote<" + address + ">");
    const Device rad = Device::get("autodiff<remote<" + address + ">>");
    const Tensor<2> x = Tensor<2>::from_inner(input<2>({128, 784}).to_device(device), rad);
    const Tensor<1, Int> y = labels(128, 10).to_device(rad);
    Mlp model = make_mlp(rad);
    rad.sync();
    const remote::RemoteStats before = remote_stats(rad);
    train_loop(st, std::move(model), x, y);
    report_traffic(st, before, remote_stats(rad));
  });
  add_case("nn_linear_f32/768-3072_b128", [](benchmark::State& st) { linear_infer_loop(st, false); });
  add_case("nn_linear_int8_dynamic/768-3072_b128", [](benchmark::State& st) { linear_infer_loop(st, true); });
  add_case("nn_cnn_train_adam/b64_28x28", [](benchmark::State& st) {
    train_loop(st, make_small_cnn(ad()), Tensor<4>::from_inner(input<4>({64, 1, 28, 28}), ad()), labels(64, 10));
  });
  add_case("nn_transformer_layer_fwd_bwd/d256_h4_s128_b16",
           [](benchmark::State& st) { transformer_loop(st, ad(), cpu()); });
  add_case("nn_transformer_layer_fwd_bwd_fused/d256_h4_s128_b16", [](benchmark::State& st) {
    transformer_loop(st, Device::get("autodiff<fusion<cpu>>"), Device::get("fusion<cpu>"));
  });
  add_case("nn_roberta_base_train_adamw/b8_s128", [](benchmark::State& st) { roberta_train_loop(st, ad()); });
  add_case("nn_roberta_base_train_adamw_fused/b8_s128",
           [](benchmark::State& st) { roberta_train_loop(st, Device::get("autodiff<fusion<cpu>>")); });
  for (int64_t batch : {1, 8}) {
    const std::string s = "/b" + std::to_string(batch) + "_s128";
    add_case("nn_roberta_base_infer" + s, [batch](benchmark::State& st) { roberta_infer_loop(st, cpu(), batch); });
    add_case("nn_roberta_base_infer_fused" + s,
             [batch](benchmark::State& st) { roberta_infer_loop(st, Device::get("fusion<cpu>"), batch); });
    // The same network imported from ONNX (the twin's export) through the onnx importer plugin, and that file
    // dynamic-quantized (bench/onnxruntime/quantize_onnx.py: its MatMuls on MatMulInteger).
    add_case("nn_roberta_base_onnx_infer" + s,
             [batch](benchmark::State& st) { onnx_roberta_loop(st, "BURN_BENCH_ROBERTA_ONNX", batch); });
    add_case("nn_roberta_base_int8_onnx_infer" + s,
             [batch](benchmark::State& st) { onnx_roberta_loop(st, "BURN_BENCH_ROBERTA_INT8_ONNX", batch); });
  }
  for (int64_t batch : {1, 8}) {
    const std::string b = "/b" + std::to_string(batch) + "_224";
    add_case("nn_resnet18_infer" + b,
             [batch](benchmark::State& st) { resnet_infer_loop<models::ResNetConfig>(st, cpu(), batch); });
    add_case("nn_resnet18_infer_fused" + b, [batch](benchmark::State& st) {
      resnet_infer_loop<models::ResNetConfig>(st, Device::get("fusion<cpu>"), batch);
    });
    add_case("nn_resnet50_infer" + b,
             [batch](benchmark::State& st) { resnet_infer_loop<models::BottleneckResNetConfig>(st, cpu(), batch); });
    add_case("nn_resnet50_infer_fused" + b, [batch](benchmark::State& st) {
      resnet_infer_loop<models::BottleneckResNetConfig>(st, Device::get("fusion<cpu>"), batch);
    });
    // The same network imported from ONNX (torchvision's export), and that file with its convs and fc in QDQ int8
    // (bench/onnxruntime/quantize_onnx.py).
    add_case("nn_resnet18_onnx_infer" + b,
             [batch](benchmark::State& st) { onnx_image_loop(st, "BURN_BENCH_RESNET18_ONNX", batch); });
    add_case("nn_resnet18_int8_onnx_infer" + b,
             [batch](benchmark::State& st) { onnx_image_loop(st, "BURN_BENCH_RESNET18_INT8_ONNX", batch); });
  }
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
