// UnwrapBackend: every op of the table forwarded to the inner backend on unwrapped primitives.
#include <type_traits>
#include <utility>

#include "autodiff_backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn::autodiff {
namespace {

// Ops with no gradient (integer or bool results, creation), which take tracked inputs and give
// untracked results, as PyTorch and Burn do. Rounding ops are tracked with a zero gradient instead.
bool non_differentiable(OpId op) {
  switch (op) {
    case OpId::empty: case OpId::full: case OpId::from_data: case OpId::into_data: case OpId::random:
    case OpId::arange: case OpId::argwhere: case OpId::equal: case OpId::greater: case OpId::greater_equal:
    case OpId::not_equal: case OpId::lower: case OpId::lower_equal: case OpId::equal_elem:
    case OpId::not_equal_elem: case OpId::greater_elem: case OpId::greater_equal_elem: case OpId::lower_elem:
    case OpId::lower_equal_elem: case OpId::bool_not: case OpId::bool_and: case OpId::bool_or:
    case OpId::bool_xor: case OpId::argmax: case OpId::argmin: case OpId::any: case OpId::any_dim:
    case OpId::all: case OpId::all_dim: case OpId::argsort: case OpId::is_nan: case OpId::is_inf:
    case OpId::is_finite:
      return true;
    default:
      return false;
  }
}

template <typename T>
bool is_tracked_arg(const T& a) {
  if constexpr (std::is_same_v<std::decay_t<T>, Prim>) {
    return a && tracked(a);
  } else if constexpr (std::is_same_v<std::decay_t<T>, Prims>) {
    for (const Prim& p : a)
      if (p && tracked(p)) return true;
    return false;
  } else {
    return false;
  }
}

// Checks that every primitive argument is ours, so that tracked() may read it.
template <typename T>
void check_arg(const T& a, OpId op) {
  if constexpr (std::is_same_v<std::decay_t<T>, Prim>) {
    if (a) ad_prim(a, op_info(op).name);
  } else if constexpr (std::is_same_v<std::decay_t<T>, Prims>) {
    for (const Prim& p : a)
      if (p) ad_prim(p, op_info(op).name);
  }
}

template <typename T>
decltype(auto) unwrap_arg(T&& a) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, Prim>) {
    if (!a) return Prim();
    const bool sole = std::is_rvalue_reference_v<T&&> && a.use_count() == 1;
    return static_cast<AdPrim&>(*a).take_inner(sole);
  } else if constexpr (std::is_same_v<D, Prims>) {
    Prims out;
    out.reserve(a.size());
    for (const Prim& p : a) out.push_back(p ? static_cast<AdPrim&>(*p).inner() : nullptr);
    return out;
  } else {
    return std::forward<T>(a);
  }
}

Prim wrap_result(Prim p) { return wrap(std::move(p)); }
PrimPair wrap_result(PrimPair p) { return {wrap(std::move(p.first)), wrap(std::move(p.second))}; }
Prims wrap_result(Prims ps) {
  for (Prim& p : ps) p = wrap(std::move(p));
  return ps;
}
TensorData wrap_result(TensorData d) { return d; }

template <typename F, typename... A>
auto passthrough(Backend& inner, OpId op, F&& call, A&&... args) {
  (check_arg(args, op), ...);
  if ((is_tracked_arg(args) || ...) && grad_enabled() && !non_differentiable(op)) {
    const std::string name = op_info(op).name;
    const bool is_backward_op = name.size() > 9 && name.ends_with("_backward");
    throw Unsupported(name, is_backward_op
                                ? "second-order gradients through this module backward op are not supported"
                                : "autodiff has no backward for this op; detach its input or run it under NoGradGuard");
  }
  return wrap_result(call(inner, unwrap_arg(std::forward<A>(args))...));
}

}  // namespace

#define BURN_AD_UNPAREN(...) __VA_ARGS__
#define BURN_AD_PASS(group, name, ret, params, args, tier)                                            \
  ret UnwrapBackend::name params {                                                                    \
    return passthrough(                                                                               \
        *inner(), OpId::name, [](Backend& b, auto&&... a) { return b.name(std::forward<decltype(a)>(a)...); }, \
        BURN_AD_UNPAREN args);                                                                        \
  }
BURN_OP_TABLE(BURN_AD_PASS)
#undef BURN_AD_PASS
#undef BURN_AD_UNPAREN

}  // namespace burn::autodiff
