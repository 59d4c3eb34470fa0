// The umbrella header of burn-tensor: Tensor<D, K>, Device, TensorData, errors and the plugin host.
#pragma once

#include "burn/tensor/api.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/device.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/linalg.hpp"
#include "burn/tensor/module.hpp"
#include "burn/tensor/plugin.hpp"
#include "burn/tensor/quant.hpp"
#include "burn/tensor/signal.hpp"
#include "burn/tensor/tensor.hpp"
