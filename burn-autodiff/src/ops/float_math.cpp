// Backward of the float math ops. Each formula reads the input or the output, whichever PyTorch's
// derivative uses, so that the saved tensor is the cheaper one to keep.
#include <numbers>

#include "op_helpers.hpp"

namespace burn::autodiff {

namespace {
constexpr bool kIn = true, kOut = true, kNo = false;
}  // namespace

Prim AutodiffBackend::exp(Prim x) {
  return record_unary(*this, OpId::exp, std::move(x), &Backend::exp, kNo, kOut,
                      [](Step& s, const H& g) -> Hs { return {T(g) * s.output()}; });
}

Prim AutodiffBackend::log(Prim x) {
  return record_unary(*this, OpId::log, std::move(x), &Backend::log, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) / s.input(0)}; });
}

Prim AutodiffBackend::log1p(Prim x) {
  return record_unary(*this, OpId::log1p, std::move(x), &Backend::log1p, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) / (T(s.input(0)) + 1.0)}; });
}

Prim AutodiffBackend::sqrt(Prim x) {
  return record_unary(*this, OpId::sqrt, std::move(x), &Backend::sqrt, kNo, kOut,
                      [](Step& s, const H& g) -> Hs { return {T(g) * 0.5 / s.output()}; });
}

Prim AutodiffBackend::sin(Prim x) {
  return record_unary(*this, OpId::sin, std::move(x), &Backend::sin, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) * T(s.input(0)).cos()}; });
}

Prim AutodiffBackend::cos(Prim x) {
  return record_unary(*this, OpId::cos, std::move(x), &Backend::cos, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {-(T(g) * T(s.input(0)).sin())}; });
}

Prim AutodiffBackend::tan(Prim x) {
  return record_unary(*this, OpId::tan, std::move(x), &Backend::tan, kNo, kOut,
                      [](Step& s, const H& g) -> Hs { return {T(g) * (T(s.output()).square() + 1.0)}; });
}

Prim AutodiffBackend::sinh(Prim x) {
  return record_unary(*this, OpId::sinh, std::move(x), &Backend::sinh, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) * T(api::unary(OpId::cosh, s.input(0)))}; });
}

Prim AutodiffBackend::cosh(Prim x) {
  return record_unary(*this, OpId::cosh, std::move(x), &Backend::cosh, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) * T(api::unary(OpId::sinh, s.input(0)))}; });
}

Prim AutodiffBackend::tanh(Prim x) {
  return record_unary(*this, OpId::tanh, std::move(x), &Backend::tanh, kNo, kOut,
                      [](Step& s, const H& g) -> Hs { return {T(g) * (1.0 - T(s.output()).square())}; });
}

Prim AutodiffBackend::asin(Prim x) {
  return record_unary(*this, OpId::asin, std::move(x), &Backend::asin, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) / (1.0 - T(s.input(0)).square()).sqrt()}; });
}

Prim AutodiffBackend::acos(Prim x) {
  return record_unary(*this, OpId::acos, std::move(x), &Backend::acos, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {-(T(g) / (1.0 - T(s.input(0)).square()).sqrt())}; });
}

Prim AutodiffBackend::atan(Prim x) {
  return record_unary(*this, OpId::atan, std::move(x), &Backend::atan, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) / (T(s.input(0)).square() + 1.0)}; });
}

Prim AutodiffBackend::erf(Prim x) {
  return record_unary(*this, OpId::erf, std::move(x), &Backend::erf, kIn, kNo, [](Step& s, const H& g) -> Hs {
    constexpr double k = 2.0 * std::numbers::inv_sqrtpi;  // d erf(x) = 2 / sqrt(pi) * exp(-x^2)
    return {T(g) * (-T(s.input(0)).square()).exp() * k};
  });
}

Prim AutodiffBackend::atan2(Prim lhs, Prim rhs) {
  return record1(
      {OpId::atan2, in(0) | in(1)}, {std::move(lhs), std::move(rhs)},
      [](Backend& b, Prims p) { return b.atan2(std::move(p[0]), std::move(p[1])); },
      [](Step& s, const H& g) -> Hs {
        // atan2(y, x): dy = x / (x^2 + y^2), dx = -y / (x^2 + y^2)
        T y = s.input(0), x = s.input(1);
        T scale = T(g) / (x.square() + y.square());
        Hs out(2);
        if (s.needs(0)) out[0] = sum_to(scale * x, s.input_shape(0));
        if (s.needs(1)) out[1] = sum_to(-(scale * y), s.input_shape(1));
        return out;
      });
}

Prim AutodiffBackend::recip(Prim x) {
  return record_unary(*this, OpId::recip, std::move(x), &Backend::recip, kNo, kOut,
                      [](Step& s, const H& g) -> Hs { return {-(T(g) * T(s.output()).square())}; });
}

Prim AutodiffBackend::square(Prim x) {
  return record_unary(*this, OpId::square, std::move(x), &Backend::square, kIn, kNo,
                      [](Step& s, const H& g) -> Hs { return {T(g) * T(s.input(0)) * 2.0}; });
}

// Tracked with a zero gradient, as in PyTorch: backward through them gives zeros.
Prim AutodiffBackend::round(Prim x) {
  return record_unary(*this, OpId::round, std::move(x), &Backend::round, false, false, no_gradient);
}

Prim AutodiffBackend::floor(Prim x) {
  return record_unary(*this, OpId::floor, std::move(x), &Backend::floor, false, false, no_gradient);
}

Prim AutodiffBackend::ceil(Prim x) {
  return record_unary(*this, OpId::ceil, std::move(x), &Backend::ceil, false, false, no_gradient);
}

Prim AutodiffBackend::trunc(Prim x) {
  return record_unary(*this, OpId::trunc, std::move(x), &Backend::trunc, false, false, no_gradient);
}

}  // namespace burn::autodiff
