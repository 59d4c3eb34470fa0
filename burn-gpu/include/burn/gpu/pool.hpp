// The pool module ops' plan, shared by the GPU plugins (burn-gpu/kernels/pool.kernel): the geometry block
// from the pool rules' normalised options, the output shape, the passes and the kernel's flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "burn/tensor/backend.hpp"

namespace burn::gpu {

// The geometry block of pool.kernel: in, out, kernel, stride, padding, padding_end, dilation, each over
// (D, H, W) with unit leading dims for 1-D and 2-D pools.
struct PoolGeo {
  int64_t v[7][3] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}};
  int64_t in_len() const { return v[0][0] * v[0][1] * v[0][2]; }
  int64_t out_len() const { return v[1][0] * v[1][1] * v[1][2]; }
  // The 21 entries as the kernel reads them; Unsupported naming the op and `device` when a plane or a size
  // needs more than 32 bits (the kernel indexes within a plane in 32 bits).
  std::vector<int64_t> entries(const char* op, const std::string& device) const;
};

// The geometry of a pool whose options and output size the pool rule checks and normalises (shape_rules).
PoolGeo pool_geo(const Shape& in, const PoolOptions& options, bool max, const char* op);
// The geometry of an adaptive pool to `out` (the spatial sizes).
PoolGeo adaptive_geo(const Shape& in, const std::vector<int64_t>& out, const char* op);
// The geometry of an adaptive pool's backward, its output size read from grad_out [N, C, out...] (ShapeError
// naming `op` for another rank).
PoolGeo adaptive_backward_geo(const Shape& in, const Shape& grad_out, const char* op);
// [N, C, out...] of an input [N, C, in...].
Shape pool_out_shape(const Shape& in, const PoolGeo& g);
// ShapeError unless s is [N, C, spatial...] with 1 to 3 spatial dims.
void check_pool_rank(const Shape& s, const char* op);
// The output shape [N, C, out...] of a max pool backward after its operands' checks: the input's rank,
// grad_out and indices of that shape (ShapeError), indices i64 or i32 (DTypeError), each naming `op`.
Shape check_max_backward_operands(const Shape& in, const PoolGeo& g, const Shape& grad_out, const Shape& indices,
                                  DType index_dtype, const char* op);
// The planes (N * C) of [N, C, spatial...].
inline int64_t pool_planes(const Shape& s) { return s[0] * s[1]; }

// The kernel's passes (its defines), in pool.kernel's order.
enum class PoolPass { max_fwd, avg_fwd, avg_bwd, max_bwd_check, max_bwd, max_bwd_serial };
const char* pool_pass_define(PoolPass pass);
// The kernel's `flags` argument: 1 adaptive, 2 count_include_pad, 4 write the indices.
uint32_t pool_flags(bool adaptive, bool count_pad, bool with_indices);

}  // namespace burn::gpu
