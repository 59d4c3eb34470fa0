// The vocabulary of backward formulas: T, a tensor of dynamic rank over the public tensor API
// (burn::api), with arithmetic operators, so that each backward reads like its formula and runs on
// whatever device the step uses (the inner backend, or autodiff itself for second order).
#pragma once

#include <utility>
#include <vector>

#include "autodiff_backend.hpp"

namespace burn::autodiff {

struct T {
  H h;
  T() = default;
  T(H handle) : h(std::move(handle)) {}     // NOLINT: implicit, so formulas can return T as H
  operator H() const& { return h; }         // NOLINT
  operator H() && { return std::move(h); }  // NOLINT
  const Shape& shape() const { return h.prim->shape(); }
  DType dtype() const { return h.prim->dtype(); }
  size_t rank() const { return shape().rank(); }

  // Methods rather than free functions: inside AutodiffBackend's members a free exp() would be
  // hidden by the member op of the same name.
  T exp() const { return api::unary(OpId::exp, h); }
  T log() const { return api::unary(OpId::log, h); }
  T sqrt() const { return api::unary(OpId::sqrt, h); }
  T sin() const { return api::unary(OpId::sin, h); }
  T cos() const { return api::unary(OpId::cos, h); }
  T tanh() const { return api::unary(OpId::tanh, h); }
  T sigmoid() const { return api::unary(OpId::sigmoid, h); }
  T square() const { return api::unary(OpId::square, h); }
  T recip() const { return api::unary(OpId::recip, h); }
  T sign() const { return api::unary(OpId::sign, h); }
  T erf() const { return api::unary(OpId::erf, h); }
  T floor() const { return api::unary(OpId::floor, h); }
  T powf(const T& e) const { return api::powf(h, e.h); }
  T powf_scalar(double e) const { return api::powf_scalar(h, e); }
  T matmul(const T& o) const { return api::matmul(h, o.h); }
  T sum_dim(int64_t dim) const { return api::reduce_dim(OpId::sum_dim, h, dim); }
  T reshape(const Shape& s) const { return api::reshape(h, s.dims()); }
  T cast(DType d) const { return api::cast(h, d); }
  T swap_last() const { return api::swap_dims(h, -2, -1); }
  T expand(const Shape& s) const { return api::expand(h, s.dims()); }
};

inline T operator+(T a, const T& b) { return api::add(std::move(a.h), b.h); }
inline T operator-(T a, const T& b) { return api::sub(std::move(a.h), b.h); }
inline T operator*(T a, const T& b) { return api::mul(std::move(a.h), b.h); }
inline T operator/(T a, const T& b) { return api::div(std::move(a.h), b.h); }
inline T operator+(T a, double s) { return api::add_scalar(std::move(a.h), s); }
inline T operator-(T a, double s) { return api::sub_scalar(std::move(a.h), s); }
inline T operator*(T a, double s) { return api::mul_scalar(std::move(a.h), s); }
inline T operator/(T a, double s) { return api::div_scalar(std::move(a.h), s); }
inline T operator*(double s, T a) { return api::mul_scalar(std::move(a.h), s); }
inline T operator-(double s, T a) { return api::rsub_scalar(std::move(a.h), s); }
inline T operator/(double s, T a) { return api::rdiv_scalar(std::move(a.h), s); }
inline T operator-(T a) { return api::unary(OpId::neg, std::move(a.h)); }

inline T unary(OpId op, T a) { return api::unary(op, std::move(a.h)); }

// Float 1/0 masks of comparisons, in the dtype of the tensor compared (names differ from the ops:
// AutodiffBackend members would hide them).
inline T as_float(const H& mask, DType dtype) { return api::cast(mask, dtype); }
inline T gt_mask(const T& a, double s) { return as_float(api::compare_elem(OpId::greater_elem, a.h, s), a.dtype()); }
inline T lt_mask(const T& a, double s) { return as_float(api::compare_elem(OpId::lower_elem, a.h, s), a.dtype()); }
// where(mask, a, b): a where mask is set, else b (mask is Bool).
inline T where(const H& mask, const T& a, T b) { return api::mask_where(std::move(b.h), mask, a.h); }

inline T zeros(const Step& s, const Shape& shape, DType dtype) { return api::full(s.device(), shape, 0, dtype); }
inline T filled(const Step& s, const Shape& shape, double v, DType dtype) {
  return api::full(s.device(), shape, v, dtype);
}

// Sums a broadcast gradient back to the shape of the input it came from (NumPy broadcasting: extra
// leading dims, and dims of size 1 that were stretched).
T sum_to(T g, const Shape& shape);

// Sum of g [N, C, ...] over everything but the channels -> [C]: the gradient of a per-channel bias.
T channel_sum(const H& g);

}  // namespace burn::autodiff
