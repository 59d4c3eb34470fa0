// The op table: the single list of every backend op and everything known about it. It generates the
// Backend virtuals, ForwardingBackend, the trace and autodiff pass-throughs, OpId, OpInfo (names,
// groups, tiers, gradient kind, bound), the fused-IR op kinds and the conformance coverage lists.
//
// X(group, name, tier, grad, bound, return type, (type, param)...)
//   group: the op family (OpGroup); every layer keeps one source file per group: api/<group>.cpp,
//          defaults/<group>.cpp, <backend>/src/ops/<group>.cpp, burn-autodiff/src/ops/<group>.cpp.
//   tier:  CORE = pure virtual, every backend implements it;
//          DEFAULT = composed from other ops in burn-tensor; a backend overrides it only to be faster.
//   grad:  GRAD = differentiable (autodiff has a rule, or decomposes a DEFAULT op into recorded ops);
//          NOGRAD = integer, bool or creation results: tracked inputs give untracked outputs;
//          BACKWARD = a backward kernel: first order only, tracked inputs are refused.
//   bound: MEMORY or COMPUTE: what limits the op's speed; checkpointing recomputes memory-bound
//          outputs and keeps compute-bound ones, fusion fuses memory-bound ops.
//   (type, param): the signature. Prim parameters are taken by value so a backend can reuse the
//          buffer of an input whose only handle was moved in.
// Any change to names, tiers or signatures changes kOpTableHash: set kOpTableHashAtAbi at the end of
// this file (the compile error prints the new value) and bump BURN_PLUGIN_ABI_VERSION (backend.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "burn/tensor/detail/op_table_pp.hpp"

