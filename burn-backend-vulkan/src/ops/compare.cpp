// Comparisons give bool tensors. An int tensor against a float scalar compares exactly, as the cpu
// backend does in double: the scalar is rounded to the int that keeps the answer (x > 2.5 is x > 2,
// x >= 2.5 is x >= 3), and a scalar beyond int64 or NaN gives a constant answer.
#include <cmath>
#include <optional>

#include "ops/elementwise.hpp"

namespace burn::vulkan {

namespace {

Prim compare_elem(const VulkanBackend& be, OpId op, Prim x, Scalar s) {
  if (!x || !is_int(x->dtype()) || s.kind != Scalar::Kind::Float) return elementwise(be, op, {std::move(x)}, s);
  bool constant = false;
  if (const std::optional<int64_t> v = int_compare_scalar(op, s.f, constant))
    return elementwise(be, op, {std::move(x)}, Scalar(*v));
  // x == x is true for ints; its negation is false: the constant in x's shape, on the device.
  Prim all = elementwise(be, OpId::equal, {x, x});
  return constant ? all : elementwise(be, OpId::bool_not, {std::move(all)});
}

}  // namespace

std::optional<int64_t> int_compare_scalar(OpId op, double c, bool& constant) {
  constexpr double kTop = 9223372036854775808.0;  // 2^63
  const bool eq = op == OpId::equal_elem, ne = op == OpId::not_equal_elem;
  const bool gt = op == OpId::greater_elem || op == OpId::greater_equal_elem;
  if (std::isnan(c)) {
    constant = ne;
    return std::nullopt;
  }
  if (c >= kTop) {
    constant = !gt && !eq;  // every int is below c
    return std::nullopt;
  }
  if (c < -kTop) {
    constant = gt || ne;  // every int is above c
    return std::nullopt;
  }
  if ((eq || ne) && c != std::floor(c)) {
    constant = ne;
    return std::nullopt;
  }
  switch (op) {
    case OpId::greater_elem:
    case OpId::lower_equal_elem: return static_cast<int64_t>(std::floor(c));
    case OpId::greater_equal_elem:
    case OpId::lower_elem: return static_cast<int64_t>(std::ceil(c));
    default: return static_cast<int64_t>(c);
  }
}

#define BURN_VK_COMPARE(name)                                                \
  Prim VulkanBackend::name(Prim lhs, Prim rhs) {                             \
    return elementwise(*this, OpId::name, {std::move(lhs), std::move(rhs)}); \
  }
#define BURN_VK_COMPARE_ELEM(name) \
  Prim VulkanBackend::name(Prim lhs, Scalar rhs) { return compare_elem(*this, OpId::name, std::move(lhs), rhs); }

BURN_VK_COMPARE(equal)
BURN_VK_COMPARE(not_equal)
BURN_VK_COMPARE(greater)
BURN_VK_COMPARE(greater_equal)
BURN_VK_COMPARE(lower)
BURN_VK_COMPARE(lower_equal)
BURN_VK_COMPARE_ELEM(equal_elem)
BURN_VK_COMPARE_ELEM(not_equal_elem)
BURN_VK_COMPARE_ELEM(greater_elem)
BURN_VK_COMPARE_ELEM(greater_equal_elem)
BURN_VK_COMPARE_ELEM(lower_elem)
BURN_VK_COMPARE_ELEM(lower_equal_elem)

}  // namespace burn::vulkan
