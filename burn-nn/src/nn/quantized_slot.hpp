// Where a layer keeps the quantized form of one of its parameters, found by the layer's type (the walkers hand
// modules as ModuleInfo): records save it in the parameter's place (module.cpp), quantize_dynamic fills it.
#pragma once

#include <optional>
#include <string_view>

#include "burn/nn/module.hpp"
#include "burn/tensor/quant.hpp"

namespace burn::nn::detail {

// Linear's quantized_weight for "weight"; nullptr for every other layer and parameter. The walkers hand
// modules as const; the caller owns the module it walks.
std::optional<QTensor>* quantized_slot(const ModuleInfo& info, std::string_view param);

}  // namespace burn::nn::detail
