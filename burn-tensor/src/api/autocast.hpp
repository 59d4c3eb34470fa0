// The tensor API's autocast hook (burn/tensor/autocast.hpp): the api functions of the listed ops call
// autocast() on their float operands before checking them. Private to burn-tensor's api/*.cpp.
#pragma once

#include <initializer_list>

#include "burn/tensor/api.hpp"
#include "burn/tensor/autocast.hpp"

namespace burn::api::detail {

// Casts the operands (null handles and non-float ones are left alone) as the policy in force says for
// `op`; nothing outside an AutocastGuard.
void autocast_operands(OpId op, std::initializer_list<H*> operands);

inline void autocast(OpId op, std::initializer_list<H*> operands) {
  if (autocast_policy()) autocast_operands(op, operands);
}

}  // namespace burn::api::detail
