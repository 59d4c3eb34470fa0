// Emitters of the elementwise families: numeric, compare, boolean, float math, activations and cast.
// A scalar operand becomes a rank-0 initializer of the tensor's dtype (ONNX broadcasts it); an
// activation ONNX 17 lacks (gelu, silu, mish) is written as its formula.
#include <cmath>

#include "emit.hpp"

namespace burn::onnx_export {
namespace {

void unary(Emit& e, const char* type) { e.node(type, {e.in(0)}, {e.out()}); }
void binary(Emit& e, const char* type) { e.node(type, {e.in(0), e.in(1)}, {e.out()}); }
std::string scalar(Emit& e, size_t i, double v) { return e.const_scalar(Scalar(v), e.dtype(i)); }
void with_scalar(Emit& e, const char* type) {
  e.node(type, {e.in(0), e.const_scalar(e.arg<Scalar>(1), e.dtype(0))}, {e.out()});
}

// A chain of nodes ending in the op's output: each step takes the previous value.
struct Chain {
  Emit& e;
  std::string cur;
  std::string step(const std::string& type, std::vector<std::string> more = {}, bool last = false) {
    std::vector<std::string> ins{cur};
    ins.insert(ins.end(), more.begin(), more.end());
    cur = last ? e.out() : e.tmp();
    e.node(type, ins, {cur});
    return cur;
  }
};

void gelu(Emit& e) {  // x * 0.5 * (1 + erf(x / sqrt 2))
  Chain c{e, e.in(0)};
  c.step("Div", {scalar(e, 0, std::sqrt(2.0))});
  c.step("Erf");
  c.step("Add", {scalar(e, 0, 1.0)});
  c.step("Mul", {e.in(0)});
  c.step("Mul", {scalar(e, 0, 0.5)}, true);
}

void gelu_tanh(Emit& e) {  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  Chain c{e, e.in(0)};
  c.step("Pow", {scalar(e, 0, 3.0)});
  c.step("Mul", {scalar(e, 0, 0.044715)});
  c.step("Add", {e.in(0)});
  c.step("Mul", {scalar(e, 0, std::sqrt(2.0 / M_PI))});
  c.step("Tanh");
  c.step("Add", {scalar(e, 0, 1.0)});
  c.step("Mul", {e.in(0)});
  c.step("Mul", {scalar(e, 0, 0.5)}, true);
}

void silu(Emit& e) {
  Chain c{e, e.in(0)};
  c.step("Sigmoid");
  c.step("Mul", {e.in(0)}, true);
}

void mish(Emit& e) {
  Chain c{e, e.in(0)};
  c.step("Softplus");
  c.step("Tanh");
  c.step("Mul", {e.in(0)}, true);
}

void softplus(Emit& e) {  // (1/beta) log(1 + exp(beta x)); beyond the threshold it is x to float precision
  const double beta = e.arg<double>(1);
  if (beta == 1.0) return unary(e, "Softplus");
  Chain c{e, e.in(0)};
  c.step("Mul", {scalar(e, 0, beta)});
  c.step("Softplus");
  c.step("Div", {scalar(e, 0, beta)}, true);
}

void log_sigmoid(Emit& e) {  // -softplus(-x)
  Chain c{e, e.in(0)};
  c.step("Neg");
  c.step("Softplus");
  c.step("Neg", {}, true);
}

void log1p(Emit& e) {
  Chain c{e, e.in(0)};
  c.step("Add", {scalar(e, 0, 1.0)});
  c.step("Log", {}, true);
}

void with_alpha(Emit& e, const char* type) { set_attr(e.node(type, {e.in(0)}, {e.out()}), "alpha", e.arg<double>(1)); }

void softmax(Emit& e, const char* type) { set_attr(e.node(type, {e.in(0)}, {e.out()}), "axis", e.int_arg(1)); }

void clamp(Emit& e, bool lo, bool hi) {
  const std::string none;
  std::string min = lo ? e.const_scalar(e.arg<Scalar>(1), e.dtype(0)) : none;
  std::string max = hi ? e.const_scalar(e.arg<Scalar>(lo ? 2 : 1), e.dtype(0)) : none;
  e.node("Clip", {e.in(0), min, max}, {e.out()});
}

void negated(Emit& e, const char* type, bool with_scalar_rhs) {
  const std::string t = e.tmp();
  e.node(type, {e.in(0), with_scalar_rhs ? e.const_scalar(e.arg<Scalar>(1), e.dtype(0)) : e.in(1)}, {t});
  e.node("Not", {t}, {e.out()});
}

}  // namespace

void register_elementwise(EmitTable& t) {
  auto set = [&](OpId op, EmitFn fn) { t[static_cast<size_t>(op)] = fn; };
  using O = OpId;
  // numeric
  set(O::add, [](Emit& e) { binary(e, "Add"); });
  set(O::sub, [](Emit& e) { binary(e, "Sub"); });
  set(O::mul, [](Emit& e) { binary(e, "Mul"); });
  set(O::div, [](Emit& e) {
    if (!is_float(e.dtype(0))) e.unsupported("integer div (burn floors, ONNX Div truncates)");
    binary(e, "Div");
  });
  set(O::powf, [](Emit& e) { binary(e, "Pow"); });
  set(O::maximum, [](Emit& e) { binary(e, "Max"); });
  set(O::minimum, [](Emit& e) { binary(e, "Min"); });
  set(O::add_scalar, [](Emit& e) { with_scalar(e, "Add"); });
  set(O::sub_scalar, [](Emit& e) { with_scalar(e, "Sub"); });
  set(O::mul_scalar, [](Emit& e) { with_scalar(e, "Mul"); });
  set(O::div_scalar, [](Emit& e) {
    if (!is_float(e.dtype(0))) e.unsupported("integer div_scalar (burn floors, ONNX Div truncates)");
    with_scalar(e, "Div");
  });
  set(O::powf_scalar, [](Emit& e) { with_scalar(e, "Pow"); });
  set(O::neg, [](Emit& e) { unary(e, "Neg"); });
  set(O::abs, [](Emit& e) { unary(e, "Abs"); });
  set(O::sign, [](Emit& e) { unary(e, "Sign"); });
  set(O::clamp, [](Emit& e) { clamp(e, true, true); });
  set(O::clamp_min, [](Emit& e) { clamp(e, true, false); });
  set(O::clamp_max, [](Emit& e) { clamp(e, false, true); });
  // compare and boolean
  set(O::equal, [](Emit& e) { binary(e, "Equal"); });
  set(O::greater, [](Emit& e) { binary(e, "Greater"); });
  set(O::greater_equal, [](Emit& e) { binary(e, "GreaterOrEqual"); });
  set(O::lower, [](Emit& e) { binary(e, "Less"); });
  set(O::lower_equal, [](Emit& e) { binary(e, "LessOrEqual"); });
  set(O::not_equal, [](Emit& e) { negated(e, "Equal", false); });
  set(O::equal_elem, [](Emit& e) { with_scalar(e, "Equal"); });
  set(O::not_equal_elem, [](Emit& e) { negated(e, "Equal", true); });
  set(O::greater_elem, [](Emit& e) { with_scalar(e, "Greater"); });
  set(O::greater_equal_elem, [](Emit& e) { with_scalar(e, "GreaterOrEqual"); });
  set(O::lower_elem, [](Emit& e) { with_scalar(e, "Less"); });
  set(O::lower_equal_elem, [](Emit& e) { with_scalar(e, "LessOrEqual"); });
  set(O::bool_not, [](Emit& e) { unary(e, "Not"); });
  set(O::bool_and, [](Emit& e) { binary(e, "And"); });
  set(O::bool_or, [](Emit& e) { binary(e, "Or"); });
  set(O::bool_xor, [](Emit& e) { binary(e, "Xor"); });
  set(O::cast, [](Emit& e) {
    set_attr(e.node("Cast", {e.in(0)}, {e.out()}), "to", static_cast<int64_t>(onnx_dtype(e.arg<DType>(1))));
  });
  // float math
  set(O::exp, [](Emit& e) { unary(e, "Exp"); });
  set(O::log, [](Emit& e) { unary(e, "Log"); });
  set(O::log1p, log1p);
  set(O::sqrt, [](Emit& e) { unary(e, "Sqrt"); });
  set(O::sin, [](Emit& e) { unary(e, "Sin"); });
  set(O::cos, [](Emit& e) { unary(e, "Cos"); });
  set(O::tan, [](Emit& e) { unary(e, "Tan"); });
  set(O::sinh, [](Emit& e) { unary(e, "Sinh"); });
  set(O::cosh, [](Emit& e) { unary(e, "Cosh"); });
  set(O::tanh, [](Emit& e) { unary(e, "Tanh"); });
  set(O::asin, [](Emit& e) { unary(e, "Asin"); });
  set(O::acos, [](Emit& e) { unary(e, "Acos"); });
  set(O::atan, [](Emit& e) { unary(e, "Atan"); });
  set(O::asinh, [](Emit& e) { unary(e, "Asinh"); });
  set(O::acosh, [](Emit& e) { unary(e, "Acosh"); });
  set(O::atanh, [](Emit& e) { unary(e, "Atanh"); });
  set(O::erf, [](Emit& e) { unary(e, "Erf"); });
  set(O::round, [](Emit& e) { unary(e, "Round"); });
  set(O::floor, [](Emit& e) { unary(e, "Floor"); });
  set(O::ceil, [](Emit& e) { unary(e, "Ceil"); });
  set(O::recip, [](Emit& e) { unary(e, "Reciprocal"); });
  set(O::square, [](Emit& e) { e.node("Mul", {e.in(0), e.in(0)}, {e.out()}); });
  set(O::is_nan, [](Emit& e) { unary(e, "IsNaN"); });
  set(O::is_inf, [](Emit& e) { unary(e, "IsInf"); });
  // activations
  set(O::relu, [](Emit& e) { unary(e, "Relu"); });
  set(O::sigmoid, [](Emit& e) { unary(e, "Sigmoid"); });
  set(O::selu, [](Emit& e) { unary(e, "Selu"); });
  set(O::leaky_relu, [](Emit& e) { with_alpha(e, "LeakyRelu"); });
  set(O::elu, [](Emit& e) { with_alpha(e, "Elu"); });
  set(O::hard_sigmoid, [](Emit& e) {
    auto& n = e.node("HardSigmoid", {e.in(0)}, {e.out()});
    set_attr(n, "alpha", e.arg<double>(1));
    set_attr(n, "beta", e.arg<double>(2));
  });
  set(O::gelu, gelu);
  set(O::gelu_tanh, gelu_tanh);
  set(O::silu, silu);
  set(O::mish, mish);
  set(O::softplus, softplus);
  set(O::log_sigmoid, log_sigmoid);
  set(O::softmax, [](Emit& e) { softmax(e, "Softmax"); });
  set(O::log_softmax, [](Emit& e) { softmax(e, "LogSoftmax"); });
}

}  // namespace burn::onnx_export
