// burn-conformance: the calls of the numeric (arithmetic, scalars, powers, clamps, matmul) group.
#include "call_helpers.hpp"

namespace burn::conformance {

void add_numeric_calls(CallTable& t) {
  t["add"] = BINARY_CALL(add);
  t["sub"] = BINARY_CALL(sub);
  t["mul"] = BINARY_CALL(mul);
  t["div"] = BINARY_CALL(div);
  t["remainder"] = BINARY_CALL(remainder);
  t["fmod"] = BINARY_CALL(fmod);
  t["fmod_scalar"] = SCALAR_CALL(fmod_scalar);
  t["powf"] = BINARY_CALL(powf);
  t["powi"] = BINARY_CALL(powi);
  t["maximum"] = BINARY_CALL(maximum);
  t["minimum"] = BINARY_CALL(minimum);
  t["matmul"] = BINARY_CALL(matmul);
  t["add_scalar"] = SCALAR_CALL(add_scalar);
  t["sub_scalar"] = SCALAR_CALL(sub_scalar);
  t["rsub_scalar"] = SCALAR_CALL(rsub_scalar);
  t["mul_scalar"] = SCALAR_CALL(mul_scalar);
  t["div_scalar"] = SCALAR_CALL(div_scalar);
  t["rdiv_scalar"] = SCALAR_CALL(rdiv_scalar);
  t["remainder_scalar"] = SCALAR_CALL(remainder_scalar);
  t["powf_scalar"] = SCALAR_CALL(powf_scalar);
  t["powi_scalar"] = UNARY_CALL(powi_scalar, i64(a, "exponent"));
  t["clamp"] = UNARY_CALL(clamp, scalar(a, "min"), scalar(a, "max"));
  t["clamp_min"] = UNARY_CALL(clamp_min, scalar(a, "min"));
  t["clamp_max"] = UNARY_CALL(clamp_max, scalar(a, "max"));
  t["einsum"] = [](const Device&, Hs& in, const json& a) {
    return one(api::einsum(a.at("equation").get<std::string>(), in));
  };
  t["cross"] = [](const Device&, Hs& in, const json& a) {
    return one(api::cross(std::move(in.at(0)), in.at(1), i64(a, "dim")));
  };
  t["dot"] = BINARY_CALL(dot);
}

}  // namespace burn::conformance
