// The op table: the single list of every backend op. It generates the Backend virtuals, the
// ForwardingBackend, the trace decorator, the OpId enum and names, and the conformance coverage list.
//
// X(group, name, return type, (params), (args), tier)
//   group: the op family; backends keep one source file per family (src/ops/<group>.cpp).
//   tier:  CORE = pure virtual, every backend implements it;
//          DEFAULT = composed from core ops in burn-tensor, a backend overrides it only to be faster.
// Changing this table changes the plugin ABI: bump BURN_PLUGIN_ABI_VERSION and kOpCountAtAbi.
#pragma once

#define BURN_OP_TABLE(X)                                                                          \
  /* creation and data movement (every kind) */                                                   \
  X(creation, empty, Prim, (const Shape& shape, DType dtype), (shape, dtype), CORE)               \
  X(creation, full, Prim, (const Shape& shape, Scalar value, DType dtype), (shape, value, dtype), CORE) \
  X(creation, from_data, Prim, (const TensorData& data), (data), CORE)                           \
  X(creation, into_data, TensorData, (const Prim& x), (x), CORE)                                 \
  X(creation, cast, Prim, (Prim x, DType dtype), (std::move(x), dtype), CORE)                    \
  X(creation, random, Prim, (const Shape& shape, const Distribution& dist, DType dtype), (shape, dist, dtype), DEFAULT) \
  X(creation, arange, Prim, (int64_t start, int64_t end, int64_t step, DType dtype), (start, end, step, dtype), DEFAULT) \
  /* layout: views where the backend can */                                                       \
  X(layout, reshape, Prim, (Prim x, const Shape& shape), (std::move(x), shape), CORE)            \
  X(layout, permute, Prim, (Prim x, const Axes& axes), (std::move(x), axes), CORE)               \
  X(layout, expand, Prim, (Prim x, const Shape& shape), (std::move(x), shape), CORE)             \
  X(layout, flip, Prim, (Prim x, const Axes& axes), (std::move(x), axes), CORE)                  \
  X(layout, slice, Prim, (Prim x, const Slices& ranges), (std::move(x), ranges), CORE)           \
  X(layout, slice_assign, Prim, (Prim x, const Slices& ranges, Prim value), (std::move(x), ranges, std::move(value)), CORE) \
  X(layout, cat, Prim, (const Prims& xs, size_t dim), (xs, dim), DEFAULT)                        \
  X(layout, repeat_dim, Prim, (Prim x, size_t dim, int64_t times), (std::move(x), dim, times), DEFAULT) \
  /* indexing */                                                                                  \
  X(indexing, gather, Prim, (Prim x, size_t dim, Prim indices), (std::move(x), dim, std::move(indices)), CORE) \
  X(indexing, scatter_add, Prim, (Prim x, size_t dim, Prim indices, Prim values), (std::move(x), dim, std::move(indices), std::move(values)), CORE) \
  X(indexing, select, Prim, (Prim x, size_t dim, Prim indices), (std::move(x), dim, std::move(indices)), DEFAULT) \
  X(indexing, select_add, Prim, (Prim x, size_t dim, Prim indices, Prim values), (std::move(x), dim, std::move(indices), std::move(values)), DEFAULT) \
  X(indexing, mask_where, Prim, (Prim x, Prim mask, Prim value), (std::move(x), std::move(mask), std::move(value)), CORE) \
  X(indexing, mask_fill, Prim, (Prim x, Prim mask, Scalar value), (std::move(x), std::move(mask), value), DEFAULT) \
  X(indexing, argwhere, Prim, (Prim x), (std::move(x)), CORE)                                    \
  /* numeric: float and int, NumPy broadcasting, both operands of one dtype */                  \
  X(numeric, add, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)            \
  X(numeric, sub, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)            \
  X(numeric, mul, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)            \
  X(numeric, div, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)            \
  X(numeric, remainder, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)      \
  X(numeric, powf, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)           \
  X(numeric, add_scalar, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)           \
  X(numeric, sub_scalar, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)           \
  X(numeric, mul_scalar, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)           \
  X(numeric, div_scalar, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)           \
  X(numeric, remainder_scalar, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)     \
  X(numeric, powf_scalar, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)          \
  X(numeric, maximum, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), DEFAULT)     \
  X(numeric, minimum, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), DEFAULT)     \
  X(numeric, neg, Prim, (Prim x), (std::move(x)), DEFAULT)                                       \
  X(numeric, abs, Prim, (Prim x), (std::move(x)), CORE)                                          \
  X(numeric, sign, Prim, (Prim x), (std::move(x)), DEFAULT)                                      \
  X(numeric, clamp, Prim, (Prim x, Scalar min, Scalar max), (std::move(x), min, max), DEFAULT)   \
  X(numeric, clamp_min, Prim, (Prim x, Scalar min), (std::move(x), min), DEFAULT)                \
  X(numeric, clamp_max, Prim, (Prim x, Scalar max), (std::move(x), max), DEFAULT)                \
  X(numeric, matmul, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)        \
  /* comparison: results are Bool */                                                              \
  X(compare, equal, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)          \
  X(compare, greater, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)        \
  X(compare, greater_equal, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)  \
  X(compare, not_equal, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), DEFAULT)   \
  X(compare, lower, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), DEFAULT)       \
  X(compare, lower_equal, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), DEFAULT) \
  X(compare, equal_elem, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)           \
  X(compare, not_equal_elem, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)       \
  X(compare, greater_elem, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)         \
  X(compare, greater_equal_elem, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)   \
  X(compare, lower_elem, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)           \
  X(compare, lower_equal_elem, Prim, (Prim lhs, Scalar rhs), (std::move(lhs), rhs), DEFAULT)     \
  /* bool */                                                                                      \
  X(boolean, bool_not, Prim, (Prim x), (std::move(x)), CORE)                                     \
  X(boolean, bool_and, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)       \
  X(boolean, bool_or, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)        \
  X(boolean, bool_xor, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), DEFAULT)    \
  /* reductions keep the reduced dim with size 1, as in Burn */                                   \
  X(reduce, sum, Prim, (Prim x), (std::move(x)), DEFAULT)                                        \
  X(reduce, sum_dim, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                      \
  X(reduce, mean, Prim, (Prim x), (std::move(x)), DEFAULT)                                       \
  X(reduce, mean_dim, Prim, (Prim x, size_t dim), (std::move(x), dim), DEFAULT)                  \
  X(reduce, prod, Prim, (Prim x), (std::move(x)), DEFAULT)                                       \
  X(reduce, prod_dim, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                     \
  X(reduce, max, Prim, (Prim x), (std::move(x)), DEFAULT)                                        \
  X(reduce, max_dim, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                      \
  X(reduce, max_dim_with_indices, PrimPair, (Prim x, size_t dim), (std::move(x), dim), DEFAULT)  \
  X(reduce, min, Prim, (Prim x), (std::move(x)), DEFAULT)                                        \
  X(reduce, min_dim, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                      \
  X(reduce, min_dim_with_indices, PrimPair, (Prim x, size_t dim), (std::move(x), dim), DEFAULT)  \
  X(reduce, argmax, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                       \
  X(reduce, argmin, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                       \
  X(reduce, any, Prim, (Prim x), (std::move(x)), DEFAULT)                                        \
  X(reduce, any_dim, Prim, (Prim x, size_t dim), (std::move(x), dim), DEFAULT)                   \
  X(reduce, all, Prim, (Prim x), (std::move(x)), DEFAULT)                                        \
  X(reduce, all_dim, Prim, (Prim x, size_t dim), (std::move(x), dim), DEFAULT)                   \
  X(reduce, var, Prim, (Prim x, size_t dim, int64_t correction), (std::move(x), dim, correction), DEFAULT) \
  X(reduce, cumsum, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                       \
  X(reduce, cumprod, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                      \
  X(reduce, cummax, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                       \
  X(reduce, cummin, Prim, (Prim x, size_t dim), (std::move(x), dim), CORE)                       \
  X(reduce, sort, PrimPair, (Prim x, size_t dim, bool descending, bool stable), (std::move(x), dim, descending, stable), CORE) \
  X(reduce, argsort, Prim, (Prim x, size_t dim, bool descending, bool stable), (std::move(x), dim, descending, stable), DEFAULT) \
  X(reduce, topk, PrimPair, (Prim x, int64_t k, size_t dim, bool largest), (std::move(x), k, dim, largest), DEFAULT) \
  /* float math */                                                                                \
  X(float_math, exp, Prim, (Prim x), (std::move(x)), CORE)                                       \
  X(float_math, log, Prim, (Prim x), (std::move(x)), CORE)                                       \
  X(float_math, log1p, Prim, (Prim x), (std::move(x)), CORE)                                     \
  X(float_math, sqrt, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, sin, Prim, (Prim x), (std::move(x)), CORE)                                       \
  X(float_math, cos, Prim, (Prim x), (std::move(x)), CORE)                                       \
  X(float_math, tan, Prim, (Prim x), (std::move(x)), CORE)                                       \
  X(float_math, sinh, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, cosh, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, tanh, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, asin, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, acos, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, atan, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, erf, Prim, (Prim x), (std::move(x)), CORE)                                       \
  X(float_math, round, Prim, (Prim x), (std::move(x)), CORE)                                     \
  X(float_math, floor, Prim, (Prim x), (std::move(x)), CORE)                                     \
  X(float_math, ceil, Prim, (Prim x), (std::move(x)), CORE)                                      \
  X(float_math, trunc, Prim, (Prim x), (std::move(x)), CORE)                                     \
  X(float_math, atan2, Prim, (Prim lhs, Prim rhs), (std::move(lhs), std::move(rhs)), CORE)       \
  X(float_math, recip, Prim, (Prim x), (std::move(x)), DEFAULT)                                  \
  X(float_math, square, Prim, (Prim x), (std::move(x)), DEFAULT)                                 \
  X(float_math, is_nan, Prim, (Prim x), (std::move(x)), DEFAULT)                                 \
  X(float_math, is_inf, Prim, (Prim x), (std::move(x)), DEFAULT)                                 \
  X(float_math, is_finite, Prim, (Prim x), (std::move(x)), DEFAULT)                              \
  /* activations */                                                                               \
  X(activation, relu, Prim, (Prim x), (std::move(x)), DEFAULT)                                   \
  X(activation, leaky_relu, Prim, (Prim x, double negative_slope), (std::move(x), negative_slope), DEFAULT) \
  X(activation, gelu, Prim, (Prim x), (std::move(x)), DEFAULT)                                   \
  X(activation, gelu_tanh, Prim, (Prim x), (std::move(x)), DEFAULT)                              \
  X(activation, sigmoid, Prim, (Prim x), (std::move(x)), DEFAULT)                                \
  X(activation, log_sigmoid, Prim, (Prim x), (std::move(x)), DEFAULT)                            \
  X(activation, silu, Prim, (Prim x), (std::move(x)), DEFAULT)                                   \
  X(activation, mish, Prim, (Prim x), (std::move(x)), DEFAULT)                                   \
  X(activation, softplus, Prim, (Prim x, double beta, double threshold), (std::move(x), beta, threshold), DEFAULT) \
  X(activation, hard_sigmoid, Prim, (Prim x, double alpha, double beta), (std::move(x), alpha, beta), DEFAULT) \
  X(activation, elu, Prim, (Prim x, double alpha), (std::move(x), alpha), DEFAULT)               \
  X(activation, selu, Prim, (Prim x), (std::move(x)), DEFAULT)                                   \
  X(activation, softmax, Prim, (Prim x, size_t dim), (std::move(x), dim), DEFAULT)               \
  X(activation, log_softmax, Prim, (Prim x, size_t dim), (std::move(x), dim), DEFAULT)             \
  /* module ops: NC<spatial> layout; bias, mask and weight primitives may be null (absent) */      \
  X(conv, conv, Prim, (Prim x, Prim weight, Prim bias, const ConvOptions& options), (std::move(x), std::move(weight), std::move(bias), options), DEFAULT) \
  X(conv, conv_backward, Prims, (Prim x, Prim weight, Prim grad_out, const ConvOptions& options, bool bias_grad), (std::move(x), std::move(weight), std::move(grad_out), options, bias_grad), DEFAULT) \
  X(conv, conv_transpose, Prim, (Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options), (std::move(x), std::move(weight), std::move(bias), options), DEFAULT) \
  X(conv, conv_transpose_backward, Prims, (Prim x, Prim weight, Prim grad_out, const ConvTransposeOptions& options, bool bias_grad), (std::move(x), std::move(weight), std::move(grad_out), options, bias_grad), DEFAULT) \
  X(conv, deform_conv2d, Prim, (Prim x, Prim offset, Prim weight, Prim mask, Prim bias, const DeformConvOptions& options), (std::move(x), std::move(offset), std::move(weight), std::move(mask), std::move(bias), options), DEFAULT) \
  X(conv, unfold, Prim, (Prim x, const UnfoldOptions& options), (std::move(x), options), DEFAULT)    \
  X(conv, fold, Prim, (Prim cols, const Shape& output_size, const UnfoldOptions& options), (std::move(cols), output_size, options), DEFAULT) \
  X(pool, max_pool, Prim, (Prim x, const PoolOptions& options), (std::move(x), options), DEFAULT)    \
  X(pool, max_pool_with_indices, PrimPair, (Prim x, const PoolOptions& options), (std::move(x), options), DEFAULT) \
  X(pool, max_pool_backward, Prim, (Prim x, Prim grad_out, Prim indices, const PoolOptions& options), (std::move(x), std::move(grad_out), std::move(indices), options), DEFAULT) \
  X(pool, avg_pool, Prim, (Prim x, const PoolOptions& options), (std::move(x), options), DEFAULT)    \
  X(pool, avg_pool_backward, Prim, (Prim x, Prim grad_out, const PoolOptions& options), (std::move(x), std::move(grad_out), options), DEFAULT) \
  X(pool, adaptive_avg_pool, Prim, (Prim x, const Shape& output_size), (std::move(x), output_size), DEFAULT) \
  X(pool, adaptive_avg_pool_backward, Prim, (Prim x, Prim grad_out), (std::move(x), std::move(grad_out)), DEFAULT) \
  X(pool, adaptive_max_pool, PrimPair, (Prim x, const Shape& output_size), (std::move(x), output_size), DEFAULT) \
  X(pool, adaptive_max_pool_backward, Prim, (Prim x, Prim grad_out, Prim indices), (std::move(x), std::move(grad_out), std::move(indices)), DEFAULT) \
  X(resample, interpolate, Prim, (Prim x, const Shape& output_size, const InterpolateOptions& options), (std::move(x), output_size, options), DEFAULT) \
  X(resample, interpolate_backward, Prim, (Prim x, Prim grad_out, const Shape& output_size, const InterpolateOptions& options), (std::move(x), std::move(grad_out), output_size, options), DEFAULT) \
  X(resample, pixel_shuffle, Prim, (Prim x, int64_t factor), (std::move(x), factor), DEFAULT)       \
  X(resample, pixel_unshuffle, Prim, (Prim x, int64_t factor), (std::move(x), factor), DEFAULT)     \
  X(embedding, embedding, Prim, (Prim weight, Prim indices), (std::move(weight), std::move(indices)), DEFAULT) \
  X(embedding, embedding_backward, Prim, (Prim weight, Prim grad_out, Prim indices), (std::move(weight), std::move(grad_out), std::move(indices)), DEFAULT) \
  X(norm, layer_norm, Prim, (Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps), (std::move(x), std::move(weight), std::move(bias), normalized_dims, eps), DEFAULT) \
  X(norm, layer_norm_backward, Prims, (Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps), (std::move(x), std::move(weight), std::move(grad_out), normalized_dims, eps), DEFAULT) \
  X(norm, group_norm, Prim, (Prim x, Prim weight, Prim bias, int64_t num_groups, double eps), (std::move(x), std::move(weight), std::move(bias), num_groups, eps), DEFAULT) \
  X(norm, group_norm_backward, Prims, (Prim x, Prim weight, Prim grad_out, int64_t num_groups, double eps), (std::move(x), std::move(weight), std::move(grad_out), num_groups, eps), DEFAULT) \
  X(norm, batch_norm, Prims, (Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training, double momentum, double eps), (std::move(x), std::move(weight), std::move(bias), std::move(running_mean), std::move(running_var), training, momentum, eps), DEFAULT) \
  X(norm, batch_norm_backward, Prims, (Prim x, Prim weight, Prim running_mean, Prim running_var, Prim grad_out, bool training, double eps), (std::move(x), std::move(weight), std::move(running_mean), std::move(running_var), std::move(grad_out), training, eps), DEFAULT) \
  X(norm, rms_norm, Prim, (Prim x, Prim weight, size_t normalized_dims, double eps), (std::move(x), std::move(weight), normalized_dims, eps), DEFAULT) \
  X(norm, rms_norm_backward, Prims, (Prim x, Prim weight, Prim grad_out, size_t normalized_dims, double eps), (std::move(x), std::move(weight), std::move(grad_out), normalized_dims, eps), DEFAULT) \
  X(attention, attention, Prim, (Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options), (std::move(query), std::move(key), std::move(value), std::move(mask), options), DEFAULT)

namespace burn {

enum class OpId : uint16_t {
#define BURN_X_OPID(group, name, ret, params, args, tier) name,
  BURN_OP_TABLE(BURN_X_OPID)
#undef BURN_X_OPID
};

#define BURN_X_COUNT(group, name, ret, params, args, tier) +1
inline constexpr size_t kOpCount = 0 BURN_OP_TABLE(BURN_X_COUNT);
#undef BURN_X_COUNT

}  // namespace burn
