// burn::optim: optimizers, gradient clipping and accumulation, LR schedulers.
#pragma once

#include "burn/optim/clipping.hpp"
#include "burn/optim/grads.hpp"
#include "burn/optim/lr.hpp"
#include "burn/optim/optimizer.hpp"
#include "burn/optim/optimizers.hpp"
