// Calls a table op by its OpId when its signature is R(A...), generated from the op table, so the
// api functions that take an OpId (unary, reduce_dim, compare, ...) need no hand-written switch.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include "burn/tensor/backend.hpp"

namespace burn::api::detail {

// Fn's result when its signature is R(A...); nothing otherwise. A template, so that the call of an
// op with another signature is never formed.
template <auto Fn, typename R, typename... A>
std::optional<R> call_if_signature(Backend& b, A&&... a) {
  if constexpr (std::is_same_v<decltype(Fn), R (Backend::*)(A...)>)
    return (b.*Fn)(std::forward<A>(a)...);
  else
    return std::nullopt;
}

// op(args) when op's signature is R(A...); nothing when it has another signature.
template <typename R, typename... A>
std::optional<R> dispatch(Backend& b, OpId op, A... a) {
  switch (op) {
#define BURN_X_DISPATCH(group, name, ...) \
  case OpId::name: return call_if_signature<&Backend::name, R, A...>(b, std::move(a)...);
    BURN_OP_TABLE(BURN_X_DISPATCH)
#undef BURN_X_DISPATCH
  }
  return std::nullopt;
}

}  // namespace burn::api::detail
