// burn::nn::loss: the losses (Burn's burn::nn::loss), checked against PyTorch's. Each family has its
// header under burn/nn/loss/.
#pragma once

#include "burn/nn/loss/classification.hpp"
#include "burn/nn/loss/ctc.hpp"
#include "burn/nn/loss/embedding.hpp"
#include "burn/nn/loss/reduction.hpp"
#include "burn/nn/loss/regression.hpp"
