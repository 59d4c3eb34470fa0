// Module ops: convolution, pooling, resampling, embedding, normalisation and attention, as
// functions over typed tensors (burn::module) forwarding to checked non-template functions (burn::api).
// The *_backward functions are what autodiff calls; they are public for tests and custom layers.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "burn/tensor/module_options.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn {
namespace api {

using OptH = std::optional<TensorHandle>;

// conv family (NC<spatial>; weight [C_out, C_in / groups, k...]; transposed weight [C_in, C_out / groups, k...])
BURN_TENSOR_API H conv(H x, const H& weight, const OptH& bias, const ConvOptions& options);
// The *_backward functions return {grad_x, grad_weight, grad_bias}, null where `mask` did not ask for it.
BURN_TENSOR_API Hs conv_backward(H x, const H& weight, const H& grad_out, const ConvOptions& options,
                                 const ConvGradMask& mask = {});
BURN_TENSOR_API H conv_transpose(H x, const H& weight, const OptH& bias, const ConvTransposeOptions& options);
BURN_TENSOR_API Hs conv_transpose_backward(H x, const H& weight, const H& grad_out, const ConvTransposeOptions& options,
                                           const ConvGradMask& mask = {});
BURN_TENSOR_API H deform_conv2d(H x, const H& offset, const H& weight, const OptH& mask, const OptH& bias,
                                const DeformConvOptions& options);
BURN_TENSOR_API H unfold(H x, const UnfoldOptions& options);  // [N, C, H, W] -> [N, C * kh * kw, L]
BURN_TENSOR_API H fold(H cols, const std::vector<int64_t>& output_size, const UnfoldOptions& options);

// pooling
BURN_TENSOR_API H max_pool(H x, const PoolOptions& options);
BURN_TENSOR_API std::pair<H, H> max_pool_with_indices(H x, const PoolOptions& options);  // indices: flat per plane
BURN_TENSOR_API H max_pool_backward(H x, const H& grad_out, const H& indices, const PoolOptions& options);
BURN_TENSOR_API H avg_pool(H x, const PoolOptions& options);
BURN_TENSOR_API H avg_pool_backward(H x, const H& grad_out, const PoolOptions& options);
BURN_TENSOR_API H adaptive_avg_pool(H x, const std::vector<int64_t>& output_size);
BURN_TENSOR_API H adaptive_avg_pool_backward(H x, const H& grad_out);
BURN_TENSOR_API std::pair<H, H> adaptive_max_pool(H x, const std::vector<int64_t>& output_size);
BURN_TENSOR_API H adaptive_max_pool_backward(H x, const H& grad_out, const H& indices);

// resampling
BURN_TENSOR_API H interpolate(H x, const std::vector<int64_t>& output_size, const InterpolateOptions& options);
BURN_TENSOR_API H interpolate_backward(H x, const H& grad_out, const std::vector<int64_t>& output_size,
                                       const InterpolateOptions& options);
BURN_TENSOR_API H pixel_shuffle(H x, int64_t factor);
BURN_TENSOR_API H pixel_unshuffle(H x, int64_t factor);
// x [N, C, H, W] sampled at grid [N, Ho, Wo, 2] ((x, y) in [-1, 1]) -> [N, C, Ho, Wo]
BURN_TENSOR_API H grid_sample_2d(H x, const H& grid, const GridSampleOptions& options);

// embedding
BURN_TENSOR_API H embedding(H weight, const H& indices);
BURN_TENSOR_API H embedding_backward(H weight, const H& grad_out, const H& indices);

// normalisation: the last `normalized_dims` dims for layer/rms norm; channels (dim 1) for batch/group norm.
// The backward functions return {grad_x, grad_weight, grad_bias}, with null handles for absent params.
BURN_TENSOR_API H layer_norm(H x, const OptH& weight, const OptH& bias, size_t normalized_dims, double eps);
BURN_TENSOR_API Hs layer_norm_backward(H x, const OptH& weight, const H& grad_out, size_t normalized_dims, double eps);
BURN_TENSOR_API H group_norm(H x, const OptH& weight, const OptH& bias, int64_t num_groups, double eps);
BURN_TENSOR_API Hs group_norm_backward(H x, const OptH& weight, const H& grad_out, int64_t num_groups, double eps);
// Returns {y, new running mean, new running var}; without running stats the new ones are null.
BURN_TENSOR_API Hs batch_norm(H x, const OptH& weight, const OptH& bias, const OptH& running_mean,
                              const OptH& running_var, bool training, double momentum, double eps);
BURN_TENSOR_API Hs batch_norm_backward(H x, const OptH& weight, const OptH& running_mean, const OptH& running_var,
                                       const H& grad_out, bool training, double eps);
BURN_TENSOR_API H rms_norm(H x, const OptH& weight, size_t normalized_dims, double eps);
BURN_TENSOR_API Hs rms_norm_backward(H x, const OptH& weight, const H& grad_out, size_t normalized_dims, double eps);

// attention: q [B, H, Lq, E], k [B, H, Lk, E], v [B, H, Lk, Ev]; mask broadcastable to [B, H, Lq, Lk],
// true = masked out (Burn's convention)
BURN_TENSOR_API H attention(H query, const H& key, const H& value, const OptH& mask, const AttentionOptions& options);

}  // namespace api