// clang-format off
#define BURN_OP_TABLE(X) \
  /* creation and data movement (every kind) */ \
  X(creation,    empty,                       CORE,    NOGRAD,   MEMORY,  Prim,       (const Shape&, shape), (DType, dtype)) \
  X(creation,    full,                        CORE,    NOGRAD,   MEMORY,  Prim,       (const Shape&, shape), (Scalar, value), (DType, dtype)) \
  X(creation,    from_data,                   CORE,    NOGRAD,   MEMORY,  Prim,       (const TensorData&, data)) \
  X(creation,    into_data,                   CORE,    NOGRAD,   MEMORY,  TensorData, (const Prim&, x)) \
  X(creation,    cast,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (DType, dtype)) \
  X(creation,    random,                      DEFAULT, NOGRAD,   MEMORY,  Prim,       (const Shape&, shape), (const Distribution&, dist), (DType, dtype)) \
  X(creation,    arange,                      DEFAULT, NOGRAD,   MEMORY,  Prim,       (int64_t, start), (int64_t, end), (int64_t, step), (DType, dtype)) \
  /* layout: views where the backend can */ \
  X(layout,      reshape,                     CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (const Shape&, shape)) \
  X(layout,      permute,                     CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (const Axes&, axes)) \
  X(layout,      expand,                      CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (const Shape&, shape)) \
  X(layout,      flip,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (const Axes&, axes)) \
  X(layout,      slice,                       CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (const Slices&, ranges)) \
  X(layout,      slice_assign,                CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (const Slices&, ranges), (Prim, value)) \
  X(layout,      cat,                         DEFAULT, GRAD,     MEMORY,  Prim,       (const Prims&, xs), (size_t, dim)) \
  X(layout,      repeat_dim,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim), (int64_t, times)) \
  /* indexing */ \
  X(indexing,    gather,                      CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim), (Prim, indices)) \
  X(indexing,    scatter_add,                 CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim), (Prim, indices), (Prim, values)) \
  X(indexing,    select,                      DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim), (Prim, indices)) \
  X(indexing,    select_add,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim), (Prim, indices), (Prim, values)) \
  X(indexing,    mask_where,                  CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (Prim, mask), (Prim, value)) \
  X(indexing,    mask_fill,                   DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Prim, mask), (Scalar, value)) \
  X(indexing,    argwhere,                    CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  /* numeric: float and int, NumPy broadcasting, both operands of one dtype */ \
  X(numeric,     add,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     sub,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     mul,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     div,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     remainder,                   CORE,    GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     powf,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     add_scalar,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(numeric,     sub_scalar,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(numeric,     mul_scalar,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(numeric,     div_scalar,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(numeric,     remainder_scalar,            DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(numeric,     fmod,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     fmod_scalar,                 DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(numeric,     powf_scalar,                 DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(numeric,     maximum,                     DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     minimum,                     DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(numeric,     neg,                         DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(numeric,     abs,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(numeric,     sign,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(numeric,     clamp,                       DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Scalar, min), (Scalar, max)) \
  X(numeric,     clamp_min,                   DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Scalar, min)) \
  X(numeric,     clamp_max,                   DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Scalar, max)) \
  X(numeric,     matmul,                      CORE,    GRAD,     COMPUTE, Prim,       (Prim, lhs), (Prim, rhs)) \
  /* comparison: results are Bool */ \
  X(compare,     equal,                       CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(compare,     greater,                     CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(compare,     greater_equal,               CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(compare,     not_equal,                   DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(compare,     lower,                       DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(compare,     lower_equal,                 DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(compare,     equal_elem,                  DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(compare,     not_equal_elem,              DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(compare,     greater_elem,                DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(compare,     greater_equal_elem,          DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(compare,     lower_elem,                  DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  X(compare,     lower_equal_elem,            DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Scalar, rhs)) \
  /* bool */ \
  X(boolean,     bool_not,                    CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  X(boolean,     bool_and,                    CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(boolean,     bool_or,                     CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(boolean,     bool_xor,                    DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  /* bitwise: integer tensors (i64, i32, i8, u8), NumPy broadcasting, both operands of one dtype */ \
  X(bitwise,     bitwise_and,                 DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(bitwise,     bitwise_or,                  DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(bitwise,     bitwise_xor,                 DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(bitwise,     bitwise_not,                 DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  X(bitwise,     bitwise_left_shift,          DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(bitwise,     bitwise_right_shift,         DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  /* reductions keep the reduced dim with size 1, as in Burn */ \
  X(reduce,      sum,                         DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(reduce,      sum_dim,                     CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      mean,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(reduce,      mean_dim,                    DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      prod,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(reduce,      prod_dim,                    CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      max,                         DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(reduce,      max_dim,                     CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      max_dim_with_indices,        DEFAULT, GRAD,     MEMORY,  PrimPair,   (Prim, x), (size_t, dim)) \
  X(reduce,      min,                         DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(reduce,      min_dim,                     CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      min_dim_with_indices,        DEFAULT, GRAD,     MEMORY,  PrimPair,   (Prim, x), (size_t, dim)) \
  X(reduce,      argmax,                      CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      argmin,                      CORE,    NOGRAD,   MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      any,                         DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  X(reduce,      any_dim,                     DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      all,                         DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  X(reduce,      all_dim,                     DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      var,                         DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim), (int64_t, correction)) \
  X(reduce,      cumsum,                      CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      cumprod,                     CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      cummax,                      CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      cummin,                      CORE,    GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(reduce,      sort,                        CORE,    GRAD,     COMPUTE, PrimPair,   (Prim, x), (size_t, dim), (bool, descending), (bool, stable)) \
  X(reduce,      argsort,                     DEFAULT, NOGRAD,   COMPUTE, Prim,       (Prim, x), (size_t, dim), (bool, descending), (bool, stable)) \
  X(reduce,      topk,                        DEFAULT, GRAD,     COMPUTE, PrimPair,   (Prim, x), (int64_t, k), (size_t, dim), (bool, largest)) \
  /* float math */ \
  X(float_math,  exp,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  log,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  log1p,                       CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  sqrt,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  sin,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  cos,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  tan,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  sinh,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  cosh,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  tanh,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  asin,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  acos,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  atan,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  erf,                         CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  round,                       CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  floor,                       CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  ceil,                        CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  trunc,                       CORE,    GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  atan2,                       CORE,    GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(float_math,  hypot,                       DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, lhs), (Prim, rhs)) \
  X(float_math,  asinh,                       DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  acosh,                       DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  atanh,                       DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  recip,                       DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  square,                      DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  is_nan,                      DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  is_inf,                      DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  X(float_math,  is_finite,                   DEFAULT, NOGRAD,   MEMORY,  Prim,       (Prim, x)) \
  /* activations */ \
  X(activation,  relu,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  leaky_relu,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (double, negative_slope)) \
  X(activation,  gelu,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  gelu_tanh,                   DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  sigmoid,                     DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  log_sigmoid,                 DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  silu,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  mish,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  softplus,                    DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (double, beta), (double, threshold)) \
  X(activation,  hard_sigmoid,                DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (double, alpha), (double, beta)) \
  X(activation,  elu,                         DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (double, alpha)) \
  X(activation,  selu,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x)) \
  X(activation,  softmax,                     DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  X(activation,  log_softmax,                 DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (size_t, dim)) \
  /* module ops: NC<spatial> layout; bias, mask and weight primitives may be null (absent) */ \
  X(conv,        conv,                        DEFAULT, GRAD,     COMPUTE, Prim,       (Prim, x), (Prim, weight), (Prim, bias), (const ConvOptions&, options)) \
  X(conv,        conv_backward,               DEFAULT, BACKWARD, COMPUTE, Prims,      (Prim, x), (Prim, weight), (Prim, grad_out), (const ConvOptions&, options), (const ConvGradMask&, mask)) \
  X(conv,        conv_transpose,              DEFAULT, GRAD,     COMPUTE, Prim,       (Prim, x), (Prim, weight), (Prim, bias), (const ConvTransposeOptions&, options)) \
  X(conv,        conv_transpose_backward,     DEFAULT, BACKWARD, COMPUTE, Prims,      (Prim, x), (Prim, weight), (Prim, grad_out), (const ConvTransposeOptions&, options), (const ConvGradMask&, mask)) \
  X(conv,        deform_conv2d,               DEFAULT, GRAD,     COMPUTE, Prim,       (Prim, x), (Prim, offset), (Prim, weight), (Prim, mask), (Prim, bias), (const DeformConvOptions&, options)) \
  X(conv,        unfold,                      DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (const UnfoldOptions&, options)) \
  X(conv,        fold,                        DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, cols), (const Shape&, output_size), (const UnfoldOptions&, options)) \
  X(pool,        max_pool,                    DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (const PoolOptions&, options)) \
  X(pool,        max_pool_with_indices,       DEFAULT, GRAD,     MEMORY,  PrimPair,   (Prim, x), (const PoolOptions&, options)) \
  X(pool,        max_pool_backward,           DEFAULT, BACKWARD, MEMORY,  Prim,       (Prim, x), (Prim, grad_out), (Prim, indices), (const PoolOptions&, options)) \
  X(pool,        avg_pool,                    DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (const PoolOptions&, options)) \
  X(pool,        avg_pool_backward,           DEFAULT, BACKWARD, MEMORY,  Prim,       (Prim, x), (Prim, grad_out), (const PoolOptions&, options)) \
  X(pool,        adaptive_avg_pool,           DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (const Shape&, output_size)) \
  X(pool,        adaptive_avg_pool_backward,  DEFAULT, BACKWARD, MEMORY,  Prim,       (Prim, x), (Prim, grad_out)) \
  X(pool,        adaptive_max_pool,           DEFAULT, GRAD,     MEMORY,  PrimPair,   (Prim, x), (const Shape&, output_size)) \
  X(pool,        adaptive_max_pool_backward,  DEFAULT, BACKWARD, MEMORY,  Prim,       (Prim, x), (Prim, grad_out), (Prim, indices)) \
  X(resample,    interpolate,                 DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (const Shape&, output_size), (const InterpolateOptions&, options)) \
  X(resample,    interpolate_backward,        DEFAULT, BACKWARD, MEMORY,  Prim,       (Prim, x), (Prim, grad_out), (const Shape&, output_size), (const InterpolateOptions&, options)) \
  X(resample,    pixel_shuffle,               DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (int64_t, factor)) \
  X(resample,    pixel_unshuffle,             DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (int64_t, factor)) \
  X(resample,    grid_sample_2d,              DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Prim, grid), (const GridSampleOptions&, options)) \
  X(embedding,   embedding,                   DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, weight), (Prim, indices)) \
  X(embedding,   embedding_backward,          DEFAULT, BACKWARD, MEMORY,  Prim,       (Prim, weight), (Prim, grad_out), (Prim, indices)) \
  X(norm,        layer_norm,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Prim, weight), (Prim, bias), (size_t, normalized_dims), (double, eps)) \
  X(norm,        layer_norm_backward,         DEFAULT, BACKWARD, MEMORY,  Prims,      (Prim, x), (Prim, weight), (Prim, grad_out), (size_t, normalized_dims), (double, eps)) \
  X(norm,        group_norm,                  DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Prim, weight), (Prim, bias), (int64_t, num_groups), (double, eps)) \
  X(norm,        group_norm_backward,         DEFAULT, BACKWARD, MEMORY,  Prims,      (Prim, x), (Prim, weight), (Prim, grad_out), (int64_t, num_groups), (double, eps)) \
  X(norm,        batch_norm,                  DEFAULT, GRAD,     MEMORY,  Prims,      (Prim, x), (Prim, weight), (Prim, bias), (Prim, running_mean), (Prim, running_var), (bool, training), (double, momentum), (double, eps)) \
  X(norm,        batch_norm_backward,         DEFAULT, BACKWARD, MEMORY,  Prims,      (Prim, x), (Prim, weight), (Prim, running_mean), (Prim, running_var), (Prim, grad_out), (bool, training), (double, eps)) \
  X(norm,        rms_norm,                    DEFAULT, GRAD,     MEMORY,  Prim,       (Prim, x), (Prim, weight), (size_t, normalized_dims), (double, eps)) \
  X(norm,        rms_norm_backward,           DEFAULT, BACKWARD, MEMORY,  Prims,      (Prim, x), (Prim, weight), (Prim, grad_out), (size_t, normalized_dims), (double, eps)) \
  X(attention,   attention,                   DEFAULT, GRAD,     COMPUTE, Prim,       (Prim, query), (Prim, key), (Prim, value), (Prim, mask), (const AttentionOptions&, options)) \
  /* quant: integer kernels over quantized weights (burn/tensor/quant.hpp); zero points and bias may be null */ \
  X(quant,       quantized_linear,            DEFAULT, NOGRAD,   COMPUTE, Prim,       (Prim, x), (Prim, w_values), (Prim, w_scales), (Prim, w_zero_points), (Prim, bias)) \
  X(quant,       matmul_integer,              DEFAULT, NOGRAD,   COMPUTE, Prim,       (Prim, a), (Prim, b), (Prim, a_zero_points), (Prim, b_zero_points))

// clang-format on

namespace burn {

#define BURN_X_OPID(group, name, ...) name,
enum class OpId : uint16_t { BURN_OP_TABLE(BURN_X_OPID) };
#undef BURN_X_OPID

#define BURN_X_COUNT(...) +1
inline constexpr size_t kOpCount = 0 BURN_OP_TABLE(BURN_X_COUNT);
#undef BURN_X_COUNT

// The op families, in table order; a row naming a group missing here does not compile.
// clang-format off
#define BURN_OP_GROUPS(G) \
  G(creation) G(layout) G(indexing) G(numeric) G(compare) G(boolean) G(bitwise) G(reduce) G(float_math) \
  G(activation) G(conv) G(pool) G(resample) G(embedding) G(norm) G(attention) G(quant)
// clang-format on
#define BURN_G_ENUM(g) g,
enum class OpGroup : uint8_t { BURN_OP_GROUPS(BURN_G_ENUM) };
#undef BURN_G_ENUM
#define BURN_G_COUNT(g) +1
inline constexpr size_t kOpGroupCount = 0 BURN_OP_GROUPS(BURN_G_COUNT);
#undef BURN_G_COUNT

enum class OpTier : uint8_t { Core, Default };
enum class OpGrad : uint8_t { Grad, NoGrad, Backward };
enum class OpBound : uint8_t { Memory, Compute };

namespace detail {
// FNV-1a over the rows' names, tiers and signatures: the ABI fingerprint of the table.
constexpr uint64_t fnv1a(std::string_view s, uint64_t h = 14695981039346656037ull) {
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}
#define BURN_X_HASH(group, name, tier, grad, bound, ret, ...) \
  h = fnv1a(#name "|" #tier "|" #ret "(" BURN_PP_STRINGIFY(BURN_PP_MAP(BURN_PP_TYPE, __VA_ARGS__)) ");", h);
constexpr uint64_t op_table_hash() {
  uint64_t h = 14695981039346656037ull;
  BURN_OP_TABLE(BURN_X_HASH)
  return h;
}
#undef BURN_X_HASH
}  // namespace detail

inline constexpr uint64_t kOpTableHash = detail::op_table_hash();

// The fingerprint this table had when BURN_PLUGIN_ABI_VERSION (backend.hpp) was last set. A change to
// the rows fails to compile until it is updated (the error prints the new value); bump the ABI version
// too unless it was already bumped since the last release.
inline constexpr uint64_t kOpTableHashAtAbi = 15543092854029288493ull;

}  // namespace burn
