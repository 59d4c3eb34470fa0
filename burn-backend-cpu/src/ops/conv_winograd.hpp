// The Winograd F(2x2, 3x3) forward of 3x3 stride-1 f32 convs (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015): each 2x2 block of outputs takes 16 multiplies a channel pair
// where the direct conv takes 36, so ResNet's body convs (83% of ResNet-18's multiply-adds) do 2.25x
// fewer; the input and output transforms are adds only, and the weights are transformed (16/9 of their
// size) on each call, or once for a weight that inference reuses unwritten (cached as the packed GEMM's
// weights are, ops/pack_cache.hpp). Runs on the blocked kernels' micro-kernels, so on the same CPUs.
// BURN_CPU_CONV=winograd4 takes F(4x4, 3x3) instead (36 multiplies a 4x4 block, 4x fewer than direct; not the
// default until its input transform is cheaper: see the source).
#pragma once

#include <cstdint>

#include "ops/conv_blocked.hpp"
#include "ops/conv_util.hpp"

namespace burn::cpu::conv_detail {

// Whether winograd_conv_forward takes this conv: 2-D, 3x3, stride 1, no dilation, one group, at least
// 64 input and 16 output channels, padding at most 2, enough 2x2 output blocks to pay for the weight
// transform (see the source), and BURN_CPU_CONV not "direct" (that keeps the blocked direct kernel,
// for comparisons). The caller checks blocked_conv_enabled() first.
bool winograd_conv_fits(const Dims& m, const Geo3& g);

// y [N, Cout, Ho, Wo] = conv(x, w) + bias (bias [Cout] or null), then the epilogue (as blocked_conv_forward).
// `weight`, when given, is the tensor w points into, [Cout, C, 3, 3] contiguous: the key of its cached transform.
void winograd_conv_forward(const float* x, const float* w, const float* bias, float* y, const Dims& m, const Geo3& g,
                           const ConvEpilogue& ep = {}, const CpuPtr& weight = nullptr);

// Weight transforms made for the cache since the process started (test hook: a reused weight is made once).
uint64_t winograd_weight_transforms();

}  // namespace burn::cpu::conv_detail
