// How a loss folds its per-element values into one (Burn's Reduction, plus PyTorch's batchmean).
#pragma once

#include <optional>

#include "burn/nn/config.hpp"
#include "burn/nn/export.hpp"
#include "burn/tensor.hpp"

namespace burn::nn::loss {

// Mean and Auto average every element (Auto is Burn's default, a mean); Sum adds them. BatchMean
// (KL divergence only, torch's "batchmean") is the sum divided by the batch size (dim 0). Each loss
// also has forward_no_reduction: PyTorch's reduction="none".
enum class Reduction { Mean, Sum, Auto, BatchMean };

namespace detail {
using Red = std::optional<Reduction>;  // nullopt: no reduction
}

}  // namespace burn::nn::loss
