// Dynamic quantization of a module (torch.ao.quantization.quantize_dynamic): every Linear whose path the filter
// accepts gets its weight quantized (Linear::quantized_weight); its forward then quantizes each input row to u8 on
// the fly and runs the int8 op quantized_linear (burn/tensor/quant.hpp). Inference only.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "burn/nn/linear.hpp"
#include "burn/nn/module.hpp"

namespace burn::nn {

// Which layers to quantize, by parameter path prefix ("fc1", "blocks.0.ffn.linear_inner"); empty: every Linear.
using QuantPathFilter = std::function<bool(std::string_view path)>;

namespace detail {
// Quantizes the accepted Linear layers of `m` in place; returns their paths.
BURN_NN_API std::vector<std::string> quantize_dynamic(ModuleRef m, const QuantScheme& scheme,
                                                      const QuantPathFilter& filter);
}  // namespace detail

// A copy of `m` whose accepted Linear layers run on int8 weights. The default scheme is q8 symmetric per output
// channel, the weight's axis 1 ([d_input, d_output]). The weights are quantized on the device their parameters
// are on, with autodiff layers removed (valid_device). A scheme the integer op does not take (q4, per block)
// is kept and run by dequantizing the weight.
template <detail::Module M>
M quantize_dynamic(M m, const QuantScheme& scheme = QuantScheme::per_channel(1), const QuantPathFilter& filter = {}) {
  detail::quantize_dynamic(m, scheme, filter);
  return m;
}

}  // namespace burn::nn
