// CPU comparison ops: tensor-tensor with NumPy broadcasting and tensor-scalar; results are Bool (u8 0/1).
#include <functional>
#include <string>
#include <type_traits>

#include "cpu_backend.hpp"
#include "cpu_tensor.hpp"
#include "elementwise.hpp"
#include "ops/elementwise_fns.hpp"

namespace burn::cpu {

namespace {

template <typename Cmp>
Prim compare(Prim lhs, Prim rhs, const char* op, Cmp cmp) {
  const DType dt = as_cpu(lhs, op)->dtype();
  require_same_dtype(dt, as_cpu(rhs, op)->dtype(), op);
  return dispatch<Dtypes::Computing>(dt, op, [&]<typename T>() {
    return binary_op<T, uint8_t>(std::move(lhs), std::move(rhs), DType::Bool, op,
                                 [cmp](T a, T b) { return static_cast<uint8_t>(cmp(a, b)); });
  });
}

template <typename Cmp>
Prim compare_elem(Prim x, const Scalar& s, const char* op, Cmp cmp) {
  const DType dt = as_cpu(x, op)->dtype();
  return dispatch<Dtypes::Computing>(dt, op, [&]<typename T>() {
    return with_elem_predicate<T>(s, cmp,
                                  [&](auto pred) { return unary_op<T, uint8_t>(std::move(x), DType::Bool, op, pred); });
  });
}

}  // namespace

Prim CpuBackend::equal(Prim lhs, Prim rhs) {
  return compare(std::move(lhs), std::move(rhs), "equal", std::equal_to<>{});
}
Prim CpuBackend::not_equal(Prim lhs, Prim rhs) {
  return compare(std::move(lhs), std::move(rhs), "not_equal", std::not_equal_to<>{});
}
Prim CpuBackend::greater(Prim lhs, Prim rhs) {
  return compare(std::move(lhs), std::move(rhs), "greater", std::greater<>{});
}
Prim CpuBackend::greater_equal(Prim lhs, Prim rhs) {
  return compare(std::move(lhs), std::move(rhs), "greater_equal", std::greater_equal<>{});
}
Prim CpuBackend::lower(Prim lhs, Prim rhs) { return compare(std::move(lhs), std::move(rhs), "lower", std::less<>{}); }
Prim CpuBackend::lower_equal(Prim lhs, Prim rhs) {
  return compare(std::move(lhs), std::move(rhs), "lower_equal", std::less_equal<>{});
}

Prim CpuBackend::equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(std::move(lhs), rhs, "equal_elem", std::equal_to<>{});
}
Prim CpuBackend::not_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(std::move(lhs), rhs, "not_equal_elem", std::not_equal_to<>{});
}
Prim CpuBackend::greater_elem(Prim lhs, Scalar rhs) {
  return compare_elem(std::move(lhs), rhs, "greater_elem", std::greater<>{});
}
Prim CpuBackend::greater_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(std::move(lhs), rhs, "greater_equal_elem", std::greater_equal<>{});
}
Prim CpuBackend::lower_elem(Prim lhs, Scalar rhs) {
  return compare_elem(std::move(lhs), rhs, "lower_elem", std::less<>{});
}
Prim CpuBackend::lower_equal_elem(Prim lhs, Scalar rhs) {
  return compare_elem(std::move(lhs), rhs, "lower_equal_elem", std::less_equal<>{});
}

}  // namespace burn::cpu
