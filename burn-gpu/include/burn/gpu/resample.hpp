// The interpolate ops' plan, shared by the GPU plugins (burn-gpu/kernels/resample.kernel): the output
// shape and the tap tables of the forward and backward kernels, from sampling_taps.hpp's interp_taps (the
// builder the default composite and the cpu backend use, so every backend reads the same input positions
// with the same weights).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// One launch of resample.kernel: the tables (ints: the index block `taps`; weights: the operand W, in the
// sums' type) and the (D, H, W) sizes of the input and output planes, unit leading dims for 1-D and 2-D.
struct ResamplePlan {
  Shape out;                  // interpolate's output shape (the shape grad_out must have)
  Shape result;               // the launch's result: `out`, or the input's shape for the backward op
  std::vector<int64_t> ints;  // empty when there is nothing to run (an empty input or output)
  std::vector<double> weights;
  int64_t in[3] = {1, 1, 1}, out_dims[3] = {1, 1, 1};
  int64_t planes = 0;
  // The weights as the operand W's bytes: doubles (`f64`, the sums' type of f64 inputs) or floats.
  std::vector<uint8_t> weight_bytes(bool f64) const;
};

// The plan of interpolate (backward: interpolate_backward, the tables inverted per input position) of an
// input of shape `in` to the spatial sizes `output_size`, checked by shape_rules::interpolate; Unsupported
// naming the op and `device` when a plane or a table needs more than 32 bits (the kernel indexes planes and
// tables in 32 bits).
ResamplePlan resample_plan(const Shape& in, const Shape& output_size, const InterpolateOptions& options, bool backward,
                           const char* op, const std::string& device);

}  // namespace burn::gpu
