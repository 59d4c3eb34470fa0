// Backward of the numeric ops: arithmetic with broadcasting (gradients summed back to each input's
// shape), scalar variants, min/max, clamps, sign and matmul.
#include "burn/tensor/module.hpp"
#include "op_helpers.hpp"

namespace burn::autodiff {

namespace {

// d(lhs op rhs) for + and -: the gradient itself (negated for rhs of -), summed to each shape.
Hs additive(Step& s, const H& g, double rhs_sign) {
  Hs out(2);
  if (s.needs(0)) out[0] = sum_to(g, s.input_shape(0));
  if (s.needs(1)) out[1] = sum_to(rhs_sign < 0 ? -T(g) : T(g), s.input_shape(1));
  return out;
}

Prim binary(AutodiffBackend& ad, OpId op, Prim lhs, Prim rhs, uint32_t save, bool save_output, BinaryFn fn,
            BackwardFn backward) {
  return ad.record1(
      {op, save, save_output}, {std::move(lhs), std::move(rhs)},
      [fn](Backend& b, Prims p) { return (b.*fn)(std::move(p[0]), std::move(p[1])); }, std::move(backward));
}

// max/min of two tensors: the gradient goes to the chosen side, split in half on ties (PyTorch).
Hs pick(Step& s, const H& g, OpId wins) {
  T a = s.input(0), b = s.input(1);
  T win_a = as_float(api::compare(wins, a.h, b.h), a.dtype());
  T tie = as_float(api::compare(OpId::equal, a.h, b.h), a.dtype());
  T share_a = win_a + tie * 0.5;
  Hs out(2);
  if (s.needs(0)) out[0] = sum_to(T(g) * share_a, s.input_shape(0));
  if (s.needs(1)) out[1] = sum_to(T(g) * (1.0 - share_a), s.input_shape(1));
  return out;
}

}  // namespace

Prim AutodiffBackend::add(Prim lhs, Prim rhs) {
  return binary(*this, OpId::add, std::move(lhs), std::move(rhs), 0, false, &Backend::add,
                [](Step& s, const H& g) { return additive(s, g, 1); });
}

Prim AutodiffBackend::sub(Prim lhs, Prim rhs) {
  return binary(*this, OpId::sub, std::move(lhs), std::move(rhs), 0, false, &Backend::sub,
                [](Step& s, const H& g) { return additive(s, g, -1); });
}

Prim AutodiffBackend::mul(Prim lhs, Prim rhs) {
  const uint32_t save = save_for_cross(lhs, rhs);
  return binary(*this, OpId::mul, std::move(lhs), std::move(rhs), save, false, &Backend::mul,
                [](Step& s, const H& g) -> Hs {
                  Hs out(2);
                  if (s.needs(0)) out[0] = sum_to(T(g) * s.input(1), s.input_shape(0));
                  if (s.needs(1)) out[1] = sum_to(T(g) * s.input(0), s.input_shape(1));
                  return out;
                });
}

Prim AutodiffBackend::div(Prim lhs, Prim rhs) {
  const uint32_t save = in(1) | (tracked(rhs) ? in(0) : 0u);
  return binary(*this, OpId::div, std::move(lhs), std::move(rhs), save, false, &Backend::div,
                [](Step& s, const H& g) -> Hs {
                  Hs out(2);
                  T r = s.input(1);
                  if (s.needs(0)) out[0] = sum_to(T(g) / r, s.input_shape(0));
                  if (s.needs(1)) out[1] = sum_to(-(T(g) * s.input(0)) / r.square(), s.input_shape(1));
                  return out;
                });
}

Prim AutodiffBackend::remainder(Prim lhs, Prim rhs) {
  const uint32_t save = tracked(rhs) ? in(0) | in(1) : 0u;
  return binary(*this, OpId::remainder, std::move(lhs), std::move(rhs), save, false, &Backend::remainder,
                [](Step& s, const H& g) -> Hs {
                  Hs out(2);
                  if (s.needs(0)) out[0] = sum_to(g, s.input_shape(0));
                  // lhs - floor(lhs / rhs) * rhs: d/drhs = -floor(lhs / rhs)
                  if (s.needs(1)) out[1] = sum_to(-(T(g) * (T(s.input(0)) / s.input(1)).floor()), s.input_shape(1));
                  return out;
                });
}

Prim AutodiffBackend::powf(Prim lhs, Prim rhs) {
  return binary(*this, OpId::powf, std::move(lhs), std::move(rhs), in(0) | in(1), true, &Backend::powf,
                [](Step& s, const H& g) -> Hs {
                  Hs out(2);
                  T base = s.input(0), e = s.input(1);
                  // d/dbase = e * base^(e - 1); d/de = base^e * ln(base)
                  if (s.needs(0)) out[0] = sum_to(T(g) * e * base.powf(e - 1.0), s.input_shape(0));
                  if (s.needs(1)) out[1] = sum_to(T(g) * s.output() * base.log(), s.input_shape(1));
                  return out;
                });
}

Prim AutodiffBackend::add_scalar(Prim lhs, Scalar rhs) {
  return record1(
      {OpId::add_scalar}, {std::move(lhs)}, [rhs](Backend& b, Prims p) { return b.add_scalar(std::move(p[0]), rhs); },
      [](Step&, const H& g) -> Hs { return {g}; });
}

Prim AutodiffBackend::sub_scalar(Prim lhs, Scalar rhs) {
  return record1(
      {OpId::sub_scalar}, {std::move(lhs)}, [rhs](Backend& b, Prims p) { return b.sub_scalar(std::move(p[0]), rhs); },
      [](Step&, const H& g) -> Hs { return {g}; });
}

Prim AutodiffBackend::mul_scalar(Prim lhs, Scalar rhs) {
  return record1(
      {OpId::mul_scalar}, {std::move(lhs)}, [rhs](Backend& b, Prims p) { return b.mul_scalar(std::move(p[0]), rhs); },
      [rhs](Step&, const H& g) -> Hs { return {T(g) * rhs.as_double()}; });
}

Prim AutodiffBackend::div_scalar(Prim lhs, Scalar rhs) {
  return record1(
      {OpId::div_scalar}, {std::move(lhs)}, [rhs](Backend& b, Prims p) { return b.div_scalar(std::move(p[0]), rhs); },
      [rhs](Step&, const H& g) -> Hs { return {T(g) / rhs.as_double()}; });
}

Prim AutodiffBackend::remainder_scalar(Prim lhs, Scalar rhs) {
  return record1(
      {OpId::remainder_scalar}, {std::move(lhs)},
      [rhs](Backend& b, Prims p) { return b.remainder_scalar(std::move(p[0]), rhs); },
      [](Step&, const H& g) -> Hs { return {g}; });
}

Prim AutodiffBackend::powf_scalar(Prim lhs, Scalar rhs) {
  return record1(
      {OpId::powf_scalar, in(0)}, {std::move(lhs)},
      [rhs](Backend& b, Prims p) { return b.powf_scalar(std::move(p[0]), rhs); },
      [e = rhs.as_double()](Step& s, const H& g) -> Hs {
        if (e == 0.0) return {zeros(s, s.input_shape(0), s.input_dtype(0))};
        return {T(g) * e * T(s.input(0)).powf_scalar(e - 1.0)};
      });
}

Prim AutodiffBackend::maximum(Prim lhs, Prim rhs) {
  return binary(*this, OpId::maximum, std::move(lhs), std::move(rhs), in(0) | in(1), false, &Backend::maximum,
                [](Step& s, const H& g) { return pick(s, g, OpId::greater); });
}

Prim AutodiffBackend::minimum(Prim lhs, Prim rhs) {
  return binary(*this, OpId::minimum, std::move(lhs), std::move(rhs), in(0) | in(1), false, &Backend::minimum,
                [](Step& s, const H& g) { return pick(s, g, OpId::lower); });
}

Prim AutodiffBackend::neg(Prim x) {
  return record_unary(*this, OpId::neg, std::move(x), &Backend::neg, false, false,
                      [](Step&, const H& g) -> Hs { return {-T(g)}; });
}

Prim AutodiffBackend::abs(Prim x) {
  return record_unary(*this, OpId::abs, std::move(x), &Backend::abs, true, false,
                      [](Step& s, const H& g) -> Hs { return {T(g) * T(s.input(0)).sign()}; });
}

// The gradient passes where the input lies inside the bounds, ends included (PyTorch).
Prim AutodiffBackend::clamp(Prim x, Scalar min, Scalar max) {
  return record1(
      {OpId::clamp, in(0)}, {std::move(x)},
      [min, max](Backend& b, Prims p) { return b.clamp(std::move(p[0]), min, max); },
      [min, max](Step& s, const H& g) -> Hs {
        T x = s.input(0);
        T inside = as_float(api::bool_binary(OpId::bool_and, api::compare_elem(OpId::greater_equal_elem, x.h, min),
                                             api::compare_elem(OpId::lower_equal_elem, x.h, max)),
                            x.dtype());
        return {T(g) * inside};
      });
}

Prim AutodiffBackend::clamp_min(Prim x, Scalar min) {
  return record1(
      {OpId::clamp_min, in(0)}, {std::move(x)},
      [min](Backend& b, Prims p) { return b.clamp_min(std::move(p[0]), min); },
      [min](Step& s, const H& g) -> Hs {
        T x = s.input(0);
        return {T(g) * as_float(api::compare_elem(OpId::greater_equal_elem, x.h, min), x.dtype())};
      });
}

Prim AutodiffBackend::clamp_max(Prim x, Scalar max) {
  return record1(
      {OpId::clamp_max, in(0)}, {std::move(x)},
      [max](Backend& b, Prims p) { return b.clamp_max(std::move(p[0]), max); },
      [max](Step& s, const H& g) -> Hs {
        T x = s.input(0);
        return {T(g) * as_float(api::compare_elem(OpId::lower_equal_elem, x.h, max), x.dtype())};
      });
}

Prim AutodiffBackend::sign(Prim x) {
  return record_unary(*this, OpId::sign, std::move(x), &Backend::sign, false, false, no_gradient);
}

// Batched, broadcast matmul: dA = dC @ B^T and dB = A^T @ dC, summed over broadcast batch dims.
Prim AutodiffBackend::matmul(Prim lhs, Prim rhs) {
  const uint32_t save = save_for_cross(lhs, rhs);
  return binary(*this, OpId::matmul, std::move(lhs), std::move(rhs), save, false, &Backend::matmul,
                [](Step& s, const H& g) -> Hs {
                  Hs out(2);
                  if (s.needs(0)) out[0] = sum_to(T(g).matmul(T(s.input(1)).swap_last()), s.input_shape(0));
                  if (s.needs(1)) out[1] = sum_to(T(s.input(0)).swap_last().matmul(g), s.input_shape(1));
                  return out;
                });
}

}  // namespace burn::autodiff
