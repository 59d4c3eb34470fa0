// What the client knows of an op's outputs before the server runs it: their shapes and dtypes from
// burn-tensor's shape rules, for the ops a training loop is made of, so those are sent without waiting.
// Any other op (or one whose rule refuses its arguments) asks the server for its outputs' metas. The
// server checks every prediction against what its backend produced, so a wrong one is an error, never
// a silently wrong shape.
#pragma once

#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "burn/tensor/op_kinds.hpp"
#include "burn/tensor/shape_rules.hpp"
#include "protocol.hpp"

namespace burn::remote::predict {

inline std::vector<Meta> one(Shape s, DType d) { return {Meta{true, std::move(s), d}}; }

template <OpId Op, typename Tuple>
std::optional<std::vector<Meta>> elementwise(const Tuple& t) {
  std::optional<Shape> shape;
  DType first = DType::F32, cast_to = DType::F32;
  bool any = false;
  std::apply(
      [&](const auto&... a) {
        auto visit = [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Prim>) {
            if (!x) return;
            if (!any) {
              shape = x->shape();
              first = x->dtype();
              any = true;
            } else if (shape) {
              shape = shape_rules::try_broadcast(*shape, x->shape());
            }
          } else if constexpr (std::is_same_v<T, DType>) {
            cast_to = x;
          }
        };
        (visit(a), ...);
      },
      t);
  if (!any || !shape) return std::nullopt;
  return one(std::move(*shape), elementwise_result_dtype(Op, first, cast_to));
}

// The metas of Op's outputs, or nullopt to ask the server. The rules may throw for arguments they
// refuse: that is nullopt too, and the server's backend then reports the error with its own message.
template <OpId Op, typename... A>
std::optional<std::vector<Meta>> outputs(const A&... args) {
  const auto t = std::forward_as_tuple(args...);
  // The first tensor; a template so that ops whose first parameter is no tensor never instantiate it.
  auto x = [&]<int N = 0>()->const Primitive& { return *std::get<N>(t); };
  try {
    if constexpr (is_elementwise(Op)) {
      return elementwise<Op>(t);
    } else if constexpr (Op == OpId::empty || Op == OpId::full) {
      return one(std::get<0>(t), std::get<sizeof...(A) - 1>(t));
    } else if constexpr (Op == OpId::random) {
      return one(std::get<0>(t), std::get<2>(t));
    } else if constexpr (Op == OpId::from_data) {
      return one(std::get<0>(t).shape(), std::get<0>(t).dtype());
    } else if constexpr (Op == OpId::matmul) {
      auto s = shape_rules::try_matmul(x().shape(), std::get<1>(t)->shape());
      if (!s || std::get<1>(t)->dtype() != x().dtype()) return std::nullopt;
      return one(std::move(*s), x().dtype());
    } else if constexpr (Op == OpId::reshape) {
      auto s = shape_rules::try_reshape(x().shape(), std::get<1>(t));
      if (!s) return std::nullopt;
      return one(std::move(*s), x().dtype());
    } else if constexpr (Op == OpId::permute) {
      return one(shape_rules::permute(x().shape(), std::get<1>(t)), x().dtype());
    } else if constexpr (Op == OpId::expand) {
      return one(shape_rules::expand(x().shape(), std::get<1>(t)), x().dtype());
    } else if constexpr (Op == OpId::flip) {
      return one(shape_rules::flip(x().shape(), std::get<1>(t)), x().dtype());
    } else if constexpr (Op == OpId::slice) {
      return one(shape_rules::slice(x().shape(), std::get<1>(t)), x().dtype());
    } else if constexpr (Op == OpId::slice_assign) {
      if (std::get<2>(t)->dtype() != x().dtype()) return std::nullopt;
      return one(shape_rules::slice_assign(x().shape(), std::get<1>(t), std::get<2>(t)->shape()), x().dtype());
    } else if constexpr (Op == OpId::repeat_dim) {
      return one(shape_rules::repeat_dim(x().shape(), std::get<1>(t), std::get<2>(t)), x().dtype());
    } else if constexpr (Op == OpId::gather) {
      return one(shape_rules::gather(x().shape(), std::get<1>(t), std::get<2>(t)->shape()), x().dtype());
    } else if constexpr (Op == OpId::select) {
      return one(shape_rules::select(x().shape(), std::get<1>(t), std::get<2>(t)->shape()), x().dtype());
    } else if constexpr (Op == OpId::scatter_add || Op == OpId::select_add) {
      // The backward of gather (a cross-entropy's) and of select: without them each training step
      // would wait for the server once more.
      if (!std::get<2>(t) || !std::get<3>(t) || std::get<3>(t)->dtype() != x().dtype()) return std::nullopt;
      const auto rule = Op == OpId::scatter_add ? shape_rules::scatter_add : shape_rules::select_add;
      return one(rule(x().shape(), std::get<1>(t), std::get<2>(t)->shape(), std::get<3>(t)->shape(), op_info(Op).name),
                 x().dtype());
    } else if constexpr (Op == OpId::sum_dim || Op == OpId::mean_dim || Op == OpId::prod_dim || Op == OpId::max_dim ||
                         Op == OpId::min_dim) {
      if (!is_float(x().dtype())) return std::nullopt;
      return one(shape_rules::reduce_dim(x().shape(), std::get<1>(t), Op != OpId::sum_dim && Op != OpId::prod_dim,
                                         op_info(Op).name),
                 x().dtype());
    } else if constexpr (Op == OpId::sum || Op == OpId::mean) {
      if (!is_float(x().dtype())) return std::nullopt;
      return one(shape_rules::reduce_all(x().shape(), Op == OpId::mean, op_info(Op).name), x().dtype());
    } else if constexpr (Op == OpId::softmax || Op == OpId::log_softmax) {
      return one(shape_rules::along_dim(x().shape(), std::get<1>(t), op_info(Op).name), x().dtype());
    } else if constexpr (Op == OpId::embedding) {
      return one(shape_rules::embedding(x().shape(), std::get<1>(t)->shape()), x().dtype());
    } else if constexpr (Op == OpId::layer_norm || Op == OpId::rms_norm) {
      return one(x().shape(), x().dtype());
    } else {
      return std::nullopt;
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace burn::remote::predict
