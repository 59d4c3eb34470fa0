// conv through the public module API: conv2d forward, and forward + backward (conv_backward with
// the bias gradient), on a ResNet body layer (N16 64->64 56x56 3x3 p1) and stem (N1 3->64 224x224 7x7 s2 p3);
// forward alone on the convs of ResNet-18 at batch 1 and 8 (the stem, the 3x3s and the 1x1 s2 downsamples) and
// on those ResNet-50 adds (its bottlenecks' 1x1 reduce and expand convs, stride-2 3x3s and downsamples);
// conv2d + bias + ReLU on the body layer at batch 4, unfused and on fusion<cpu> (`_fused`: the ReLU in the
// conv's program, sync() per iteration).
#include "burn/tensor/module.hpp"
#include "common.hpp"

namespace {

using namespace burn;
using namespace burn::bench;

struct ConvCase {
  const char* name;
  Shape x, w;
  ConvOptions options;
};

void register_cases() {
  const ConvCase cases[] = {
      {"n16_c64_56x56_k3_p1", {16, 64, 56, 56}, {64, 64, 3, 3}, ConvOptions{{1}, {1}, {}, {1}, 1}},
      {"n1_c3_224x224_k7_s2_p3", {1, 3, 224, 224}, {64, 3, 7, 7}, ConvOptions{{2}, {3}, {}, {1}, 1}},
  };
  // A conv of a ResNet: name, c_in, c_out, input side, stride, kernel.
  struct Layer {
    const char* name;
    int64_t c, co, hw, s, k;
  };
  // ResNet-18's stem, layer1 and layer2-4.
  const Layer resnet[] = {
      {"stem", 3, 64, 224, 2, 7}, {"l1", 64, 64, 56, 1, 3},      {"l2_s2", 64, 128, 56, 2, 3},
      {"l2", 128, 128, 28, 1, 3}, {"l2_ds", 64, 128, 56, 2, 1},  {"l3_s2", 128, 256, 28, 2, 3},
      {"l3", 256, 256, 14, 1, 3}, {"l3_ds", 128, 256, 28, 2, 1}, {"l4_s2", 256, 512, 14, 2, 3},
      {"l4", 512, 512, 7, 1, 3},  {"l4_ds", 256, 512, 14, 2, 1},
  };
  // ResNet-50's other convs (torchvision's: the stride on the 3x3; the stem and layer1's 3x3 are ResNet-18's).
  const Layer resnet50[] = {
      {"l1_reduce", 256, 64, 56, 1, 1},  {"l1_expand", 64, 256, 56, 1, 1},   {"l2_s2", 128, 128, 56, 2, 3},
      {"l2_reduce", 512, 128, 28, 1, 1}, {"l2_expand", 128, 512, 28, 1, 1},  {"l2_ds", 256, 512, 56, 2, 1},
      {"l3_s2", 256, 256, 28, 2, 3},     {"l3_reduce", 1024, 256, 14, 1, 1}, {"l3_expand", 256, 1024, 14, 1, 1},
      {"l3_ds", 512, 1024, 28, 2, 1},    {"l4_s2", 512, 512, 14, 2, 3},      {"l4_reduce", 2048, 512, 7, 1, 1},
      {"l4_expand", 512, 2048, 7, 1, 1}, {"l4_ds", 1024, 2048, 14, 2, 1},
  };
  const auto add_layer = [](const std::string& net, const Layer& r, int64_t n) {
    const Shape xs{n, r.c, r.hw, r.hw}, ws{r.co, r.c, r.k, r.k};
    const ConvOptions o{{r.s}, {r.k / 2}, {}, {1}, 1};
    add_case(net + "/" + r.name + "_b" + std::to_string(n), [xs, ws, o](benchmark::State& st) {
      auto x = input<4>(xs);
      auto w = input<4>(ws);
      for (auto _ : st) {
        auto y = module::conv2d(x, w, std::nullopt, o);
        benchmark::DoNotOptimize(y);
      }
    });
  };
  for (int64_t n : {1, 8}) {
    for (const Layer& r : resnet) add_layer("conv2d_resnet18", r, n);
    for (const Layer& r : resnet50) add_layer("conv2d_resnet50", r, n);
  }
  for (const bool fused : {false, true})
    add_case(std::string(fused ? "conv2d_bias_relu_fused" : "conv2d_bias_relu") + "/n4_c64_56x56_k3_p1",
             [fused](benchmark::State& st) {
               const Device d = Device::get(fused ? "fusion<cpu>" : "cpu");  // loads libburn-fusion by name
               const ConvOptions o{{1}, {1}, {}, {1}, 1};
               auto x = input<4>({4, 64, 56, 56}).to_device(d);
               auto w = input<4>({64, 64, 3, 3}).to_device(d);
               auto b = input<1>({64}).to_device(d);
               d.sync();
               for (auto _ : st) {
                 auto y = module::conv2d(x, w, b, o).relu();
                 d.sync();
                 benchmark::DoNotOptimize(y);
               }
             });
  for (const ConvCase& c : cases) {
    add_case(std::string("conv2d/") + c.name, [c](benchmark::State& st) {
      auto x = input<4>(c.x);
      auto w = input<4>(c.w);
      auto b = input<1>({c.w[0]});
      for (auto _ : st) {
        auto y = module::conv2d(x, w, b, c.options);
        benchmark::DoNotOptimize(y);
      }
    });
    add_case(std::string("conv2d_fwd_bwd/") + c.name, [c](benchmark::State& st) {
      auto x = input<4>(c.x);
      auto w = input<4>(c.w);
      auto b = input<1>({c.w[0]});
      auto y0 = module::conv2d(x, w, b, c.options);
      auto gy = input<4>(y0.shape());
      for (auto _ : st) {
        auto y = module::conv2d(x, w, b, c.options);
        auto g = api::conv_backward(x.handle(), w.handle(), gy.handle(), c.options, ConvGradMask{});
        benchmark::DoNotOptimize(y);
        benchmark::DoNotOptimize(g);
      }
    });
  }
}

}  // namespace

int main(int argc, char** argv) { return burn::bench::run_main(argc, argv, register_cases); }
