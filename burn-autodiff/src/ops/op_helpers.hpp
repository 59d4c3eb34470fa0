// Shorthands for recording the common op shapes (one input, two inputs, input and scalar) in the
// ops/*.cpp files.
#pragma once

#include "grad_math.hpp"

namespace burn::autodiff {

using UnaryFn = Prim (Backend::*)(Prim);
using BinaryFn = Prim (Backend::*)(Prim, Prim);

// An elementwise op of one tensor; backward reads the input and/or the output.
inline Prim record_unary(AutodiffBackend& ad, OpId op, Prim x, UnaryFn fn, bool save_input, bool save_output,
                         BackwardFn backward) {
  return ad.record1(
      {op, save_input ? in(0) : 0u, save_output}, {std::move(x)},
      [fn](Backend& b, Prims p) { return (b.*fn)(std::move(p[0])); }, std::move(backward));
}

// Which inputs a two-input op keeps: each input's gradient needs the other input (mul, matmul).
inline uint32_t save_for_cross(const Prim& lhs, const Prim& rhs) {
  return (tracked(rhs) ? in(0) : 0u) | (tracked(lhs) ? in(1) : 0u);
}

// Backward of the ops PyTorch tracks with a zero gradient almost everywhere (sign, rounding).
inline Hs no_gradient(Step&, const H&) { return {}; }

// A dim for the public tensor API, which takes signed dims.
inline int64_t sdim(size_t d) { return static_cast<int64_t>(d); }

// A backend kernel's result on the step's device.
inline H on_step(const Step& s, Prim p) { return H{s.device(), std::move(p)}; }

// A zero-stride zeros tensor with input i's shape and dtype, for backward kernels that read only the
// input's shape (pools, interpolate, embedding), so the graph need not keep the input alive.
inline H shape_stand_in(const Step& s, size_t i) {
  const Shape& shape = s.input_shape(i);
  const H one = api::full(s.device(), Shape(std::vector<int64_t>(shape.rank(), 1)), 0, s.input_dtype(i));
  return api::expand(one, shape.dims());
}

}  // namespace burn::autodiff
