// UnwrapBackend: every op of the table forwarded to the inner backend on unwrapped primitives.
#include <type_traits>
#include <utility>

#include "autodiff_backend.hpp"
#include "burn/tensor/error.hpp"

namespace burn::autodiff {
namespace {

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

// Checks that every primitive is ours (so tracked() may read it), then whether a gradient flows in.
template <typename... A>
bool any_tracked_arg(OpId op, const A&... args) {
  (check_arg(args, op), ...);
  return (is_tracked_arg(args) || ...) && grad_enabled();
}

// A tracked input reached an op that has no rule of its own: refuse rather than drop the gradient.
[[noreturn]] void no_rule(OpId op) {
  const OpInfo& info = op_info(op);
  throw Unsupported(info.name,
                    info.grad == OpGrad::Backward
                        ? "second-order gradients through this module backward op are not supported"
                        : "autodiff has no backward for this op; detach its input or run it under NoGradGuard");
}

template <typename F, typename... A>
auto passthrough(Backend& inner, F&& call, A&&... args) {
  return wrap_result(call(inner, unwrap_arg(std::forward<A>(args))...));
}

}  // namespace

// A tracked input: NOGRAD ops give untracked results; a DEFAULT op with no rule of its own runs its
// composite body on this backend, so its gradient comes from the recorded core ops; anything else is
// refused.
#define BURN_AD_TRACKED_CORE_GRAD(name, ...) no_rule(OpId::name);
#define BURN_AD_TRACKED_CORE_BACKWARD(name, ...) no_rule(OpId::name);
#define BURN_AD_TRACKED_DEFAULT_GRAD(name, ...) return Backend::name BURN_OP_ARGS(__VA_ARGS__);
#define BURN_AD_TRACKED_DEFAULT_BACKWARD(name, ...) no_rule(OpId::name);
#define BURN_AD_TRACKED_CORE_NOGRAD(name, ...)
#define BURN_AD_TRACKED_DEFAULT_NOGRAD(name, ...)
#define BURN_AD_PASS(group, name, tier, grad, bound, ret, ...)                                     \
  ret UnwrapBackend::name BURN_OP_PARAMS(__VA_ARGS__) {                                            \
    if (any_tracked_arg(OpId::name, BURN_PP_MAP(BURN_PP_NAME, __VA_ARGS__))) {                     \
      BURN_AD_TRACKED_##tier##_##grad(name, __VA_ARGS__)                                           \
    }                                                                                              \
    return passthrough(                                                                            \
        *inner(), [](Backend& b, auto&&... a) { return b.name(std::forward<decltype(a)>(a)...); }, \
        BURN_OP_ARG_LIST(__VA_ARGS__));                                                            \
  }
BURN_OP_TABLE(BURN_AD_PASS)
#undef BURN_AD_PASS

}  // namespace burn::autodiff