namespace module {

namespace detail {
template <size_t D, typename K>
api::OptH opt(const std::optional<Tensor<D, K>>& t) {
  return t ? api::OptH(t->handle()) : std::nullopt;
}
}  // namespace detail

// D = 3, 4, 5 for 1-D, 2-D, 3-D.
template <size_t D>
Tensor<D> conv(const Tensor<D>& x, const Tensor<D>& weight, const std::optional<Tensor<1>>& bias = std::nullopt,
               const ConvOptions& options = {}) {
  return Tensor<D>(api::conv(x.handle(), weight.handle(), detail::opt(bias), options));
}
inline Tensor<3> conv1d(const Tensor<3>& x, const Tensor<3>& w, const std::optional<Tensor<1>>& b = std::nullopt,
                        const ConvOptions& o = {}) {
  return conv<3>(x, w, b, o);
}
inline Tensor<4> conv2d(const Tensor<4>& x, const Tensor<4>& w, const std::optional<Tensor<1>>& b = std::nullopt,
                        const ConvOptions& o = {}) {
  return conv<4>(x, w, b, o);
}
inline Tensor<5> conv3d(const Tensor<5>& x, const Tensor<5>& w, const std::optional<Tensor<1>>& b = std::nullopt,
                        const ConvOptions& o = {}) {
  return conv<5>(x, w, b, o);
}

template <size_t D>
Tensor<D> conv_transpose(const Tensor<D>& x, const Tensor<D>& weight,
                         const std::optional<Tensor<1>>& bias = std::nullopt,
                         const ConvTransposeOptions& options = {}) {
  return Tensor<D>(api::conv_transpose(x.handle(), weight.handle(), detail::opt(bias), options));
}
inline Tensor<3> conv_transpose1d(const Tensor<3>& x, const Tensor<3>& w,
                                  const std::optional<Tensor<1>>& b = std::nullopt,
                                  const ConvTransposeOptions& o = {}) {
  return conv_transpose<3>(x, w, b, o);
}
inline Tensor<4> conv_transpose2d(const Tensor<4>& x, const Tensor<4>& w,
                                  const std::optional<Tensor<1>>& b = std::nullopt,
                                  const ConvTransposeOptions& o = {}) {
  return conv_transpose<4>(x, w, b, o);
}
inline Tensor<5> conv_transpose3d(const Tensor<5>& x, const Tensor<5>& w,
                                  const std::optional<Tensor<1>>& b = std::nullopt,
                                  const ConvTransposeOptions& o = {}) {
  return conv_transpose<5>(x, w, b, o);
}

inline Tensor<4> deform_conv2d(const Tensor<4>& x, const Tensor<4>& offset, const Tensor<4>& weight,
                               const std::optional<Tensor<4>>& mask = std::nullopt,
                               const std::optional<Tensor<1>>& bias = std::nullopt,
                               const DeformConvOptions& options = {}) {
  return Tensor<4>(
      api::deform_conv2d(x.handle(), offset.handle(), weight.handle(), detail::opt(mask), detail::opt(bias), options));
}

inline Tensor<3> unfold(const Tensor<4>& x, const UnfoldOptions& options) {
  return Tensor<3>(api::unfold(x.handle(), options));
}
inline Tensor<4> fold(const Tensor<3>& cols, const std::vector<int64_t>& output_size, const UnfoldOptions& options) {
  return Tensor<4>(api::fold(cols.handle(), output_size, options));
}

template <size_t D>
Tensor<D> max_pool(const Tensor<D>& x, const PoolOptions& options) {
  return Tensor<D>(api::max_pool(x.handle(), options));
}
template <size_t D>
std::pair<Tensor<D>, Tensor<D, Int>> max_pool_with_indices(const Tensor<D>& x, const PoolOptions& options) {
  auto [y, i] = api::max_pool_with_indices(x.handle(), options);
  return {Tensor<D>(std::move(y)), Tensor<D, Int>(std::move(i))};
}
template <size_t D>
Tensor<D> avg_pool(const Tensor<D>& x, const PoolOptions& options) {
  return Tensor<D>(api::avg_pool(x.handle(), options));
}
template <size_t D>
Tensor<D> adaptive_avg_pool(const Tensor<D>& x, const std::vector<int64_t>& output_size) {
  return Tensor<D>(api::adaptive_avg_pool(x.handle(), output_size));
}
template <size_t D>
std::pair<Tensor<D>, Tensor<D, Int>> adaptive_max_pool(const Tensor<D>& x, const std::vector<int64_t>& output_size) {
  auto [y, i] = api::adaptive_max_pool(x.handle(), output_size);
  return {Tensor<D>(std::move(y)), Tensor<D, Int>(std::move(i))};
}
inline Tensor<3> max_pool1d(const Tensor<3>& x, const PoolOptions& o) { return max_pool<3>(x, o); }
inline Tensor<4> max_pool2d(const Tensor<4>& x, const PoolOptions& o) { return max_pool<4>(x, o); }
inline Tensor<5> max_pool3d(const Tensor<5>& x, const PoolOptions& o) { return max_pool<5>(x, o); }
inline Tensor<3> avg_pool1d(const Tensor<3>& x, const PoolOptions& o) { return avg_pool<3>(x, o); }
inline Tensor<4> avg_pool2d(const Tensor<4>& x, const PoolOptions& o) { return avg_pool<4>(x, o); }
inline Tensor<5> avg_pool3d(const Tensor<5>& x, const PoolOptions& o) { return avg_pool<5>(x, o); }

template <size_t D>
Tensor<D> interpolate(const Tensor<D>& x, const std::vector<int64_t>& output_size,
                      const InterpolateOptions& options = {}) {
  return Tensor<D>(api::interpolate(x.handle(), output_size, options));
}
inline Tensor<4> pixel_shuffle(const Tensor<4>& x, int64_t factor) {
  return Tensor<4>(api::pixel_shuffle(x.handle(), factor));
}
inline Tensor<4> pixel_unshuffle(const Tensor<4>& x, int64_t factor) {
  return Tensor<4>(api::pixel_unshuffle(x.handle(), factor));
}
// torch.nn.functional.grid_sample for 4-D input: grid [N, Ho, Wo, 2] holds (x, y) sampling positions,
// -1 and 1 being the plane's left/top and right/bottom (pixel edges, or centres with align_corners).
inline Tensor<4> grid_sample_2d(const Tensor<4>& x, const Tensor<4>& grid, const GridSampleOptions& options = {}) {
  return Tensor<4>(api::grid_sample_2d(x.handle(), grid.handle(), options));
}

// weight [num_embeddings, dim]; indices of any rank D -> [..., dim]
template <size_t D>
Tensor<D + 1> embedding(const Tensor<2>& weight, const Tensor<D, Int>& indices) {
  return Tensor<D + 1>(api::embedding(weight.handle(), indices.handle()));
}

// Over the last `normalized_dims` dims, without affine parameters.
template <size_t D>
Tensor<D> layer_norm(const Tensor<D>& x, size_t normalized_dims, double eps = 1e-5) {
  return Tensor<D>(api::layer_norm(x.handle(), std::nullopt, std::nullopt, normalized_dims, eps));
}
// Over the last N dims, the shape of `weight` (and `bias`).
template <size_t D, size_t N>
Tensor<D> layer_norm(const Tensor<D>& x, const Tensor<N>& weight, const std::optional<Tensor<N>>& bias = std::nullopt,
                     double eps = 1e-5) {
  return Tensor<D>(api::layer_norm(x.handle(), weight.handle(), detail::opt(bias), N, eps));
}
template <size_t D>
Tensor<D> group_norm(const Tensor<D>& x, int64_t num_groups, const std::optional<Tensor<1>>& weight = std::nullopt,
                     const std::optional<Tensor<1>>& bias = std::nullopt, double eps = 1e-5) {
  return Tensor<D>(api::group_norm(x.handle(), detail::opt(weight), detail::opt(bias), num_groups, eps));
}
template <size_t D>
struct BatchNormResult {
  Tensor<D> output;
  std::optional<Tensor<1>> running_mean, running_var;  // updated statistics (training with running stats)
};
template <size_t D>
BatchNormResult<D> batch_norm(const Tensor<D>& x, const std::optional<Tensor<1>>& running_mean,
                              const std::optional<Tensor<1>>& running_var,
                              const std::optional<Tensor<1>>& weight = std::nullopt,
                              const std::optional<Tensor<1>>& bias = std::nullopt, bool training = false,
                              double momentum = 0.1, double eps = 1e-5) {
  auto r = api::batch_norm(x.handle(), detail::opt(weight), detail::opt(bias), detail::opt(running_mean),
                           detail::opt(running_var), training, momentum, eps);
  BatchNormResult<D> out{Tensor<D>(std::move(r.at(0))), std::nullopt, std::nullopt};
  if (r.size() > 2 && r[1].prim) out.running_mean = Tensor<1>(std::move(r[1]));
  if (r.size() > 2 && r[2].prim) out.running_var = Tensor<1>(std::move(r[2]));
  return out;
}
template <size_t D>
Tensor<D> rms_norm(const Tensor<D>& x, size_t normalized_dims, double eps = 1e-6) {
  return Tensor<D>(api::rms_norm(x.handle(), std::nullopt, normalized_dims, eps));
}
template <size_t D, size_t N>
Tensor<D> rms_norm(const Tensor<D>& x, const Tensor<N>& weight, double eps = 1e-6) {
  return Tensor<D>(api::rms_norm(x.handle(), weight.handle(), N, eps));
}

inline Tensor<4> attention(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                           const std::optional<Tensor<4, Bool>>& mask = std::nullopt,
                           const AttentionOptions& options = {}) {
  return Tensor<4>(api::attention(q.handle(), k.handle(), v.handle(), detail::opt(mask), options));
}

}  // namespace module
}  // namespace burn
