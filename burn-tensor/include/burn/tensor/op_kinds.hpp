// Which rows of the op table are elementwise over broadcast operands, and the dtype such an op gives,
// derived from the table's bound, group and signature columns: the one classification by which the
// fusion decorator records ops and the remote decorator predicts their outputs.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "burn/tensor/backend.hpp"

namespace burn {

namespace op_kinds_detail {

template <typename T>
constexpr bool kElementwiseParam =
    std::is_same_v<T, Prim> || std::is_same_v<T, Scalar> || std::is_same_v<T, double> || std::is_same_v<T, DType>;

// A Prim result of tensors, scalars, doubles and a cast target, with at least one tensor.
template <typename Ret, typename... P>
constexpr bool elementwise_signature() {
  return std::is_same_v<Ret, Prim> && (kElementwiseParam<P> && ...) && (std::is_same_v<P, Prim> || ...);
}

// Groups whose ops are elementwise over broadcast operands; the other groups' rows with such a signature
// are the masks (mask_where/mask_fill) and cast. Reductions (sum(Prim x)) and argwhere share the
// signature but not the semantics, hence the group test.
constexpr bool elementwise_group(OpGroup g, OpId op) {
  switch (g) {
    case OpGroup::numeric:
    case OpGroup::compare:
    case OpGroup::boolean:
    case OpGroup::bitwise:
    case OpGroup::float_math:
    case OpGroup::activation: return true;
    default: return op == OpId::mask_where || op == OpId::mask_fill || op == OpId::cast;
  }
}

constexpr OpBound MEMORY = OpBound::Memory, COMPUTE = OpBound::Compute;
// Memory-bound, an elementwise group, tensors and scalars in, one tensor out (which leaves out softmax's
// dim, matmul's compute bound, the reductions).
#define BURN_OP_KIND_ELEMENTWISE(group, name, tier, grad, bound, ret, ...) \
  (bound == MEMORY && elementwise_group(OpGroup::group, OpId::name) &&     \
   elementwise_signature<ret, BURN_PP_MAP(BURN_PP_TYPE, __VA_ARGS__)>()),
inline constexpr std::array<bool, kOpCount> kElementwise = {BURN_OP_TABLE(BURN_OP_KIND_ELEMENTWISE)};
#undef BURN_OP_KIND_ELEMENTWISE

#define BURN_OP_KIND_GROUP(group, name, ...) OpGroup::group,
inline constexpr std::array<OpGroup, kOpCount> kGroup = {BURN_OP_TABLE(BURN_OP_KIND_GROUP)};
#undef BURN_OP_KIND_GROUP

}  // namespace op_kinds_detail

// Whether `op` is elementwise over broadcast operands (add, exp, relu, greater_elem, mask_where, cast, ...).
constexpr bool is_elementwise(OpId op) { return op_kinds_detail::kElementwise[static_cast<size_t>(op)]; }

static_assert(is_elementwise(OpId::add) && is_elementwise(OpId::exp) && is_elementwise(OpId::relu) &&
              is_elementwise(OpId::mask_where) && is_elementwise(OpId::mask_fill) && is_elementwise(OpId::cast) &&
              is_elementwise(OpId::greater_elem) && is_elementwise(OpId::bool_and));
static_assert(!is_elementwise(OpId::matmul) && !is_elementwise(OpId::sum) && !is_elementwise(OpId::softmax) &&
              !is_elementwise(OpId::argwhere) && !is_elementwise(OpId::reshape) && !is_elementwise(OpId::into_data));

// The output dtype of an elementwise op whose first tensor has dtype `first`: comparisons, boolean ops and
// the float predicates give Bool, cast its target `cast_to`, the rest `first`.
constexpr DType elementwise_result_dtype(OpId op, DType first, DType cast_to) {
  if (op == OpId::cast) return cast_to;
  const OpGroup g = op_kinds_detail::kGroup[static_cast<size_t>(op)];
  if (g == OpGroup::compare || g == OpGroup::boolean) return DType::Bool;
  if (op == OpId::is_nan || op == OpId::is_inf || op == OpId::is_finite) return DType::Bool;
  return first;
}

}  // namespace burn
