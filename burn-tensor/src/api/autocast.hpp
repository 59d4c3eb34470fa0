// The tensor API's autocast hook (burn/tensor/autocast.hpp): the api functions of the listed ops call
// autocast() on their float operands before checking them. Private to burn-tensor's api/*.cpp.
#pragma once

#include <initializer_list>
#include <optional>
#include <type_traits>

#include "burn/tensor/api.hpp"
#include "burn/tensor/autocast.hpp"

namespace burn::api::detail {

// Casts the operands (null handles and non-float ones are left alone) as the policy in force says for
// `op`; nothing outside an AutocastGuard.
void autocast_operands(OpId op, std::initializer_list<H*> operands);

inline void autocast(OpId op, std::initializer_list<H*> operands) {
  if (autocast_policy()) autocast_operands(op, operands);
}

// An operand the api function takes by const reference (T: H or OptH), as autocast leaves it: outside an
// AutocastGuard the caller's handle itself, no copy; inside one a copy, which autocast() casts through
// slot(): `CastArg b(b0); autocast(op, {&a, b.slot()}); ... *b ...`.
template <typename T>
class CastArg {
 public:
  explicit CastArg(const T& h) : ref_(&h) {
    if (autocast_policy()) ref_ = &copy_.emplace(h);
  }
  CastArg(const CastArg&) = delete;
  CastArg& operator=(const CastArg&) = delete;
  const T& operator*() const { return *ref_; }
  const T* operator->() const { return ref_; }
  // The copy's tensor for autocast() to cast in place; null outside a guard and for an absent OptH.
  H* slot() {
    if (!copy_) return nullptr;
    if constexpr (std::is_same_v<T, H>) {
      return &*copy_;
    } else {
      return *copy_ ? &**copy_ : nullptr;
    }
  }

 private:
  std::optional<T> copy_;
  const T* ref_;
};

}  // namespace burn::api::detail
