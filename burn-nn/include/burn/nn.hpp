// burn::nn: modules, parameters, configs, initializers, layers.
#pragma once

#include "burn/nn/activation.hpp"
#include "burn/nn/conv.hpp"
#include "burn/nn/distance.hpp"
#include "burn/nn/dropout.hpp"
#include "burn/nn/embedding.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/linear.hpp"
#include "burn/nn/module.hpp"
#include "burn/nn/norm.hpp"
#include "burn/nn/param.hpp"
#include "burn/nn/pool.hpp"
#include "burn/nn/resample.hpp"
