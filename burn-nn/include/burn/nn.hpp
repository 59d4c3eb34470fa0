// burn::nn: modules, parameters, configs, initializers, layers.
#pragma once

#include "burn/nn/dropout.hpp"
#include "burn/nn/embedding.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/linear.hpp"
#include "burn/nn/loss.hpp"
#include "burn/nn/module.hpp"
#include "burn/nn/param.hpp"
