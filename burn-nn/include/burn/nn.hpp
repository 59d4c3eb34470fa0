// burn::nn: modules, parameters, configs, initializers, layers.
#pragma once

#include "burn/nn/attention.hpp"
#include "burn/nn/dropout.hpp"
#include "burn/nn/embedding.hpp"
#include "burn/nn/init.hpp"
#include "burn/nn/linear.hpp"
#include "burn/nn/module.hpp"
#include "burn/nn/param.hpp"
#include "burn/nn/positional.hpp"
#include "burn/nn/rnn.hpp"
#include "burn/nn/sequential.hpp"
#include "burn/nn/transformer.hpp"
