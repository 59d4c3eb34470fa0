// The IR's runtime side: running one recorded op on the inner backend, generated
// from the op table.
#include "ir.hpp"

#include <tuple>
#include <utility>

#include "burn/tensor/error.hpp"

namespace burn::fusion::ir {

namespace {

// The recorded argument of type P: the next tensor, scalar or double, or the cast target.
template <typename P>
P next_arg(const PendingOp& op, Prims& in, size_t& pi, size_t& si, size_t& di) {
  if constexpr (std::is_same_v<P, Prim>)
    return std::move(in[pi++]);
  else if constexpr (std::is_same_v<P, Scalar>)
    return op.scalars[si++];
  else if constexpr (std::is_same_v<P, double>)
    return op.params[di++];
  else
    return op.param_dtype;
}

template <bool Fusable, typename... P>
Prim invoke(Backend& b, Prim (Backend::*fn)(P...), const PendingOp& op, Prims& in) {
  if constexpr (Fusable) {
    size_t pi = 0, si = 0, di = 0;
    // A braced list evaluates left to right, so the arguments are taken in parameter order.
    std::tuple<P...> args{next_arg<P>(op, in, pi, si, di)...};
    return std::apply([&](auto&&... a) { return (b.*fn)(std::move(a)...); }, std::move(args));
  } else {
    throw Error(op_info(op.op).name, "internal: not an op the fusion stream records");
  }
}

template <bool Fusable, typename R, typename... P>
Prim invoke(Backend&, R (Backend::*)(P...), const PendingOp& op, Prims&) {
  throw Error(op_info(op.op).name, "internal: not an op the fusion stream records");
}

}  // namespace

// The switch in run_one names every reducible op.
constexpr size_t count_reducible() {
  size_t c = 0;
  for (size_t i = 0; i < kOpCount; ++i) c += reducible(static_cast<OpId>(i));
  return c;
}
static_assert(count_reducible() == 10, "run_one: a reducible op without its case");

Prim run_one(Backend& inner, const PendingOp& op, Prims inputs) {
  switch (op.op) {
    case OpId::sum_dim: return inner.sum_dim(std::move(inputs[0]), op.dim);
    case OpId::mean_dim: return inner.mean_dim(std::move(inputs[0]), op.dim);
    case OpId::max_dim: return inner.max_dim(std::move(inputs[0]), op.dim);
    case OpId::min_dim: return inner.min_dim(std::move(inputs[0]), op.dim);
    case OpId::argmax: return inner.argmax(std::move(inputs[0]), op.dim);
    case OpId::argmin: return inner.argmin(std::move(inputs[0]), op.dim);
    case OpId::softmax: return inner.softmax(std::move(inputs[0]), op.dim);
    case OpId::log_softmax: return inner.log_softmax(std::move(inputs[0]), op.dim);
    case OpId::layer_norm:
      return inner.layer_norm(std::move(inputs[0]), std::move(inputs[1]), std::move(inputs[2]), op.dim, op.params[0]);
    case OpId::rms_norm: return inner.rms_norm(std::move(inputs[0]), std::move(inputs[1]), op.dim, op.params[0]);
    case OpId::reshape: return inner.reshape(std::move(inputs[0]), op.shape);
    case OpId::matmul: return inner.matmul(std::move(inputs[0]), std::move(inputs[1]));
    case OpId::conv: return inner.conv(std::move(inputs[0]), std::move(inputs[1]), std::move(inputs[2]), *op.conv);
    case OpId::conv_transpose:
      return inner.conv_transpose(std::move(inputs[0]), std::move(inputs[1]), std::move(inputs[2]), *op.conv_transpose);
    default: break;
  }
  switch (op.op) {
#define BURN_FUSION_RUN(group, name, ...) \
  case OpId::name: return invoke<fusable(OpId::name)>(inner, &Backend::name, op, inputs);
    BURN_OP_TABLE(BURN_FUSION_RUN)
#undef BURN_FUSION_RUN
  }
  throw Error("fusion", "internal: unknown op id");
}

}  // namespace burn::fusion::ir
