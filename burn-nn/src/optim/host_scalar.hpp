// The one element of a tensor read back to the host as a double, for the optimizers' host-side decisions
// (clipping norms, L-BFGS line search, the loss scaler's finite check).
#pragma once

#include "burn/tensor/api.hpp"

namespace burn::optim::detail {

inline double host_scalar(const TensorHandle& h) {
  return api::into_data(h).convert(DType::F64).to_vec<double>().at(0);
}

}  // namespace burn::optim::detail
