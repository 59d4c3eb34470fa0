// TEMPORARY during development: untracked passthrough for the ops whose backward is not written yet.
#include "op_helpers.hpp"

namespace burn::autodiff {

Prim AutodiffBackend::prod(Prim x) { return UnwrapBackend::prod(std::move(x)); }
Prim AutodiffBackend::prod_dim(Prim x, size_t dim) { return UnwrapBackend::prod_dim(std::move(x), dim); }
Prim AutodiffBackend::max(Prim x) { return UnwrapBackend::max(std::move(x)); }
Prim AutodiffBackend::max_dim(Prim x, size_t dim) { return UnwrapBackend::max_dim(std::move(x), dim); }
PrimPair AutodiffBackend::max_dim_with_indices(Prim x, size_t dim) { return UnwrapBackend::max_dim_with_indices(std::move(x), dim); }
Prim AutodiffBackend::min(Prim x) { return UnwrapBackend::min(std::move(x)); }
Prim AutodiffBackend::min_dim(Prim x, size_t dim) { return UnwrapBackend::min_dim(std::move(x), dim); }
PrimPair AutodiffBackend::min_dim_with_indices(Prim x, size_t dim) { return UnwrapBackend::min_dim_with_indices(std::move(x), dim); }
Prim AutodiffBackend::var(Prim x, size_t dim, int64_t correction) { return UnwrapBackend::var(std::move(x), dim, correction); }
Prim AutodiffBackend::cumsum(Prim x, size_t dim) { return UnwrapBackend::cumsum(std::move(x), dim); }
Prim AutodiffBackend::cumprod(Prim x, size_t dim) { return UnwrapBackend::cumprod(std::move(x), dim); }
Prim AutodiffBackend::cummax(Prim x, size_t dim) { return UnwrapBackend::cummax(std::move(x), dim); }
Prim AutodiffBackend::cummin(Prim x, size_t dim) { return UnwrapBackend::cummin(std::move(x), dim); }
PrimPair AutodiffBackend::sort(Prim x, size_t dim, bool descending, bool stable) { return UnwrapBackend::sort(std::move(x), dim, descending, stable); }
PrimPair AutodiffBackend::topk(Prim x, int64_t k, size_t dim, bool largest) { return UnwrapBackend::topk(std::move(x), k, dim, largest); }
Prim AutodiffBackend::reshape(Prim x, const Shape& shape) { return UnwrapBackend::reshape(std::move(x), shape); }
Prim AutodiffBackend::permute(Prim x, const Axes& axes) { return UnwrapBackend::permute(std::move(x), axes); }
Prim AutodiffBackend::expand(Prim x, const Shape& shape) { return UnwrapBackend::expand(std::move(x), shape); }
Prim AutodiffBackend::flip(Prim x, const Axes& axes) { return UnwrapBackend::flip(std::move(x), axes); }
Prim AutodiffBackend::slice(Prim x, const Slices& ranges) { return UnwrapBackend::slice(std::move(x), ranges); }
Prim AutodiffBackend::slice_assign(Prim x, const Slices& ranges, Prim value) { return UnwrapBackend::slice_assign(std::move(x), ranges, std::move(value)); }
Prim AutodiffBackend::cat(const Prims& xs, size_t dim) { return UnwrapBackend::cat(xs, dim); }
Prim AutodiffBackend::repeat_dim(Prim x, size_t dim, int64_t times) { return UnwrapBackend::repeat_dim(std::move(x), dim, times); }
Prim AutodiffBackend::gather(Prim x, size_t dim, Prim indices) { return UnwrapBackend::gather(std::move(x), dim, std::move(indices)); }
Prim AutodiffBackend::scatter_add(Prim x, size_t dim, Prim indices, Prim values) { return UnwrapBackend::scatter_add(std::move(x), dim, std::move(indices), std::move(values)); }
Prim AutodiffBackend::select(Prim x, size_t dim, Prim indices) { return UnwrapBackend::select(std::move(x), dim, std::move(indices)); }
Prim AutodiffBackend::select_add(Prim x, size_t dim, Prim indices, Prim values) { return UnwrapBackend::select_add(std::move(x), dim, std::move(indices), std::move(values)); }
Prim AutodiffBackend::mask_where(Prim x, Prim mask, Prim value) { return UnwrapBackend::mask_where(std::move(x), std::move(mask), std::move(value)); }
Prim AutodiffBackend::mask_fill(Prim x, Prim mask, Scalar value) { return UnwrapBackend::mask_fill(std::move(x), std::move(mask), value); }
Prim AutodiffBackend::conv(Prim x, Prim weight, Prim bias, const ConvOptions& options) { return UnwrapBackend::conv(std::move(x), std::move(weight), std::move(bias), options); }
Prim AutodiffBackend::conv_transpose(Prim x, Prim weight, Prim bias, const ConvTransposeOptions& options) { return UnwrapBackend::conv_transpose(std::move(x), std::move(weight), std::move(bias), options); }
Prim AutodiffBackend::deform_conv2d(Prim x, Prim offset, Prim weight, Prim mask, Prim bias, const DeformConvOptions& options) { return UnwrapBackend::deform_conv2d(std::move(x), std::move(offset), std::move(weight), std::move(mask), std::move(bias), options); }
Prim AutodiffBackend::unfold(Prim x, const UnfoldOptions& options) { return UnwrapBackend::unfold(std::move(x), options); }
Prim AutodiffBackend::fold(Prim cols, const Shape& output_size, const UnfoldOptions& options) { return UnwrapBackend::fold(std::move(cols), output_size, options); }
Prim AutodiffBackend::max_pool(Prim x, const PoolOptions& options) { return UnwrapBackend::max_pool(std::move(x), options); }
PrimPair AutodiffBackend::max_pool_with_indices(Prim x, const PoolOptions& options) { return UnwrapBackend::max_pool_with_indices(std::move(x), options); }
Prim AutodiffBackend::avg_pool(Prim x, const PoolOptions& options) { return UnwrapBackend::avg_pool(std::move(x), options); }
Prim AutodiffBackend::adaptive_avg_pool(Prim x, const Shape& output_size) { return UnwrapBackend::adaptive_avg_pool(std::move(x), output_size); }
PrimPair AutodiffBackend::adaptive_max_pool(Prim x, const Shape& output_size) { return UnwrapBackend::adaptive_max_pool(std::move(x), output_size); }
Prim AutodiffBackend::interpolate(Prim x, const Shape& output_size, const InterpolateOptions& options) { return UnwrapBackend::interpolate(std::move(x), output_size, options); }
Prim AutodiffBackend::pixel_shuffle(Prim x, int64_t factor) { return UnwrapBackend::pixel_shuffle(std::move(x), factor); }
Prim AutodiffBackend::pixel_unshuffle(Prim x, int64_t factor) { return UnwrapBackend::pixel_unshuffle(std::move(x), factor); }
Prim AutodiffBackend::embedding(Prim weight, Prim indices) { return UnwrapBackend::embedding(std::move(weight), std::move(indices)); }
Prim AutodiffBackend::layer_norm(Prim x, Prim weight, Prim bias, size_t normalized_dims, double eps) { return UnwrapBackend::layer_norm(std::move(x), std::move(weight), std::move(bias), normalized_dims, eps); }
Prim AutodiffBackend::group_norm(Prim x, Prim weight, Prim bias, int64_t num_groups, double eps) { return UnwrapBackend::group_norm(std::move(x), std::move(weight), std::move(bias), num_groups, eps); }
Prims AutodiffBackend::batch_norm(Prim x, Prim weight, Prim bias, Prim running_mean, Prim running_var, bool training, double momentum, double eps) { return UnwrapBackend::batch_norm(std::move(x), std::move(weight), std::move(bias), std::move(running_mean), std::move(running_var), training, momentum, eps); }
Prim AutodiffBackend::rms_norm(Prim x, Prim weight, size_t normalized_dims, double eps) { return UnwrapBackend::rms_norm(std::move(x), std::move(weight), normalized_dims, eps); }
Prim AutodiffBackend::attention(Prim query, Prim key, Prim value, Prim mask, const AttentionOptions& options) { return UnwrapBackend::attention(std::move(query), std::move(key), std::move(value), std::move(mask), options); }

}  // namespace burn::autodiff
